//go:build linux

package tooling

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
	"github.com/toolexplorer/toolexplorer/tooling/internal/confinehook"
)

func TestExpandPorts(t *testing.T) {
	tests := []struct {
		ports, allowed, want []uint16
	}{
		{ports: nil, allowed: []uint16{1}, want: nil},
		{ports: []uint16{80}, allowed: []uint16{8080}, want: []uint16{80}},
		{ports: []uint16{80, 0}, allowed: nil, want: []uint16{80}},
		{ports: []uint16{0}, allowed: nil, want: nil},
		{ports: []uint16{80, 8080, 0}, allowed: []uint16{8080, 9000}, want: []uint16{80, 8080, 9000}},
	}
	for _, tt := range tests {
		if got := expandPorts(tt.ports, tt.allowed); !slices.Equal(got, tt.want) {
			t.Errorf("expandPorts(%v, %v) = %v, want %v", tt.ports, tt.allowed, got, tt.want)
		}
	}
}

// TestProfilePortMarker checks that a 0 port becomes the config's allowed
// ports, which then narrow the tool's other ports.
func TestProfilePortMarker(t *testing.T) {
	r := NewRegistry()
	cfg := Settings{}
	cfg.Confinement.Workspace = t.TempDir()
	cfg.Confinement.AllowedPorts = []uint16{4321}
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	p, _, dropped, err := r.profileOf(confinehook.Installed(), "t.ports", &Confinement{ConnectTCP: []uint16{80, 0}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Granted().ConnectTCP, []uint16{4321}) || len(dropped) == 0 {
		t.Errorf("ports %v (dropped %v), want [4321] with 80 dropped", p.Granted().ConnectTCP, dropped)
	}
	cfg.Confinement.AllowedPorts = nil
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	p, _, _, err = r.profileOf(confinehook.Installed(), "t.ports", &Confinement{ConnectTCP: []uint16{80, 0}})
	if err != nil || !slices.Equal(p.Granted().ConnectTCP, []uint16{80}) {
		t.Errorf("ports %v (%v), want [80]", p.Granted().ConnectTCP, err)
	}
}

// TestReusedWorkersPerTool checks that two tools with the same reused
// confinement never share a worker: the profile carries the tool's name.
func TestReusedWorkersPerTool(t *testing.T) {
	r := NewRegistry()
	cfg := Settings{}
	cfg.Confinement.Workspace = t.TempDir()
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	c := &Confinement{Reuse: true}
	a, _, _, errA := r.profileOf(confinehook.Installed(), "t.a", c)
	b, _, _, errB := r.profileOf(confinehook.Installed(), "t.b", c)
	if errA != nil || errB != nil || a.Granted().ReuseKey != "t.a" || a.Hash() == b.Hash() {
		t.Errorf("reuse keys %q and %q, hashes %s and %s (%v %v): want one per tool", a.Granted().ReuseKey, b.Granted().ReuseKey, a.Hash(), b.Hash(), errA, errB)
	}
}

// TestAllowedRootsDefault checks that without allowed_roots in the config
// a confined tool is granted paths in the workspace and its own programs,
// nothing else.
func TestAllowedRootsDefault(t *testing.T) {
	r := NewRegistry()
	cfg := Settings{}
	base, err := os.MkdirTemp("", "roots-") // reachable by the children's user
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.Confinement.Workspace = filepath.Join(base, "ws")
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	p, ws, dropped, err := r.profileOf(confinehook.Installed(), "t.roots", &Confinement{Read: []string{"$WORKSPACE/in", "/etc"}, Write: []string{"/tmp"}, Exec: []string{"/bin/sh"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Granted().Read) != 1 || p.Granted().Read[0] != ws+"/in" || len(p.Granted().Write) != 0 || len(p.Granted().Exec) != 1 || len(dropped) != 2 {
		t.Errorf("read %v write %v exec %v (dropped %v); want the workspace path and the program only", p.Granted().Read, p.Granted().Write, p.Granted().Exec, dropped)
	}
}

// TestWriteGrantsGuardConfigAndProgram checks that a write grant holding
// the config file or the host's executable is refused.
func TestWriteGrantsGuardConfigAndProgram(t *testing.T) {
	base, err := os.MkdirTemp("", "guard-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	cfg := Settings{}
	cfg.Confinement.Workspace = filepath.Join(base, "ws")
	cfg.Source = filepath.Join(base, "ws", "toolexplorer.json")
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.profileOf(confinehook.Installed(), "t.read", &Confinement{Read: []string{"$WORKSPACE"}}); err != nil {
		t.Errorf("reading a workspace that holds the config: %v", err)
	}
	if _, _, _, err := r.profileOf(confinehook.Installed(), "t.write", &Confinement{Write: []string{"$WORKSPACE"}}); err == nil || !strings.Contains(err.Error(), "toolexplorer.json") {
		t.Errorf("writing a workspace that holds the config: %v, want a refusal naming it", err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	exe, _ = filepath.EvalSymlinks(exe)
	if err := checkWriteGrants([]string{filepath.Dir(exe)}, ""); err == nil {
		t.Errorf("a write grant holding the program %s was not refused", exe)
	}
	if err := checkWriteGrants([]string{base}, ""); err != nil {
		t.Errorf("a write grant holding neither: %v", err)
	}
}

// TestTmpBudget checks that a tool's temp dir budget reaches its profile,
// capped by the config's max_limits.
func TestTmpBudget(t *testing.T) {
	r := NewRegistry()
	cfg := Settings{}
	cfg.Confinement.Workspace = t.TempDir()
	cfg.Confinement.MaxLimits.TmpBytes = 8 << 20
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	p, _, dropped, err := r.profileOf(confinehook.Installed(), "t.tmp", &Confinement{Limits: Limits{TmpBytes: 64 << 20, TmpInodes: 100}})
	if err != nil || p.Granted().Limits.TmpBytes != 8<<20 || p.Granted().Limits.TmpInodes != 100 || len(dropped) != 1 {
		t.Errorf("tmp budget %d bytes, %d entries (dropped %v, %v); want 8 MiB and 100", p.Granted().Limits.TmpBytes, p.Granted().Limits.TmpInodes, dropped, err)
	}
}

// TestProgramInAnotherToolsWriteGrant checks that a program lying in the
// write path of any confined tool is refused, for the tool that writes
// there and for a read-only tool that lists it.
func TestProgramInAnotherToolsWriteGrant(t *testing.T) {
	base, err := os.MkdirTemp("", "progs-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	r := NewRegistry()
	cfg := Settings{}
	cfg.Confinement.Workspace = filepath.Join(base, "ws")
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	// Registered as Register would (which refuses confined tools outside the registry handed
	// to Main, which this test binary has not).
	r.mu.Lock()
	r.tools["t.writer"] = &entry{tool: Tool{Name: "t.writer", Meta: Meta{Confine: &Confinement{Write: []string{"$WORKSPACE"}}}}}
	r.mu.Unlock()
	ws, err := filepath.EvalSymlinks(cfg.Confinement.Workspace)
	if err != nil {
		os.MkdirAll(cfg.Confinement.Workspace, 0o755)
		ws, _ = filepath.EvalSymlinks(cfg.Confinement.Workspace)
	}
	prog := filepath.Join(ws, "bin", "tool")
	os.MkdirAll(filepath.Dir(prog), 0o755)
	if err := os.WriteFile(prog, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, _, err = r.profileOf(confinehook.Installed(), "t.reader", &Confinement{Read: []string{"$WORKSPACE"}, Exec: []string{prog}})
	if err == nil || !strings.Contains(err.Error(), "t.writer") || !strings.Contains(err.Error(), "not an allow-list") {
		t.Errorf("a read-only tool listing a program in t.writer's write path: %v, want a refusal naming t.writer", err)
	}
	outside := filepath.Join(base, "tool")
	if err := os.WriteFile(outside, []byte("\x7fELF"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := r.profileOf(confinehook.Installed(), "t.reader", &Confinement{Read: []string{"$WORKSPACE"}, Exec: []string{outside}}); err != nil {
		t.Errorf("a program outside every write path: %v", err)
	}
}
