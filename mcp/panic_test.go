package mcp_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestPanicStackStaysLocal: a tool that panics is answered to an MCP
// client with the code and message, never the stack (it names the host's
// source files); the host's own Result keeps the stack. Both a tool with
// an output schema (Result in _meta) and one without (Result as
// structuredContent), and a call by the exported name (served by the
// unlisted-call path).
func TestPanicStackStaysLocal(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	r := tooling.NewRegistry()
	boom := func(context.Context, tooling.Call) (any, error) { panic("kaboom") }
	r.Register(
		tooling.Tool{Name: "t.boom", Description: "panics", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: boom},
		tooling.Tool{Name: "t.boom_out", Description: "panics, with an output schema",
			Output: json.RawMessage(`{"type":"object"}`), Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: boom},
	)

	// The control: the host's Result holds the stack, with this file's path.
	local, _ := r.Execute(context.Background(), "t.boom", nil)
	if local.Code != codes.Panic || !strings.Contains(local.Stack, file) {
		t.Fatalf("local result: code %q, stack %q; want panic and a stack naming %s", local.Code, local.Stack, file)
	}

	cs := connect(t, mcp.NewServer(r, mcp.Options{}), nil)
	for _, name := range []string{"t.boom", "t.boom_out", "t__boom"} {
		res := call(t, cs, name, nil)
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		for _, leak := range []string{file, "goroutine ", "runtime/debug", `"stack"`} {
			if strings.Contains(string(raw), leak) {
				t.Errorf("%s: the client got %q:\n%s", name, leak, raw)
			}
		}
		got := resultOf(t, res)
		if !res.IsError || got.Code != codes.Panic || !strings.Contains(got.Message, "kaboom") || got.Stack != "" {
			t.Errorf("%s: isError %v, code %q, message %q, stack %q; want panic, its message, no stack",
				name, res.IsError, got.Code, got.Message, got.Stack)
		}
		if !strings.HasPrefix(text(res), "panic: ") || !strings.Contains(text(res), "kaboom") {
			t.Errorf("%s: text %q", name, text(res))
		}
	}
}
