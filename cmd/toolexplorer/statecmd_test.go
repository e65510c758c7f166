package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestStateCommandReachesRunningServe: toolexplorer state pauses a tool of
// a serve that runs: its MCP client hears tools/list_changed, no longer
// lists the tool and is refused with paused; the change is a state record
// of the ledger, with who made it; enabled takes it back. Without a serve,
// or for an unknown tool, the command fails saying why.
func TestStateCommandReachesRunningServe(t *testing.T) {
	stateDir, err := os.MkdirTemp("", "te-st") // short: a socket path is at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stateDir) })
	t.Setenv("XDG_STATE_HOME", stateDir)
	path := filepath.Join(stateDir, "ledger.jsonl")
	t.Setenv(ledgerEnv, path)
	t.Cleanup(func() {
		_ = tooling.Default().SetState(context.Background(), "demo.echo", tooling.StateEnabled, "", "")
	})

	if o := cli(t, "", "state", "demo.echo", "paused"); o.code != exitFailed || !strings.Contains(o.stderr, "no serve is running") {
		t.Fatalf("without a serve: %v", o)
	}
	// Read once serve has ended (cleanups run last to first) and its
	// ledger is closed, every record written.
	t.Cleanup(func() {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var states []string
		for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
			var r ledger.Record
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatal(err)
			}
			if r.Kind == ledger.KindState && r.Tool == "demo.echo" && r.Principal != nil {
				states = append(states, string(r.State)+" by "+r.Principal.Subject+" ("+r.Detail["reason"]+")")
			}
		}
		if got := strings.Join(states, ", "); got != "paused by alice (maintenance), enabled by alice ()" {
			t.Errorf("the ledger's state records: %q", got)
		}
	})
	changed := make(chan struct{}, 8)
	cs := serveStdio(t, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	}, "--as", "carol")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	listed := func() map[string]bool {
		t.Helper()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, tool := range res.Tools {
			out[tool.Name] = true
		}
		return out
	}
	heard := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no tools/list_changed after %s", what)
		}
	}
	if !listed()["demo.echo"] {
		t.Fatal("demo.echo is not served")
	}
	o := cli(t, "", "--as", "alice", "state", "demo.echo", "paused", "--reason", "maintenance")
	if o.code != exitOK || o.stdout != "demo.echo: paused\n" {
		t.Fatalf("state paused: %v", o)
	}
	heard("pausing")
	if listed()["demo.echo"] {
		t.Fatal("demo.echo is still listed once paused")
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "demo.echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "maintenance") {
		t.Fatalf("a call of the paused tool: %+v", res.Content)
	}
	if o := cli(t, "", "state", "demo.nope", "paused"); o.code != exitFailed || !strings.Contains(o.stderr, "the serve refused") {
		t.Fatalf("an unknown tool: %v", o)
	}
	if o := cli(t, "", "state", "demo.echo", "sleeping"); o.code != exitUsage {
		t.Fatalf("an unknown state: %v", o)
	}
	if o := cli(t, "", "--as", "alice", "state", "demo.echo", "enabled"); o.code != exitOK {
		t.Fatalf("state enabled: %v", o)
	}
	heard("enabling")
	if !listed()["demo.echo"] {
		t.Fatal("demo.echo is not listed once enabled")
	}
}
