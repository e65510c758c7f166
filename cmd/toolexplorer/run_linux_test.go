//go:build linux

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// confinedChildren lists the confined children of this process still alive
// (running, or started ahead and waiting for a call).
func confinedChildren(t *testing.T) []int {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	self := os.Getpid()
	var out []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(self) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if argv0, _, _ := bytes.Cut(cmdline, []byte{0}); string(argv0) == "confine-child" {
			out = append(out, pid)
		}
	}
	return out
}

// A one-shot run of a confined tool starts the one child its call needs and
// no worker ahead of calls that never come, whatever the config's pool size.
func TestRunStartsNoSpareWorker(t *testing.T) {
	if err := confine.Available(); err != nil {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %v", err)
		}
		t.Skipf("confinement unavailable here: %v", err)
	}
	// Children run as an unprivileged user when the test runs as root: the
	// workspace must be reachable for them.
	ws, err := os.MkdirTemp("", "te-workspace-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	if err := os.Chmod(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"confinement":{"workspace":"`+ws+`","pool_size":2}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	confine.Settle()
	before := confinedChildren(t)
	o := cli(t, "", "--config", cfg, "run", "fs.list_dir", "--args", `{"path":"."}`, "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, `"status": "ok"`) {
		t.Fatalf("exit %d\n%s\n%s", o.code, o.stdout, o.stderr)
	}
	// The call's own child is reaped once Settle returns; a worker started
	// ahead would still be alive, waiting for a call: the pool keeps it
	// until the program ends.
	confine.Settle()
	if after := confinedChildren(t); len(after) != len(before) {
		t.Fatalf("confined children alive before the run %v, after it %v: the run started workers it did not use", before, after)
	}
}

// TestLedgerRecordsConfinedEffects: the ledger's end record of a confined
// call holds what the parent knows of its side effects, read back from the
// file: the paths it could write (its write grants), and the protected name
// it created, moved aside after it (in the modes that move it aside; the
// supervised mode refuses it as it is made, and nothing is moved).
func TestLedgerRecordsConfinedEffects(t *testing.T) {
	if err := confine.Available(); err != nil {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %v", err)
		}
		t.Skipf("confinement unavailable here: %v", err)
	}
	ws, err := os.MkdirTemp("", "te-workspace-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	if err := os.Chmod(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"confinement":{"workspace":"`+ws+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	t.Setenv(ledgerEnv, path)
	if o := cli(t, "", "--config", cfg, "run", "fs.write_file", "--consent", "--args", `{"path":"notes/a.txt","content":"hi"}`); o.code != exitOK {
		t.Fatalf("an ordinary write: %v", o)
	}
	o := cli(t, "", "--config", cfg, "run", "fs.write_file", "--consent", "--args", `{"path":"sub/.envrc","content":"export X=1"}`)
	if o.code == exitOK {
		t.Fatalf("a write of a protected name passed: %v", o)
	}
	confine.Settle()
	entries, err := ledger.Read(path, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].End == nil || entries[1].End == nil {
		t.Fatalf("the ledger holds %d calls, want 2 ended ones", len(entries))
	}
	real, _ := filepath.EvalSymlinks(ws)
	grants := `["` + real + `"]`
	if got := entries[0].End.Effects; got["write_grants"] != grants || got["moved_aside"] != "" {
		t.Errorf("the ordinary write's effects %v, want write_grants %s", got, grants)
	}
	got := entries[1].End.Effects
	// In the supervised mode the name is refused as it is made: nothing is moved aside.
	movedAside := strings.HasPrefix(got["moved_aside"], filepath.Join(real, "sub", ".envrc")+" -> ")
	if m, _ := confine.ProtectionMode(); m == confine.ModeSupervised {
		movedAside = got["moved_aside"] == ""
		if _, err := os.Lstat(filepath.Join(real, "sub", ".envrc")); err == nil {
			t.Errorf("the protected name was made")
		}
	}
	if entries[1].End.Code != "sandbox_denied" || got["write_grants"] != grants || !movedAside {
		t.Errorf("the write of a protected name: code %s, effects %v", entries[1].End.Code, got)
	}
}
