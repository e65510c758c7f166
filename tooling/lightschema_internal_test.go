package tooling

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// A registered tool keeps its quick checks but not the library's schema
// graph: listing and searching it (its parameter names too) and valid calls
// compile nothing more; the first arguments the quick check refuses, however
// many calls at once, compile the input graph, which words the errors.
func TestSchemaGraphCompiledOnFirstRefusal(t *testing.T) {
	r := NewRegistry()
	r.Register(Tool{Name: "t.lazy", Description: "takes an owner",
		Input:  json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string","minLength":2}},"required":["owner"]}`),
		Output: json.RawMessage(`{"type":"string"}`),
		Run:    func(context.Context, Call) (any, error) { return "ok", nil }})
	e := r.find("t.lazy")
	if e.in == nil || e.out == nil || !e.in.HasQuick() || !e.out.HasQuick() {
		t.Fatal("Register keeps no schemas with quick checks")
	}
	graphs := func() bool { return e.in.HoldsGraph() || e.out.HoldsGraph() }
	if graphs() {
		t.Fatal("a schema graph kept after Register")
	}
	if got := r.List(context.Background(), Filter{Text: "OWNER"}); len(got) != 1 || graphs() {
		t.Fatalf("List by a parameter name: %d tools, graphs %v; want 1 and no graph", len(got), graphs())
	}
	res, err := r.Execute(context.Background(), "t.lazy", json.RawMessage(`{"owner":"xy"}`))
	if err != nil || string(res.Output) != `"ok"` || graphs() {
		t.Fatalf("%v: output %s, graphs %v", err, res.Output, graphs())
	}
	var wg sync.WaitGroup
	fields := make([][]FieldError, 8)
	for i := range fields {
		wg.Go(func() { fields[i], _ = r.ValidateArgs("t.lazy", json.RawMessage(`{"owner":"x"}`)) })
	}
	wg.Wait()
	for i, f := range fields {
		if len(f) != 1 || f[0].Path != "/owner" {
			t.Fatalf("call %d: fields %v, want /owner", i, f)
		}
	}
	if !e.in.HoldsGraph() || e.out.HoldsGraph() {
		t.Fatalf("after refused arguments: input graph %v, output graph %v; want only the input's", e.in.HoldsGraph(), e.out.HoldsGraph())
	}
}
