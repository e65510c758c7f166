package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestNoStructuredContent: a call of a tool with an output schema whose
// result has no structuredContent fails with tool_error (the server broke
// MCP's contract) saying so, not with what its text block is not.
func TestNoStructuredContent(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "s", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "sum", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema:  json.RawMessage(`{"type":"object"}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "3"}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "s", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "s.sum", nil)
	if res.Code != codes.ToolError || !strings.Contains(res.Message, "returned no structuredContent, which the tool's output schema asks for") || !strings.Contains(res.Message, `"3"`) {
		t.Fatalf("code %q, message %q; want tool_error saying the server returned no structuredContent", res.Code, res.Message)
	}
}
