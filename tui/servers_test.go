package tui

import (
	"context"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// fakeServers are two servers, one connected and one that failed; a
// restart waits for release and then connects the server, adding a tool.
type fakeServers struct {
	reg      *tooling.Registry
	mu       sync.Mutex
	list     []ServerState
	restarts []string
	release  chan struct{}
	stopped  chan string
}

func newFakeServers(reg *tooling.Registry) *fakeServers {
	reg.Register(tooling.Tool{Name: "good.echo", Source: "mcp:good", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }})
	return &fakeServers{reg: reg, release: make(chan struct{}), stopped: make(chan string, 1), list: []ServerState{
		{Name: "good", Target: "node good.js", Status: ServerConnected, Tools: []string{"good.echo"}, Confinement: "read /usr; no network",
			LeftOut: []string{`"find": input schema does not compile: pattern at /properties/q: not a valid ECMAScript regular expression`}},
		{Name: "broken", Target: "/usr/bin/false", Status: ServerFailed, Problem: "not an MCP server, or it failed to start: EOF", Stderr: "line one\nbroken: cannot start"},
	}}
}

func (f *fakeServers) List() []ServerState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ServerState(nil), f.list...)
}

func (f *fakeServers) Restart(ctx context.Context, name string) error {
	f.mu.Lock()
	f.restarts = append(f.restarts, name)
	f.mu.Unlock()
	<-f.release
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.list {
		if f.list[i].Name == name {
			f.list[i] = ServerState{Name: name, Target: f.list[i].Target, Status: ServerConnected, Tools: []string{name + ".ping"}}
		}
	}
	f.reg.Register(tooling.Tool{Name: name + ".ping", Source: "mcp:" + name, Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "pong", nil }})
	return nil
}

func (f *fakeServers) Stopped() <-chan string { return f.stopped }

// TestServersScreen: S lists the servers with their state; the failed
// one's problem and stderr show under the cursor; r restarts it, shown as
// reconnecting until it is back, and its tools join the list.
func TestServersScreen(t *testing.T) {
	reg := tooling.NewRegistry()
	f := newFakeServers(reg)
	h := newHarnessWith(t, reg, Options{Servers: f}, 100, 30)
	t.Cleanup(func() { close(f.stopped) }) // before the harness waits for its commands
	h.mustContain("good.echo", "remote")
	h.press("S")
	h.mustContain("MCP servers · 2 servers", "good", "connected", "broken", "failed", "confinement: read /usr; no network", "tools: good.echo",
		`left out: "find": input schema does not compile: pattern at /properties/q`)
	h.press("j")
	h.mustContain("problem: not an MCP server, or it failed to start: EOF", "broken: cannot start", "r restarts it")
	h.press("r")
	h.mustContain("reconnecting")
	close(f.release)
	h.waitFor("the restart", func(m tea.Msg) bool { _, ok := m.(serverRestartedMsg); return ok })
	h.mustNotContain("reconnecting", "failed")
	h.mustContain("server broken restarted")
	if strings.Join(f.restarts, ",") != "broken" {
		t.Errorf("restarts %v", f.restarts)
	}
	h.press("esc")
	h.mustContain("broken.ping")
}

// TestServerStops: a server that stops on its own is said on the status
// line, whatever the screen.
func TestServerStops(t *testing.T) {
	reg := tooling.NewRegistry()
	f := newFakeServers(reg)
	h := newHarnessWith(t, reg, Options{Servers: f}, 100, 30)
	t.Cleanup(func() { close(f.stopped) }) // before the harness waits for its commands
	f.mu.Lock()
	f.list[0].Status, f.list[0].Problem = ServerStopped, `the MCP server "good" has stopped`
	f.mu.Unlock()
	f.stopped <- "good"
	h.waitFor("the stop", func(m tea.Msg) bool { _, ok := m.(serverStoppedMsg); return ok })
	h.mustContain("server good has stopped: its tools are unavailable")
	h.press("S")
	h.mustContain("stopped", `problem: the MCP server "good" has stopped`)
}

// TestNoServers: without servers S says how to add one.
func TestNoServers(t *testing.T) {
	h := newHarness(t, tooling.NewRegistry(), 100, 30)
	h.press("S")
	h.mustContain("no MCP servers: add them with --server")
}
