//go:build linux

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tui"
)

// TestConsoleServers: the console's view of the servers: one connected,
// one that failed with its reason; the connected one killed is reported
// stopped, its tools unavailable, and a restart brings it back.
func TestConsoleServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := &app{ctx: context.Background(), stderr: io.Discard, getenv: os.Getenv, reg: tooling.NewRegistry(), cfg: config.Default()}
	// good is not started again on its own (max_restarts 0): the console's
	// restart does.
	a.flagServers = []namedServer{{"good", config.Server{Command: exe, Env: map[string]string{serveEnv: "1"}, MaxRestarts: -1}}, {"broken", config.Server{Command: "/bin/false"}}}
	a.connectServers(a.cfg)
	defer a.closeServers()
	cs := newConsoleServers(a)
	list := cs.List()
	if len(list) != 2 || list[0].Name != "broken" || list[1].Name != "good" {
		t.Fatalf("servers %+v", list)
	}
	if b := list[0]; b.Status != tui.ServerFailed || !strings.Contains(b.Problem, "not an MCP server") || b.Target != "/bin/false" || b.Confinement != "" {
		t.Errorf("broken: %+v", b)
	}
	if g := list[1]; g.Status != tui.ServerConnected || g.Problem != "" || len(g.Tools) == 0 {
		t.Errorf("good: %+v", g)
	}

	pids := serversOf(os.Getpid(), exe)
	if len(pids) != 1 {
		t.Fatalf("server processes %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if name := <-cs.Stopped(); name != "good" {
		t.Fatalf("stopped: %q", name)
	}
	if g := cs.List()[1]; g.Status != tui.ServerStopped || !strings.Contains(g.Problem, `the MCP server "good" has stopped`) {
		t.Errorf("good after the kill: %+v", g)
	}
	// Its tools are unavailable, then gone.
	res, _ := a.reg.Execute(context.Background(), "good.demo_echo", []byte(`{"text":"x"}`))
	if res.Code != codes.NotFound && (res.Code != codes.Unavailable || !strings.Contains(res.Message, "has stopped")) {
		t.Errorf("a call after the kill: %s %s", res.Code, res.Message)
	}

	if err := cs.Restart(context.Background(), "good"); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if g := cs.List()[1]; g.Status != tui.ServerConnected {
		t.Errorf("good after the restart: %+v", g)
	}
	if res, _ := a.reg.Execute(context.Background(), "good.demo_echo", []byte(`{"text":"back"}`)); !res.OK() || !strings.Contains(string(res.Output), "back") {
		t.Errorf("a call after the restart: %s %s", res.Code, res.Message)
	}
	if err := cs.Restart(context.Background(), "broken"); err == nil || strings.HasPrefix(err.Error(), "mcp:") || !strings.HasPrefix(err.Error(), "it exited (exit status 1) before answering") || cs.List()[0].Status != tui.ServerFailed {
		t.Errorf("restart of broken: %v, %+v", err, cs.List()[0])
	}
}

// TestConfinedServerDescribed: a confined server's tools work, and
// describe and the console's servers say what the server may reach.
// TestHTTPServerConfinementNotApplicable: the console does not say that a
// server it reaches over HTTP runs with its own rights: it does not run it.
func TestHTTPServerConfinementNotApplicable(t *testing.T) {
	a := &app{ctx: context.Background(), stderr: io.Discard, getenv: os.Getenv, reg: tooling.NewRegistry(), cfg: config.Default()}
	a.flagServers = []namedServer{{"web", config.Server{URL: "http://127.0.0.1:1/mcp"}}}
	a.connectServers(a.cfg)
	defer a.closeServers()
	list := newConsoleServers(a).List()
	if len(list) != 1 || list[0].Status != tui.ServerFailed || !strings.Contains(list[0].Confinement, "over HTTP") {
		t.Fatalf("servers %+v", list)
	}
}

func TestConfinedServerDescribed(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil { // the confined server runs as nobody under root
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "toolexplorer")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	command, _ := json.Marshal(bin)
	cfg := writeFile(t, "c.json", `{"servers": {"jailed": {"command": `+string(command)+`, "env": {"`+serveEnv+`": "1"},
  "confine": {"read": ["/usr/share"], "ports": [443]}}}}`)
	o := cli(t, "", "--config", cfg, "describe", "jailed.demo_echo")
	if strings.Contains(o.stderr, "confine: unavailable") && os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") != "1" {
		t.Skipf("not applicable: confinement cannot be applied on this machine: %s", o.stderr)
	}
	want := "server confinement: confined (landlock, seccomp, limits); reads: /usr/share; writes: none; TCP ports: 443; other programs: none"
	if o.code != exitOK || !strings.Contains(o.stdout, want) {
		t.Fatalf("describe of a confined server's tool: want %q\n%s", want, o)
	}
	o = cli(t, "", "--config", cfg, "run", "jailed.demo_echo", "--args", `{"text":"from the jail"}`)
	if o.code != exitOK || !strings.Contains(o.stdout, "from the jail") {
		t.Errorf("a call of a confined server's tool:\n%s", o)
	}
}

// badSchemaServer is a stdio MCP server written in sh that lists a tool
// whose input schema does not compile beside one that does.
const badSchemaServer = `while read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
  *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
  *'"method":"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"find","inputSchema":{"type":"object","properties":{"q":{"type":"string","pattern":"(["}}}},{"name":"ok","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
  *'"id":'*) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}\n' "$id" ;;
  esac
done`

// TestServerWithToolsLeftOut: a tool whose schema does not compile is a
// warning of the command and is shown with its server in the console; the
// server's other tools are there.
func TestServerWithToolsLeftOut(t *testing.T) {
	a := &app{ctx: context.Background(), stderr: io.Discard, getenv: os.Getenv, reg: tooling.NewRegistry(), cfg: config.Default()}
	a.flagServers = []namedServer{{"shell", config.Server{Command: "sh", Args: []string{"-c", badSchemaServer}}}}
	a.connectServers(a.cfg)
	defer a.closeServers()
	list := newConsoleServers(a).List()
	if len(list) != 1 || list[0].Status != tui.ServerConnected || strings.Join(list[0].Tools, ",") != "shell.ok" {
		t.Fatalf("servers %+v", list)
	}
	if l := list[0].LeftOut; len(l) != 1 || !strings.HasPrefix(l[0], `"find": input schema does not compile: pattern at /properties/q`) {
		t.Errorf("left out: %q", l)
	}
	o := cli(t, "", "--server", "shell=sh -c '"+strings.ReplaceAll(badSchemaServer, "'", `'\''`)+"'", "list")
	if o.code != exitOK || !strings.Contains(o.stderr, `toolexplorer: warning: server "shell": tool "find" left out: input schema does not compile`) || !strings.Contains(o.stdout, "shell.ok") {
		t.Errorf("list with a tool left out:\n%s", o)
	}
	o = cli(t, "", "--server", "shell=sh -c '"+strings.ReplaceAll(badSchemaServer, "'", `'\''`)+"'", "run", "shell.find")
	if o.code != exitRefused || !strings.Contains(o.stdout, `hint: the MCP server "shell" lists "find", but it was left out: input schema does not compile`) {
		t.Errorf("run of a tool left out:\n%s", o)
	}
}

// TestCloseDuringRestart: closing the servers while one restarts cancels
// the restart and stops the server it started, which would otherwise
// outlive the console.
func TestCloseDuringRestart(t *testing.T) {
	dir := t.TempDir()
	// The first start fails; the next one writes its pid and never answers.
	script := `if [ -e started ]; then echo $$ > pid; exec sleep 300; fi; touch started; exit 1`
	a := &app{ctx: context.Background(), stderr: io.Discard, getenv: os.Getenv, reg: tooling.NewRegistry(), cfg: config.Default()}
	a.flagServers = []namedServer{{"late", config.Server{Command: "sh", Args: []string{"-c", "cd " + dir + " && " + script}}}}
	a.connectServers(a.cfg)
	cs := newConsoleServers(a)
	restarted := make(chan error, 1)
	go func() { restarted <- cs.Restart(context.Background(), "late") }()
	var pid int
	for pid == 0 {
		b, _ := os.ReadFile(filepath.Join(dir, "pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		select {
		case <-t.Context().Done():
			t.Fatal("the restarted server never started")
		case <-time.After(time.Millisecond):
		}
	}
	a.closeServers()
	if err := syscall.Kill(pid, 0); err == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the restarted server (pid %d) runs on after the servers were closed", pid)
	}
	if err := <-restarted; err == nil {
		t.Error("the restart succeeded")
	}
	if err := cs.Restart(context.Background(), "late"); err == nil || !strings.Contains(err.Error(), "closing") {
		t.Errorf("a restart after the close: %v", err)
	}
}

// answeringAsker is a console's asker that answers every form with
// content, noting the messages.
type answeringAsker struct {
	content map[string]any
	asked   []string
}

func (f *answeringAsker) Ask(_ context.Context, server, message string, schema json.RawMessage) (map[string]any, bool, error) {
	f.asked = append(f.asked, server+": "+message+" "+string(schema))
	return f.content, true, nil
}

// TestConsoleAsksForInputs: a server whose config asks for a VS Code
// input that the environment does not give is not connected, and says so;
// restarted in the console, it asks the person for the input (its
// description shown), and connects with the value entered.
func TestConsoleAsksForInputs(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	a := &app{ctx: context.Background(), stderr: io.Discard, getenv: os.Getenv, reg: tooling.NewRegistry(), cfg: config.Default()}
	a.cfg.Inputs = map[string]config.Input{"greeting": {Description: "The word the server greets with", Password: true}}
	a.flagServers = []namedServer{{"vs", config.Server{Command: exe, Env: map[string]string{serveEnv: "1", "GREETING": "${input:greeting}"}, MaxRestarts: -1}}}
	a.connectServers(a.cfg)
	defer a.closeServers()
	cs := newConsoleServers(a)
	if st := cs.List()[0]; st.Status != tui.ServerFailed || !strings.Contains(st.Problem, "${input:greeting} is not defined: set $TOOLEXPLORER_INPUT_GREETING") ||
		!strings.Contains(st.Problem, "restart it here to enter them") {
		t.Fatalf("before: %+v", st)
	}
	// Without a console, the restart cannot ask.
	if err := cs.Restart(context.Background(), "vs"); err == nil || !strings.Contains(err.Error(), "${input:greeting}") {
		t.Fatalf("restart without a console: %v", err)
	}
	f := &answeringAsker{content: map[string]any{"greeting": "hello"}}
	var ask asker = f
	a.asker.Store(&ask)
	defer a.asker.Store(nil)
	if err := cs.Restart(context.Background(), "vs"); err != nil {
		t.Fatalf("restart in the console: %v", err)
	}
	if len(f.asked) != 1 || !strings.Contains(f.asked[0], "The word the server greets with") || !strings.HasPrefix(f.asked[0], "vs: ") ||
		!strings.Contains(f.asked[0], `"writeOnly":true`) {
		t.Errorf("asked %q", f.asked)
	}
	if st := cs.List()[0]; st.Status != tui.ServerConnected {
		t.Fatalf("after: %+v", st)
	}
	if got := a.servers[0].spec.Env["GREETING"]; got != "hello" {
		t.Errorf("the server's GREETING is %q, want the input entered", got)
	}
}
