package mcp_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestServedIdempotencyKey: a tools/call whose _meta carries an
// idempotency key runs once; the repeat is replayed and says so in its
// _meta; other arguments with the key are refused; a key that is not a
// string is refused.
func TestServedIdempotencyKey(t *testing.T) {
	r := tooling.NewRegistry()
	var runs atomic.Int64
	r.Register(tooling.Tool{Name: "t.pay", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true},
		Input: []byte(`{"type":"object","properties":{"amount":{"type":"integer"}}}`),
		Run:   func(context.Context, tooling.Call) (any, error) { return map[string]int64{"run": runs.Add(1)}, nil }})
	cs := connect(t, mcp.NewServer(r, mcp.Options{}), nil)
	callKey := func(key any, amount int) *sdk.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.pay", Arguments: map[string]any{"amount": amount},
			Meta: sdk.Meta{mcp.IdempotencyKeyMeta: key}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first, again := callKey("k1", 5), callKey("k1", 5)
	if first.IsError || again.IsError || runs.Load() != 1 {
		t.Fatalf("first %+v, repeat %+v, runs %d: want one run", first, again, runs.Load())
	}
	if first.Meta[mcp.ReplayedMeta] != nil || again.Meta[mcp.ReplayedMeta] != true {
		t.Fatalf("_meta: first %v, repeat %v; want only the repeat marked replayed", first.Meta, again.Meta)
	}
	if got, want := again.Content[0].(*sdk.TextContent).Text, first.Content[0].(*sdk.TextContent).Text; got != want {
		t.Fatalf("repeat %s, want %s", got, want)
	}
	if res := callKey("k1", 6); !res.IsError || !containsText(res, "idempotency_conflict") {
		t.Fatalf("other arguments with the key: %+v, want idempotency_conflict", res)
	}
	if res := callKey(7, 5); !res.IsError || !containsText(res, mcp.IdempotencyKeyMeta) || runs.Load() != 1 {
		t.Fatalf("a key that is not a string: %+v (runs %d), want a refusal naming the _meta key", res, runs.Load())
	}
}

func containsText(res *sdk.CallToolResult, s string) bool {
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok && strings.Contains(tc.Text, s) {
			return true
		}
	}
	return false
}
