package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeReloadsToolStatesOnHangup: serve runs as its own process; the
// config file is changed to pause demo.echo and serve gets SIGHUP: the
// client hears tools/list_changed, no longer lists demo.echo, and a call of
// it is refused with paused; the state taken out again, demo.echo is back.
func TestServeReloadsToolStatesOnHangup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "toolexplorer")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cfgPath := filepath.Join(dir, "config.json")
	write := func(s string) {
		if err := os.WriteFile(cfgPath, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"whitelist": ["demo.echo", "demo.kv_get"]}`)
	cmd := exec.Command(bin, "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+dir, configEnv+"=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	changed := make(chan struct{}, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	}).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
	if l := listed(); !l["demo.echo"] {
		t.Fatalf("listed %v, want demo.echo", l)
	}
	hangup := func() {
		t.Helper()
		if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changed:
		case <-ctx.Done():
			t.Fatalf("no tools/list_changed after SIGHUP; serve said:\n%s", stderr.String())
		}
	}
	write(`{"whitelist": ["demo.echo", "demo.kv_get"], "tools": {"demo.echo": {"state": "paused", "reason": "maintenance"}}}`)
	hangup()
	if l := listed(); l["demo.echo"] || !l["demo.kv_get"] {
		t.Fatalf("listed %v after demo.echo was paused", l)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "demo.echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "maintenance") {
		t.Fatalf("call of the paused tool: %+v", res.Content)
	}
	write(`{"whitelist": ["demo.echo", "demo.kv_get"]}`)
	hangup()
	if l := listed(); !l["demo.echo"] {
		t.Fatalf("listed %v once demo.echo was enabled again", l)
	}
}
