package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestTaskRequiredTool: a tool the server runs only as a task (MCP's
// taskSupport "required", which it enforces by answering a plain
// tools/call with -32601) is refused naming the tool and task
// augmentation, directly and through a gateway, not with the bare
// JSON-RPC error.
func TestTaskRequiredTool(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "jobs", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "render", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "rendered"}}}, nil
		})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "tools/call" {
				return nil, &jsonrpc.Error{Code: -32601, Message: "Tool render requires task augmentation (taskSupport: 'required')"}
			}
			return next(ctx, method, req)
		}
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	defer ts.Close()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "jobs", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	const want = `the MCP server "jobs" runs its tool "render" only as a task (task augmentation, taskSupport "required"), which toolexplorer does not send`
	res, _ := reg.Execute(context.Background(), "jobs.render", nil)
	if res.Code != codes.ToolError || !strings.Contains(res.Message, want) {
		t.Fatalf("code %q, message %q; want tool_error saying %q", res.Code, res.Message, want)
	}

	gw := mcp.NewServer(reg, mcp.Options{})
	defer gw.Detach()
	cs := connect(t, gw, nil)
	out, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "jobs.render", Arguments: map[string]any{}})
	if err != nil || !out.IsError || !strings.Contains(out.Content[0].(*sdk.TextContent).Text, want) {
		t.Fatalf("through the gateway: %+v %v", out, err)
	}
}
