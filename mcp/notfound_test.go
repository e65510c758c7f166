package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestCallOfAHugeNameIsAnsweredSmall: a client that calls a tool named by
// 10 KB or 100 KB gets a not_found answer of a few hundred bytes, not its
// name echoed back; a near name still gets its suggestion.
func TestCallOfAHugeNameIsAnsweredSmall(t *testing.T) {
	r, _, _ := testRegistry(t)
	cs := connect(t, mcp.NewServer(r, mcp.Options{}), nil)
	for _, n := range []int{10 << 10, 100 << 10} {
		res := call(t, cs, strings.Repeat("x", n), nil)
		whole, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if got := resultOf(t, res); !res.IsError || got.Code != codes.NotFound || len(whole) > 2048 {
			t.Errorf("%d bytes: code %q, an answer of %d bytes: %.300s", n, got.Code, len(whole), whole)
		}
	}
	res := call(t, cs, "t.ecoh", nil)
	if got := resultOf(t, res); got.Code != codes.NotFound || !strings.Contains(text(res), `did you mean "t.echo"`) {
		t.Errorf("a typo: %q", text(res))
	}
}

// BenchmarkCallNotFound is a tools/call round trip over the in-memory
// transport to a server of 1,000 tools: a good call, then calls of names
// of 10 KB and 100 KB, which no tool has, in one run.
func BenchmarkCallNotFound(b *testing.B) {
	r := tooling.NewRegistry()
	r.Register(benchTool)
	for i := range 999 {
		r.Register(tooling.Tool{Name: fmt.Sprintf("b.tool_%d", i), Run: benchEcho})
	}
	srv := mcp.NewServer(r, mcp.Options{})
	cs := benchClient(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(context.Background(), t) })
	for _, c := range []struct{ label, name string }{
		{"good", "b.echo"},
		{"10KB", strings.Repeat("x", 10<<10)},
		{"100KB", strings.Repeat("x", 100<<10)},
	} {
		b.Run(c.label, func(b *testing.B) {
			params := &sdk.CallToolParams{Name: c.name, Arguments: json.RawMessage(`{"text":"hello","n":3}`)}
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError != (c.label != "good") {
					b.Fatalf("%v %v", err, res)
				}
			}
		})
	}
}
