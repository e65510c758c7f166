//go:build linux

package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamPIDs are the processes this test process started that serve as
// MCP servers (serveEnv in their environment).
func upstreamPIDs(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), serveEnv+"=1") && fields[0] != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// listNames lists the gateway's tools.
func listNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// TestUpstreamComesBack kills the server behind the gateway mid-session:
// the gateway says so, drops its tools from the list and tells the
// client, starts it again, and lists and calls its tools once it is back.
func TestUpstreamComesBack(t *testing.T) {
	changed := make(chan struct{}, 16)
	var stderr syncBuffer
	cs := serveStdioErr(t, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}, &stderr, ourServer(t, "ours"))
	if res, r := callTool(t, cs, "ours.demo_echo", `{"text":"before"}`); res.IsError {
		t.Fatalf("before: %s %s", r.Code, r.Message)
	}
	pids := upstreamPIDs(t)
	if len(pids) != 1 {
		t.Fatalf("upstream processes %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Each change of the list is told; the list is checked after each until
	// the server is back with another process. The guard is generous.
	guard := time.NewTimer(2 * time.Minute)
	defer guard.Stop()
	for back := false; !back; {
		select {
		case <-changed:
		case <-guard.C:
			t.Fatalf("the server never came back; stderr:\n%s", stderr.String())
		}
		now := upstreamPIDs(t)
		back = slices.Contains(listNames(t, cs), "ours.demo_echo") && len(now) == 1 && now[0] != pids[0]
	}
	if res, r := callTool(t, cs, "ours.demo_echo", `{"text":"after"}`); res.IsError || !strings.Contains(string(r.Output), "after") {
		t.Fatalf("after: %s %s %s", r.Code, r.Message, r.Output)
	}
	for _, want := range []string{`server "ours" stopped`, "attempt 1 of 5", `server "ours" is back`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestUpstreamGivenUpThenHangup: a server that cannot be started again is
// given up on after its max_restarts, loudly, its tools gone from the
// list; a SIGHUP starts it again once it can be, and serve goes on.
func TestUpstreamGivenUpThenHangup(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(t.TempDir(), "broken")
	cfg := writeFile(t, "c.json", `{"servers": {"ours": {"command": "/bin/sh", "max_restarts": 2,
  "args": ["-c", "test -e '`+broken+`' && { echo broken >&2; exit 3; }; exec env `+serveEnv+`=1 '`+exe+`'"]}}}`)
	changed := make(chan struct{}, 16)
	var stderr syncBuffer
	cs := serveStdioErr(t, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}}, &stderr, "--config", cfg)
	if !slices.Contains(listNames(t, cs), "ours.demo_echo") {
		t.Fatal("ours.demo_echo is not listed")
	}
	if err := os.WriteFile(broken, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	pids := upstreamPIDs(t)
	if len(pids) != 1 {
		t.Fatalf("upstream processes %v, want one", pids)
	}
	if err := syscall.Kill(pids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	guard := time.NewTimer(2 * time.Minute)
	defer guard.Stop()
	// The last attempt changes no list: stderr is read until it says so.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(stderr.String(), `server "ours" keeps stopping`) {
		select {
		case <-tick.C:
		case <-guard.C:
			t.Fatalf("never given up on; stderr:\n%s", stderr.String())
		}
	}
	if slices.Contains(listNames(t, cs), "ours.demo_echo") {
		t.Fatal("the tools of a server given up on are listed")
	}
	if res, r := callTool(t, cs, "ours.demo_echo", `{"text":"x"}`); !res.IsError || !strings.Contains(r.Message+r.Hint, "gave up after 2 restarts") {
		t.Fatalf("a call of a tool of a server given up on: %s %s (hint %s)", r.Code, r.Message, r.Hint)
	}

	if err := os.Remove(broken); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for !slices.Contains(listNames(t, cs), "ours.demo_echo") {
		select {
		case <-changed:
		case <-guard.C:
			t.Fatalf("SIGHUP did not bring the server back; stderr:\n%s", stderr.String())
		}
	}
	if res, r := callTool(t, cs, "ours.demo_echo", `{"text":"again"}`); res.IsError {
		t.Fatalf("after SIGHUP: %s %s", r.Code, r.Message)
	}
}

// TestGatewayServesItsServers: serve with servers serves theirs, not the
// program's own tools, which cannot be called through it either; --expose
// and the config's serve.tools choose instead.
func TestGatewayServesItsServers(t *testing.T) {
	cs := serveStdio(t, nil, ourServer(t, "ours"))
	names := listNames(t, cs)
	if !slices.Contains(names, "ours.demo_echo") || slices.Contains(names, "demo.echo") {
		t.Fatalf("a gateway lists %v, want ours.* and not demo.*", names)
	}
	if res, r := callTool(t, cs, "demo.echo", `{"text":"x"}`); !res.IsError || r.Code != "not_found" {
		t.Fatalf("a call of a tool not served: %s %s", r.Code, r.Message)
	}
	cs = serveStdio(t, nil, ourServer(t, "ours"), "--expose", "demo.echo,ours.demo_echo")
	if names := listNames(t, cs); !slices.Equal(names, []string{"demo.echo", "ours.demo_echo"}) {
		t.Fatalf("--expose demo.echo,ours.demo_echo lists %v", names)
	}
	cfg := writeFile(t, "c.json", `{"serve": {"tools": ["demo.*"]}}`)
	cs = serveStdio(t, nil, ourServer(t, "ours"), "--config", cfg)
	for _, n := range listNames(t, cs) {
		if !strings.HasPrefix(n, "demo.") {
			t.Fatalf("serve.tools [demo.*] lists %s", n)
		}
	}
}
