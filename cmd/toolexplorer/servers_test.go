package main

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// serveEnv makes the test binary "toolexplorer serve" on stdio, a stdio
// MCP server for the tests of --server.
const serveEnv = "TOOLEXPLORER_TEST_SERVE"

func init() {
	if os.Getenv(serveEnv) == "1" {
		os.Exit(run(context.Background(), []string{"serve"}, os.Stdin, os.Stdout, os.Stderr))
	}
}

// ourServer is the --server flag of this program serving its demo tools.
func ourServer(t testing.TB, name string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A server gets only the variables MCP hosts pass on, and the flag
	// gives no env: env(1) sets the one that makes the child a server.
	envProg, err := exec.LookPath("env")
	if err != nil {
		t.Skip("no env program")
	}
	return "--server=" + name + "=" + envProg + " " + serveEnv + "=1 " + exe
}

func TestServerFlagAddsRemoteTools(t *testing.T) {
	srv := ourServer(t, "ours")
	o := cli(t, "", srv, "list")
	if o.code != exitOK || !strings.Contains(o.stdout, "ours.demo_echo") || !strings.Contains(o.stdout, "demo.echo ") {
		t.Fatalf("list with --server: want the local and the remote tools\n%s", o)
	}
	o = cli(t, "", "run", srv, "ours.demo_echo", "--json", "--args", `{"text":"round trip"}`)
	if o.code != exitOK || !strings.Contains(o.stdout, "round trip") {
		t.Fatalf("run of a remote tool:\n%s", o)
	}
	o = cli(t, "", "run", srv, "ours.demo_echo", "--args", `{"text":7}`)
	if o.code == exitOK || !strings.Contains(o.stdout+o.stderr, "validation_error") {
		t.Fatalf("a remote call with invalid arguments, validated here:\n%s", o)
	}
	o = cli(t, "", "run", srv, "ours.nope")
	if o.code != exitRefused || !strings.Contains(o.stdout, `hint: the MCP server "ours" has no tool of that name; its tools: ours.demo_`) {
		t.Fatalf("run of a tool the server does not have:\n%s", o)
	}
	o = cli(t, "", srv, "describe", "ours.demo_echo")
	if o.code != exitOK || !strings.Contains(o.stdout, `remote: tool "demo.echo" of the MCP server "ours"`) {
		t.Fatalf("describe of a remote tool:\n%s", o)
	}
	o = cli(t, "", srv, "describe", "ours.demo_echo", "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, `"remote": {`) || !strings.Contains(o.stdout, `"server": "ours"`) {
		t.Fatalf("describe --json of a remote tool:\n%s", o)
	}
	if o = cli(t, "", "describe", "demo.echo"); strings.Contains(o.stdout, "remote:") {
		t.Fatalf("a local tool described as remote:\n%s", o)
	}
	if _, ok := tooling.Default().Lookup("ours.demo_echo"); ok {
		t.Fatal("the remote tools are still in the registry after the command")
	}
}

func TestServerFlagFailures(t *testing.T) {
	o := cli(t, "", "--server", "bad=/nonexistent/server", "list")
	if o.code != exitOK || !strings.Contains(o.stderr, `warning: server "bad": `) || !strings.Contains(o.stderr, "no such file") || !strings.Contains(o.stdout, "demo.echo") {
		t.Fatalf("a server that cannot start is a warning, the local tools still listed:\n%s", o)
	}
	// A tool of a server that failed says why the server did.
	o = cli(t, "", "--server", "bad=/nonexistent/server", "run", "bad.tool")
	if o.code != exitRefused || !strings.Contains(o.stdout, `hint: the MCP server "bad", whose tools are bad.*, could not be connected: cannot start "/nonexistent/server": no such file or directory`) {
		t.Errorf("run of a tool of a server that failed:\n%s", o)
	}
	o = cli(t, "", "--server", "bad=/nonexistent/server", "describe", "bad.tool")
	if o.code != exitRefused || !strings.Contains(o.stderr, `describe bad.tool: not_found: no tool named "bad.tool"; the MCP server "bad", whose tools are bad.*, could not be connected`) {
		t.Errorf("describe of a tool of a server that failed:\n%s", o)
	}
	// Two servers whose tools would have the same names: the second is not connected.
	srv := ourServer(t, "my-srv")
	o = cli(t, "", srv, "--server", "my_srv="+strings.TrimPrefix(srv, "--server=my-srv="), "list")
	if o.code != exitOK || !strings.Contains(o.stderr, `warning: server "my_srv": its tools would be named my_srv.*, as those of the server "my-srv" are: rename one of the two`) ||
		strings.Count(o.stderr, "warning") != 1 || !strings.Contains(o.stdout, "my_srv.demo_echo") {
		t.Errorf("two servers of one group:\n%s", o)
	}
	for _, bad := range []string{"noequals", "=cmd", "name=", "name=  "} {
		o := cli(t, "", "--server", bad, "list")
		if o.code != exitUsage || !strings.Contains(o.stderr, "want NAME=COMMAND or NAME=URL") {
			t.Errorf("--server %q:\n%s", bad, o)
		}
	}
}

func TestParseServerFlag(t *testing.T) {
	s, err := parseServerFlag("everything=npx -y  @modelcontextprotocol/server-everything")
	if err != nil || s.name != "everything" || s.server.Command != "npx" || strings.Join(s.server.Args, "|") != "-y|@modelcontextprotocol/server-everything" || s.server.URL != "" {
		t.Fatalf("command: %+v %v", s, err)
	}
	s, err = parseServerFlag("remote=https://example.com/mcp")
	if err != nil || s.name != "remote" || s.server.URL != "https://example.com/mcp" || s.server.Command != "" {
		t.Fatalf("url: %+v %v", s, err)
	}
}

func TestConfigServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, "mcp.json", `{"mcpServers": {"ours": {"command": "`+exe+`", "env": {"`+serveEnv+`": "1"}}},
  "tools": {"ours.demo_echo": {"disabled": true}}}`)
	o := cli(t, "", "--config", cfg, "list")
	if o.code != exitOK || !strings.Contains(o.stdout, "ours.demo_kv_get") || strings.Contains(o.stderr, "warning") {
		t.Fatalf("list with an mcpServers config:\n%s", o)
	}
	// The config's governance applies to the remote tools: this one is disabled.
	o = cli(t, "", "--config", cfg, "run", "ours.demo_echo", "--args", `{"text":"x"}`)
	if o.code == exitOK || !strings.Contains(o.stdout+o.stderr, "disabled") {
		t.Fatalf("a remote tool disabled by config:\n%s", o)
	}
}

func TestShellWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`npx -y  @scope/server`, []string{"npx", "-y", "@scope/server"}},
		{`srv "a b" 'c d' e\ f`, []string{"srv", "a b", "c d", "e f"}},
		{`srv 'it"s' "it's" "a\"b" "\$x \\ \q"`, []string{"srv", `it"s`, "it's", `a"b`, `$x \ \q`}},
		{`srv '' "" x''y`, []string{"srv", "", "", "xy"}},
		{`srv 'a\b' "$HOME" ~ *`, []string{"srv", `a\b`, "$HOME", "~", "*"}},
		{"srv a\\\nb \\\n c", []string{"srv", "ab", "c"}},
		{`srv "a"'b'c`, []string{"srv", "abc"}},
		{"  \t ", nil},
	} {
		got, err := shellWords(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("shellWords(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for in, want := range map[string]string{
		`srv 'a b`:  "single quote at byte 5 is not closed",
		`srv "a b`:  "double quote at byte 5 is not closed",
		`srv "a\"`:  "double quote at byte 5 is not closed",
		`srv a\`:    "lone backslash",
		`srv "a" '`: "single quote at byte 9 is not closed",
	} {
		if _, err := shellWords(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shellWords(%q): %v, want %q", in, err, want)
		}
	}
	// On the command line: a quoted argument reaches the server whole.
	s, err := parseServerFlag(`fs=my-server --root "/tmp/a dir" --name 'x y'`)
	if err != nil || s.server.Command != "my-server" || !slices.Equal(s.server.Args, []string{"--root", "/tmp/a dir", "--name", "x y"}) {
		t.Errorf("quoted --server: %+v %v", s, err)
	}
	for _, bad := range []string{`fs=srv "open`, `fs=""`} {
		if _, err := parseServerFlag(bad); err == nil || !strings.Contains(err.Error(), `server "fs"`) {
			t.Errorf("--server %s: %v", bad, err)
		}
	}
}

// TestServersThatDoNotAnswer: the servers are connected at once; when they
// take long, the command says which ones it waits for, and Ctrl-C ends the
// wait and the command, saying so.
func TestServersThatDoNotAnswer(t *testing.T) {
	old := connectNotice
	connectNotice = 0
	t.Cleanup(func() { connectNotice = old })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &watchWriter{want: "waiting for", seen: make(chan struct{})}
	var stdout strings.Builder
	code := make(chan int, 1)
	mute := "sh -c 'cat >/dev/null'" // reads its input, never answers
	go func() {
		code <- run(ctx, []string{"--server", "a=" + mute, "--server", "b=" + mute, "list"}, strings.NewReader(""), &stdout, stderr)
	}()
	<-stderr.seen
	cancel()
	if c := <-code; c != exitFailed {
		t.Errorf("exit %d, want %d", c, exitFailed)
	}
	out := stderr.String()
	for _, want := range []string{
		`toolexplorer: waiting for the MCP servers "a", "b" to answer (at most 30s; Ctrl-C stops waiting)`,
		`warning: server "a": canceled while waiting for its answer to "initialize"`,
		`warning: server "b": canceled while waiting for its answer to "initialize"`,
		"toolexplorer: interrupted while connecting to the MCP servers",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr does not say %q:\n%s", want, out)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("the command went on after Ctrl-C:\n%s", stdout.String())
	}
}

// watchWriter is a writer safe for concurrent use that closes seen once
// what was written holds want.
type watchWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
