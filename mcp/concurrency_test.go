package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// gate is a server tool's view of the calls in flight: how many there
// are, the most there were, and a barrier that opens once want have
// arrived together.
type gate struct {
	want            int32
	now, most, seen atomic.Int32
	open            chan struct{}
	once            sync.Once
}

// slowServer serves over streamable HTTP one tool, "slow", without
// annotations (so, for MCP, one that writes), whose calls wait at g.
func slowServer(t *testing.T, g *gate) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			n := g.now.Add(1)
			defer g.now.Add(-1)
			for m := g.most.Load(); n > m && !g.most.CompareAndSwap(m, n); m = g.most.Load() {
			}
			if g.seen.Add(1) == g.want {
				g.once.Do(func() { close(g.open) })
			}
			select {
			case <-g.open:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done"}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// callAll makes n calls of tool at once and returns their results.
func callAll(t *testing.T, reg *tooling.Registry, tool string, n int, timeout time.Duration) []*tooling.Result {
	t.Helper()
	out := make([]*tooling.Result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			out[i], _ = reg.Execute(context.Background(), tool, nil, tooling.WithConsent(), tooling.WithTimeout(timeout))
		})
	}
	wg.Wait()
	return out
}

// TestRemoteCallsOverlap: the calls of a remote tool that says nothing of
// itself run at once, up to the server's concurrency: four calls that
// each wait for all four to arrive all end well.
func TestRemoteCallsOverlap(t *testing.T) {
	g := &gate{want: 4, open: make(chan struct{})}
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "slow", mcp.Spec{URL: slowServer(t, g)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for i, res := range callAll(t, reg, "slow.slow", 4, 30*time.Second) {
		if !res.OK() {
			t.Errorf("call %d: %s: %s", i, res.Code, res.Message)
		}
	}
	if got := g.most.Load(); got != 4 {
		t.Errorf("at most %d calls at once, want 4", got)
	}
}

// TestRemoteConcurrencyCap: a server's concurrency bounds the calls it is
// sent at once, and exclusive sends it one at a time.
func TestRemoteConcurrencyCap(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec mcp.Spec
		want int32
	}{
		{"concurrency 2", mcp.Spec{Concurrency: 2}, 2},
		{"exclusive", mcp.Spec{Concurrency: 4, Exclusive: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The barrier opens with the first want calls; the others find
			// it open.
			g := &gate{want: tc.want, open: make(chan struct{})}
			spec := tc.spec
			spec.URL = slowServer(t, g)
			reg := tooling.NewRegistry()
			r, err := mcp.Connect(context.Background(), reg, "slow", spec)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			for i, res := range callAll(t, reg, "slow.slow", 6, 30*time.Second) {
				if !res.OK() {
					t.Errorf("call %d: %s: %s", i, res.Code, res.Message)
				}
			}
			if got := g.most.Load(); got != tc.want {
				t.Errorf("at most %d calls at once, want %d", got, tc.want)
			}
		})
	}
}
