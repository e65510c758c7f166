package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// openDir is a new directory any user may enter (the confined server runs
// as nobody when the test runs as root), so that only the confinement can
// keep the server out of what it holds.
func openDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestConfinedServerCannotReadOutside attacks a confined server from
// inside: the server reads a private key outside its grants. The
// unconfined control reads it; confined, the read is refused, and the
// server serves its other tools.
func TestConfinedServerCannotReadOutside(t *testing.T) {
	secret := filepath.Join(openDir(t), "id_ed25519")
	if err := os.WriteFile(secret, []byte("-----BEGIN OPENSSH PRIVATE KEY-----"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server: a copy of this test binary where any user may run it.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(openDir(t), "peer")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	read := func(s mcp.Spec) *tooling.Result {
		t.Helper()
		reg := tooling.NewRegistry()
		r, err := mcp.Connect(context.Background(), reg, "peer", s)
		if err != nil && s.Confine != nil && strings.Contains(err.Error(), "confine: unavailable") && os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") != "1" {
			t.Skipf("not applicable: confinement cannot be applied on this machine: %v", err)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if res, _ := reg.Execute(context.Background(), "peer.echo", json.RawMessage(`{"text":"still serving"}`)); !res.OK() {
			t.Errorf("echo: %s %s (stderr: %s)", res.Code, res.Message, r.Stderr())
		}
		res, _ := reg.Execute(context.Background(), "peer.cat", json.RawMessage(`{"path":`+strconvQuote(secret)+`}`))
		return res
	}
	s := mcp.Spec{Command: bin, Env: map[string]string{peerEnv: "serve"}}
	if res := read(s); !res.OK() || !strings.Contains(string(res.Output), "PRIVATE KEY") {
		t.Fatalf("control: the unconfined server could not read the key: %s %s", res.Code, res.Message)
	}
	s.Confine = &tooling.Confinement{}
	res := read(s)
	if res.OK() || strings.Contains(string(res.Output)+res.Message, "PRIVATE KEY") {
		t.Fatalf("the confined server read the key: %s %s %s", res.Code, res.Message, res.Output)
	}
	if !strings.Contains(res.Message, "permission denied") {
		t.Errorf("the confined read failed otherwise than by a denial: %s", res.Message)
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestConfinedServerThatExitsAtOnce: a confined server that exits before
// it opens its stdin and stdout is a connect error every time, not a
// Connect that waits for ever for what was received already.
func TestConfinedServerThatExitsAtOnce(t *testing.T) {
	const n = 40 // at once: the exits and the opens race
	reg := tooling.NewRegistry()
	done := make(chan error, n)
	for range n {
		go func() {
			r, err := mcp.Connect(context.Background(), reg, "quick", mcp.Spec{Command: "/bin/false", Confine: &tooling.Confinement{}})
			if err == nil {
				r.Close()
			}
			done <- err
		}()
	}
	for range n {
		select {
		case err := <-done:
			if err == nil {
				t.Fatal("connected to /bin/false")
			}
			if strings.Contains(err.Error(), "confine: unavailable") && os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") != "1" {
				t.Skipf("not applicable: confinement cannot be applied on this machine: %v", err)
			}
			if !strings.Contains(err.Error(), "exit status 1") {
				t.Errorf("error %v, want it to give the exit status", err)
			}
		case <-t.Context().Done():
			t.Fatal("Connect never returned")
		}
	}
}

// TestConfinedServerMessages: a confined server that is not MCP says what
// it did, as an unconfined one does.
func TestConfinedServerMessages(t *testing.T) {
	for _, c := range []struct {
		server mcp.Spec
		want   string
	}{
		{mcp.Spec{Command: "toolexplorer-no-such-program"}, `cannot start "toolexplorer-no-such-program": there is no program of that name in $PATH`},
		{mcp.Spec{Command: "sh", Args: []string{"-c", "echo hello"}}, `not an MCP server: it wrote "hello" on its standard output`},
	} {
		c.server.Confine = &tooling.Confinement{}
		r, err := mcp.Connect(context.Background(), tooling.NewRegistry(), "jailed", c.server)
		if err == nil {
			r.Close()
			t.Fatalf("%v: connected", c.server)
		}
		if strings.Contains(err.Error(), "confine: unavailable") && os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") != "1" {
			t.Skipf("not applicable: confinement cannot be applied on this machine: %v", err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant it to say %q", c.server, err, c.want)
		}
	}
}
