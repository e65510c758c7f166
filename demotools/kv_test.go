package demotools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// A host builds the kv tools on a store of its own and hands per-call
// values through a typed context key.
func TestKVToolsOnTheHostsStore(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(demotools.KVTools(demotools.NewKV())...)
	put := func(ctx context.Context, key, value string) {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"key": key, "value": value})
		if _, err := r.Execute(ctx, "demo.kv_put", args, tooling.WithConsent()); err != nil {
			t.Fatal(err)
		}
	}
	get := func(ctx context.Context, key string) string {
		t.Helper()
		args, _ := json.Marshal(map[string]string{"key": key})
		res, err := r.Execute(ctx, "demo.kv_get", args)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Found bool   `json:"found"`
			Value string `json:"value"`
		}
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		if !out.Found {
			return "(none)"
		}
		return out.Value
	}
	ctx := context.Background()
	ada := demotools.WithKVSpace(ctx, "ada")
	put(ctx, "color", "blue")
	put(ada, "color", "green")
	if got := get(ctx, "color") + " " + get(ada, "color") + " " + get(demotools.WithKVSpace(ctx, "bob"), "color"); got != "blue green (none)" {
		t.Fatalf("shared, ada's, bob's: %s", got)
	}
	// The store of the Default registry's kv tools is another one.
	res, err := tooling.ExecuteTool(ctx, "demo.kv_get", json.RawMessage(`{"key":"color"}`))
	if err != nil || string(res.Output) != `{"found":false,"inside":1,"key":"color","value":""}` {
		t.Fatalf("Default's store: %s %v", res.Output, err)
	}
}
