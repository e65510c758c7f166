//go:build linux

package tooling

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// DeferredTestTools go into the registry the tests hand to Main (see
// helpers_test.go). conftest.inspect runs in a confined child and reports
// what Register left there: the schema of conftest.plain not compiled, then
// compiled by its first use (a call that it refuses).
var DeferredTestTools = []Tool{
	{Name: "conftest.plain", Description: "takes one integer",
		Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Meta:  Meta{Concurrency: ReadOnly},
		Run:   func(context.Context, Call) (any, error) { return "plain", nil }},
	{Name: "conftest.inspect", Description: "inspects the child's registry",
		Meta: Meta{Concurrency: ReadOnly, Confine: &Confinement{}},
		Run: func(ctx context.Context, _ Call) (any, error) {
			r := hostedRegistry()
			r.mu.RLock()
			e := r.tools["conftest.plain"]
			r.mu.RUnlock()
			before := map[string]bool{"deferred": e.deferred, "compiled": e.in != nil}
			res, _ := r.Execute(ctx, "conftest.plain", json.RawMessage(`{"n":"seven"}`))
			return map[string]any{"before": before, "code": res.Code, "fields": len(res.Fields), "compiled": e.in != nil}, nil
		}},
}

func TestConfinedChildDefersSchemas(t *testing.T) {
	if err := confine.Available(); err != nil {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %v", err)
		}
		t.Skipf("confinement unavailable here: %v", err)
	}
	// In the host, Register compiled everything at once.
	r := hostedRegistry()
	if e := r.lookup("conftest.plain"); e.deferred || e.in == nil {
		t.Fatalf("host entry deferred=%v compiled=%v", e.deferred, e.in != nil)
	}
	cfg := config.Default()
	cfg.Confinement.Workspace = t.TempDir()
	cfg.Confinement.PoolSize = 0
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	defer r.Configure(config.Default())
	res, err := r.Execute(context.Background(), "conftest.inspect", nil)
	if err != nil {
		t.Fatalf("%v: %s", err, res.Message)
	}
	var got struct {
		Before   map[string]bool `json:"before"`
		Code     Code            `json:"code"`
		Fields   int             `json:"fields"`
		Compiled bool            `json:"compiled"`
	}
	if err := json.Unmarshal(res.Output, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Before["deferred"] || got.Before["compiled"] {
		t.Errorf("in the child before use: %v, want deferred and not compiled", got.Before)
	}
	if got.Code != CodeValidationError || got.Fields != 1 || !got.Compiled {
		t.Errorf("a call in the child: code %q, %d fields, compiled %v; want validation_error on /n", got.Code, got.Fields, got.Compiled)
	}
}
