//go:build linux

package tooling

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
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
	{Name: "conftest.compiled", Description: "names the tools whose schemas the child compiled",
		Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"]}`),
		Meta:  Meta{Concurrency: ReadOnly, Confine: &Confinement{}},
		Run: func(context.Context, Call) (any, error) {
			r := hostedRegistry()
			r.mu.RLock()
			defer r.mu.RUnlock()
			compiled := []string{}
			for name, e := range r.tools {
				if e.in != nil || e.out != nil {
					compiled = append(compiled, name)
				}
			}
			return compiled, nil
		}},
	{Name: "conftest.wide", Description: "takes 500 optional properties",
		Input: wideSchema(500), Meta: Meta{Concurrency: ReadOnly, Confine: &Confinement{}},
		Run: func(context.Context, Call) (any, error) { return "wide", nil }},
	{Name: "conftest.bare", Description: "takes no arguments",
		Meta: Meta{Concurrency: ReadOnly, Confine: &Confinement{}},
		Run:  func(context.Context, Call) (any, error) { return "bare", nil }},
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
	cfg := Settings{}
	cfg.Confinement.Workspace = t.TempDir()
	cfg.Confinement.PoolSize = -1
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	defer r.Configure(Settings{})
	res, err := r.Execute(context.Background(), "conftest.inspect", nil)
	if err != nil {
		t.Fatalf("%v: %s", err, res.Message)
	}
	var got struct {
		Before   map[string]bool `json:"before"`
		Code     codes.Code      `json:"code"`
		Fields   int             `json:"fields"`
		Compiled bool            `json:"compiled"`
	}
	if err := json.Unmarshal(res.Output, &got); err != nil {
		t.Fatal(err)
	}
	if !got.Before["deferred"] || got.Before["compiled"] {
		t.Errorf("in the child before use: %v, want deferred and not compiled", got.Before)
	}
	if got.Code != codes.ValidationError || got.Fields != 1 || !got.Compiled {
		t.Errorf("a call in the child: code %q, %d fields, compiled %v; want validation_error on /n", got.Code, got.Fields, got.Compiled)
	}
}

// TestConfinedCallCompilesNoSchema: a child serving a call, whether started
// for it or ahead of it, compiles no schema, not even its tool's (the parent
// validated the arguments).
func TestConfinedCallCompilesNoSchema(t *testing.T) {
	if err := confine.Available(); err != nil {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %v", err)
		}
		t.Skipf("confinement unavailable here: %v", err)
	}
	r := hostedRegistry()
	defer r.Configure(Settings{})
	defer endConfinement()              // stops the workers started ahead
	for _, pool := range []int{-1, 2} { // -1: no pool
		cfg := Settings{}
		cfg.Confinement.Workspace = t.TempDir()
		cfg.Confinement.PoolSize = pool
		if _, err := r.Configure(cfg); err != nil {
			t.Fatal(err)
		}
		for range 2 { // with a pool, the second call is served by a worker started ahead
			res, err := r.Execute(context.Background(), "conftest.compiled", json.RawMessage(`{"n":3}`))
			if err != nil {
				t.Fatalf("pool %d: %v: %s", pool, err, res.Message)
			}
			var compiled []string
			if err := json.Unmarshal(res.Output, &compiled); err != nil {
				t.Fatal(err)
			}
			if len(compiled) > 0 {
				t.Errorf("pool %d: the child compiled the schemas of %v", pool, compiled)
			}
		}
	}
}

// wideSchema is an object schema of n optional properties, each with a
// pattern and bounds, about 100 bytes of schema each.
func wideSchema(n int) json.RawMessage {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"type":"string","minLength":1,"maxLength":64,"pattern":"^[a-z]+$","description":"property %d"}`, i, i)
	}
	b.WriteString(`}}`)
	return json.RawMessage(b.String())
}

// BenchmarkConfinedPooled: a pooled confined call (a fresh worker started
// ahead for each call), to a tool with a 500-property schema and to one
// with none. The two cost the same when the child compiles no schema.
func BenchmarkConfinedPooled(b *testing.B) {
	if err := confine.Available(); err != nil {
		b.Skipf("confinement unavailable here: %v", err)
	}
	r := hostedRegistry()
	cfg := Settings{}
	cfg.Confinement.Workspace = b.TempDir()
	if _, err := r.Configure(cfg); err != nil {
		b.Fatal(err)
	}
	defer r.Configure(Settings{})
	defer endConfinement()
	for _, name := range []string{"conftest.bare", "conftest.wide"} {
		b.Run(strings.TrimPrefix(name, "conftest."), func(b *testing.B) {
			for b.Loop() {
				res, err := r.Execute(context.Background(), name, json.RawMessage(`{}`))
				if err != nil {
					b.Fatalf("%v: %s", err, res.Message)
				}
			}
		})
	}
}
