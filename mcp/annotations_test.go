package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

// TestRemoteDestructiveHint: a remote tool that says its writes only add
// (destructiveHint false) is served on as non-destructive; one that says
// nothing is destructive, MCP's default.
func TestRemoteDestructiveHint(t *testing.T) {
	no := false
	up := sdk.NewServer(&sdk.Implementation{Name: "up", Version: "1"}, nil)
	ok := func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	}
	up.AddTool(&sdk.Tool{Name: "append", InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &no}}, ok)
	up.AddTool(&sdk.Tool{Name: "put", InputSchema: json.RawMessage(`{"type":"object"}`)}, ok)
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return up }, nil))
	defer hs.Close()

	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "up", mcp.Spec{URL: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, want := range map[string]bool{"up.append": false, "up.put": true} {
		tool, found := reg.Lookup(name)
		if !found {
			t.Fatalf("%s not added", name)
		}
		if a := export.Annotations(tool); a.ReadOnlyHint || a.DestructiveHint != want {
			t.Errorf("%s: readOnly %v, destructive %v; want a write, destructive %v", name, a.ReadOnlyHint, a.DestructiveHint, want)
		}
	}
}
