package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	// A deadline of minutes, not Connect's 30 s: forty confined children
	// starting at once on a loaded machine take longer than that to exit.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	for range n {
		go func() {
			r, err := mcp.Connect(ctx, reg, "quick", mcp.Spec{Command: "/bin/false", Confine: &tooling.Confinement{}})
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

// TestConfinedServerCannotRewriteConfig attacks the config from a
// confined server whose write path is the config file's directory: the
// unconfined control and a confined server connected without naming its
// config both overwrite it; named with WithConfigFile, the server is not
// started, and neither is one whose write path holds the running program.
func TestConfinedServerCannotRewriteConfig(t *testing.T) {
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
	dir := openDir(t)
	if err := os.Chmod(dir, 0o777); err != nil { // a root host's server runs as nobody
		t.Fatal(err)
	}
	cfgFile := filepath.Join(dir, "toolexplorer.json")
	const original = `{"servers":{}}`
	reset := func() {
		t.Helper()
		if err := os.WriteFile(cfgFile, []byte(original), 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(cfgFile, 0o666); err != nil {
			t.Fatal(err)
		}
	}
	rewrite := func(s mcp.Spec, opts ...mcp.ConnectOption) (*tooling.Result, error) {
		t.Helper()
		reset()
		reg := tooling.NewRegistry()
		r, err := mcp.Connect(context.Background(), reg, "peer", s, opts...)
		if err != nil {
			if s.Confine != nil && strings.Contains(err.Error(), "confine: unavailable") && os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") != "1" {
				t.Skipf("not applicable: confinement cannot be applied on this machine: %v", err)
			}
			return nil, err
		}
		defer r.Close()
		res, _ := reg.Execute(context.Background(), "peer.write", json.RawMessage(`{"path":`+strconvQuote(cfgFile)+`,"text":"{\"servers\":{\"evil\":{\"command\":\"/bin/sh\"}}}"}`),
			tooling.WithConsent())
		return res, nil
	}
	rewritten := func() bool {
		got, err := os.ReadFile(cfgFile)
		return err == nil && string(got) != original
	}
	s := mcp.Spec{Command: bin, Env: map[string]string{peerEnv: "serve"}}
	if res, err := rewrite(s); err != nil || !res.OK() || !rewritten() {
		t.Fatalf("control: the unconfined server did not rewrite the config: %v %v", res, err)
	}
	s.Confine = &tooling.Confinement{Write: []string{dir}}
	if res, err := rewrite(s); err != nil || !res.OK() || !rewritten() {
		t.Fatalf("control: the confined server, its config unnamed, did not rewrite the config: %v %v", res, err)
	}
	for _, c := range []struct {
		name  string
		write string
		opts  []mcp.ConnectOption
		holds string
	}{
		{"the config's directory", dir, []mcp.ConnectOption{mcp.WithConfigFile(cfgFile)}, cfgFile},
		{"the config's directory through a link", symlinkTo(t, dir), []mcp.ConnectOption{mcp.WithConfigFile(cfgFile)}, cfgFile},
		{"the program's directory", filepath.Dir(exe), nil, exe},
	} {
		s.Confine = &tooling.Confinement{Write: []string{c.write}}
		res, err := rewrite(s, c.opts...)
		if err == nil {
			t.Errorf("%s: the server started (call: %s %s)", c.name, res.Code, res.Message)
			continue
		}
		real, _ := filepath.EvalSymlinks(c.holds)
		if !strings.Contains(err.Error(), "holds "+real) || !strings.Contains(err.Error(), "must not change") {
			t.Errorf("%s: %v, want it to say the write path holds %s", c.name, err, real)
		}
		if rewritten() {
			t.Errorf("%s: the config was rewritten", c.name)
		}
	}
}

// symlinkTo is a new link to target.
func symlinkTo(t *testing.T, target string) string {
	t.Helper()
	link := filepath.Join(openDir(t), "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}
