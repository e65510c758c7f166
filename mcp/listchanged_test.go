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
)

// TestUpstreamListChanged: when the server says its list of tools changed,
// the registry holds the tools it lists now, and WithToolsChanged hears of
// it each time.
func TestUpstreamListChanged(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "up", Version: "1"}, nil)
	text := func(s string) sdk.ToolHandler {
		return func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}, nil
		}
	}
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	srv.AddTool(&sdk.Tool{Name: "first", Annotations: ro, InputSchema: json.RawMessage(`{"type":"object"}`)}, text("one"))
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	reg := tooling.NewRegistry()
	changed := make(chan struct{}, 4)
	r, err := mcp.Connect(context.Background(), reg, "up", mcp.Spec{URL: ts.URL}, mcp.WithToolsChanged(func() { changed <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	srv.AddTool(&sdk.Tool{Name: "second", Annotations: ro, InputSchema: json.RawMessage(`{"type":"object"}`)}, text("two"))
	<-changed
	res, _ := reg.Execute(context.Background(), "up.second", nil)
	if !res.OK() || string(res.Output) != `"two"` {
		t.Fatalf("up.second after the server added it: %s %s %s", res.Code, res.Message, res.Output)
	}
	if got := r.Tools(); len(got) != 2 {
		t.Fatalf("Tools %v, want first and second", got)
	}

	srv.RemoveTools("first")
	<-changed
	if _, ok := reg.Lookup("up.first"); ok {
		t.Fatal("up.first is still registered after the server removed it")
	}
	if got := r.Tools(); len(got) != 1 || got[0].Name != "up.second" {
		t.Fatalf("Tools %v, want second alone", got)
	}
}

// TestExactNameKept: of two tools whose names spell the same in lower
// snake case, the one spelled so keeps its name, whichever comes first.
func TestExactNameKept(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "n", Version: "1"}, nil)
	for _, name := range []string{"get-Sum", "get_sum"} {
		srv.AddTool(&sdk.Tool{Name: name, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name}}}, nil
			})
	}
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "n", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for name, want := range map[string]string{"n.get_sum": `"get_sum"`, "n.get_sum_2": `"get-Sum"`} {
		if res, _ := reg.Execute(context.Background(), name, nil); !res.OK() || string(res.Output) != want {
			t.Errorf("%s: %s %s %s, want %s", name, res.Code, res.Message, res.Output, want)
		}
	}
}
