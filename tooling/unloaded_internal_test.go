package tooling

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
)

// A registered tool keeps no compiled schema until its first use: listing
// and searching it (its parameter names too) compile nothing; the first
// calls, however many at once, compile it and validate with it.
func TestSchemasCompiledOnFirstUse(t *testing.T) {
	r := NewRegistry()
	r.Register(Tool{Name: "t.lazy", Description: "takes an owner",
		Input:  json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string","minLength":2}},"required":["owner"]}`),
		Output: json.RawMessage(`{"type":"string"}`),
		Run:    func(context.Context, Call) (any, error) { return "ok", nil }})
	e := r.find("t.lazy")
	compiled := func() bool { return e.in != nil || e.out != nil }
	if compiled() {
		t.Fatal("compiled schemas kept after Register")
	}
	if got := r.List(context.Background(), Filter{Text: "OWNER"}); len(got) != 1 || compiled() {
		t.Fatalf("List by a parameter name: %d tools, compiled %v; want 1 and nothing compiled", len(got), compiled())
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
	res, err := r.Execute(context.Background(), "t.lazy", json.RawMessage(`{"owner":"xy"}`))
	if err != nil || string(res.Output) != `"ok"` || e.in == nil || e.out == nil {
		t.Fatalf("%v: output %s, compiled in %v out %v", err, res.Output, e.in != nil, e.out != nil)
	}
	// Register checks a schema without its quick check (dropped with the
	// schema); the first use compiles it whole.
	if !e.in.HasQuick() {
		t.Fatal("the input schema compiled on first use has no quick check")
	}
}
