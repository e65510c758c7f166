package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestPausedToolListChanged: pausing a served tool sends the clients
// notifications/tools/list_changed, drops it from tools/list and refuses
// its calls with paused; deprecating one changes its description.
func TestPausedToolListChanged(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.a", Description: "A.", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: okRun},
		tooling.Tool{Name: "t.b", Description: "B.", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: okRun})
	changed := make(chan struct{}, 16)
	cs := connect(t, mcp.NewServer(r, mcp.Options{}), &sdk.ClientOptions{
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) { changed <- struct{}{} },
	})
	listed := func() map[string]string {
		t.Helper()
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, tool := range res.Tools {
			out[tool.Name] = tool.Description
		}
		return out
	}
	if l := listed(); len(l) != 2 {
		t.Fatalf("listed %v, want t.a and t.b", l)
	}
	if err := r.SetState(t.Context(), "t.a", tooling.StatePaused, "upgrading", ""); err != nil {
		t.Fatal(err)
	}
	<-changed
	if l := listed(); len(l) != 1 || l["t.b"] == "" {
		t.Fatalf("listed %v after t.a was paused, want t.b alone", l)
	}
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.a"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "paused") {
		t.Fatalf("call of the paused tool: %+v, want a paused refusal", res)
	}
	if err := r.SetState(t.Context(), "t.b", tooling.StateDeprecated, "", "t.a"); err != nil {
		t.Fatal(err)
	}
	<-changed
	if d := listed()["t.b"]; !strings.HasPrefix(d, "Deprecated: use t.a instead.") {
		t.Fatalf("description of the deprecated tool %q", d)
	}
	if err := r.SetState(t.Context(), "t.a", tooling.StateEnabled, "", ""); err != nil {
		t.Fatal(err)
	}
	<-changed
	if l := listed(); len(l) != 2 {
		t.Fatalf("listed %v once t.a was enabled again, want both", l)
	}
}

func okRun(context.Context, tooling.Call) (any, error) { return "ok", nil }
