//go:build linux

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestCancelReachesTheServer cancels a call in flight: the caller gets
// canceled and the server sees its request canceled.
func TestCancelReachesTheServer(t *testing.T) {
	reg := tooling.NewRegistry()
	r := connectPeer(t, reg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan *tooling.Result, 1)
	go func() {
		res, _ := reg.Execute(ctx, "peer.block", nil)
		done <- res
	}()
	waitStderr(t, r, "peer: blocking")
	cancel()
	res := <-done
	if res.Code != codes.Canceled {
		t.Fatalf("code %q (%s), want canceled", res.Code, res.Message)
	}
	waitStderr(t, r, "peer: canceled")
}

// TestServerThatDies: a call to a server that exited is a tool_error; once
// the session has ended, the server's tools are unavailable, with a reason
// that names the server and shows its stderr, and the registry lives on.
func TestServerThatDies(t *testing.T) {
	reg := tooling.NewRegistry()
	r := connectPeer(t, reg)
	if err := r.Err(); err != nil {
		t.Fatalf("Err of a live server: %v", err)
	}
	res, _ := reg.Execute(context.Background(), "peer.die", nil)
	if res.Code != codes.ToolError {
		t.Fatalf("code %q (%s), want tool_error", res.Code, res.Message)
	}
	<-r.Done()
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), `the MCP server "peer" has stopped`) {
		t.Fatalf("Err after the server died: %v", err)
	}
	res, _ = reg.Execute(context.Background(), "peer.echo", json.RawMessage(`{"text":"x"}`))
	if res.Code != codes.Unavailable || !strings.Contains(res.Message, `the MCP server "peer" has stopped`) || !strings.Contains(res.Message, "peer: out of memory") {
		t.Fatalf("a call after the server died: code %q, message %q; want unavailable with its stderr", res.Code, res.Message)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close after the server died: %v", err)
	}
}

// TestCloseIsNotDeath: a server stopped by Close is not reported as
// stopped on its own.
func TestCloseIsNotDeath(t *testing.T) {
	r := connectPeer(t, tooling.NewRegistry())
	r.Close()
	<-r.Done()
	if err := r.Err(); err != nil {
		t.Errorf("Err after Close: %v", err)
	}
}

// waitStderr waits until the server has written want to its stderr.
func waitStderr(t *testing.T, r *mcp.Remote, want string) {
	t.Helper()
	for !strings.Contains(r.Stderr(), want) {
		select {
		case <-t.Context().Done():
			t.Fatalf("the server never wrote %q; its stderr: %s", want, r.Stderr())
		default:
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStreamableHTTP connects to a server over streamable HTTP, sending the
// configured headers with every request.
func TestStreamableHTTP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "hello", Description: "greets", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"}},"required":["who"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var a struct{ Who string }
			_ = json.Unmarshal(req.Params.Arguments, &a)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello " + a.Who}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var mu sync.Mutex
	var auth []string
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		auth = append(auth, req.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, req)
	}))
	defer ts.Close()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "web", mcp.Spec{URL: ts.URL, Headers: map[string]string{"Authorization": "Bearer sesame"}})
	if err != nil {
		t.Fatal(err)
	}
	res, _ := reg.Execute(context.Background(), "web.hello", json.RawMessage(`{"who":"you"}`))
	if !res.OK() || string(res.Output) != `"hello you"` {
		t.Fatalf("web.hello: %s %s %s", res.Code, res.Message, res.Output)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 {
		t.Fatal("no request reached the server")
	}
	for i, a := range auth {
		if a != "Bearer sesame" {
			t.Fatalf("request %d carried Authorization %q", i, a)
		}
	}
}

// TestProgressReachesTheCaller: the server's progress notifications reach
// the caller's progress function (WithProgress).
func TestProgressReachesTheCaller(t *testing.T) {
	reg := tooling.NewRegistry()
	connectPeer(t, reg)
	got := make(chan tooling.Progress, 3)
	res, _ := reg.Execute(context.Background(), "peer.steps", nil, tooling.WithProgress(func(p tooling.Progress) { got <- p }))
	if !res.OK() {
		t.Fatalf("steps: %s %s", res.Code, res.Message)
	}
	// The tool pinged the client before it answered, so every report was
	// handled before the call returned.
	if len(got) != 3 {
		t.Fatalf("%d progress reports, want 3", len(got))
	}
	for i := 1; i <= 3; i++ {
		p := <-got
		if p.Done != float64(i) || p.Total != 3 || p.Message != fmt.Sprintf("step %d", i) {
			t.Fatalf("progress report %d: %+v", i, p)
		}
	}
}
