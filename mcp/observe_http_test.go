package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestObserverSeesHTTPTraffic: the messages exchanged with an HTTP server
// reach the observer as a stdio server's do, whether the server answers a
// request with JSON or with an event stream, each response named by the
// method of the request it answers.
func TestObserverSeesHTTPTraffic(t *testing.T) {
	for _, jsonResponse := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", jsonResponse), func(t *testing.T) {
			up := sdk.NewServer(&sdk.Implementation{Name: "up", Version: "1"}, nil)
			up.AddTool(&sdk.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object"}`)},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hi"}}}, nil
				})
			hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return up },
				&sdk.StreamableHTTPOptions{JSONResponse: jsonResponse}))
			defer hs.Close()

			var (
				mu   sync.Mutex
				seen = map[string]bool{}
				bad  []mcp.Message
			)
			obs := mcp.Observer{Traffic: func(m mcp.Message) {
				mu.Lock()
				defer mu.Unlock()
				seen[fmt.Sprintf("%v %s %s", m.Sent, m.Kind, m.Method)] = true
				if !json.Valid(m.Raw) || m.Server != "up" {
					bad = append(bad, m)
				}
			}}
			reg := tooling.NewRegistry()
			r, err := mcp.Connect(context.Background(), reg, "up", mcp.Spec{URL: hs.URL}, mcp.WithObserver(obs))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if res, err := reg.Execute(context.Background(), "up.hello", nil, tooling.WithConsent()); err != nil {
				t.Fatal(res.Message)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, k := range []string{"true request tools/list", "false response tools/list", "true request tools/call", "false response tools/call"} {
				if !seen[k] {
					t.Errorf("no %q among the messages: %v", k, seen)
				}
			}
			if len(bad) > 0 {
				t.Errorf("messages %+v", bad)
			}
		})
	}
}
