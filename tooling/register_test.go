package tooling_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestRegisterRefuses(t *testing.T) {
	tests := []struct {
		name string
		tool tooling.Tool
		want []string // every part must occur in the panic message
	}{
		{"empty name", tooling.Tool{Run: run}, []string{`Register("")`, "name is empty", "demo.echo"}},
		{"no group", tooling.Tool{Name: "echo", Run: run}, []string{"no group", `"demo.echo"`}},
		{"upper case", tooling.Tool{Name: "demo.ReadFile", Run: run}, []string{`"ReadFile"`, "lower snake case", `try "demo.read_file"`}},
		{"dash", tooling.Tool{Name: "demo.read-file", Run: run}, []string{"lower snake case", `"demo.read_file"`}},
		{"double underscore", tooling.Tool{Name: "demo.read__file", Run: run}, []string{"lower snake case"}},
		{"trailing underscore", tooling.Tool{Name: "demo.read_", Run: run}, []string{"lower snake case"}},
		{"digit first", tooling.Tool{Name: "demo.1st", Run: run}, []string{"lower snake case"}},
		{"too long", tooling.Tool{Name: "demo." + strings.Repeat("x", 60), Run: run}, []string{"over 64"}},
		{"no run", tooling.Tool{Name: "demo.norun"}, []string{"Run is nil"}},
		{"schema not JSON", tooling.Tool{Name: "demo.bad", Run: run, Input: raw(`{"type":`)}, []string{"input schema is not valid JSON"}},
		{"schema not object", tooling.Tool{Name: "demo.bad", Run: run, Input: raw(`{"type":"string"}`)}, []string{`"type": "object"`}},
		{"schema missing type", tooling.Tool{Name: "demo.bad", Run: run, Input: raw(`{"properties":{}}`)}, []string{`"type": "object"`}},
		{"schema does not compile", tooling.Tool{Name: "demo.bad", Run: run, Input: raw(`{"type":"object","properties":{"n":{"type":"integer","minimum":"one"}}}`)}, []string{"does not compile"}},
		{"dangling ref", tooling.Tool{Name: "demo.bad", Run: run, Input: raw(`{"type":"object","properties":{"n":{"$ref":"#/$defs/missing"}}}`)}, []string{"does not compile"}},
		{"external ref", tooling.Tool{Name: "demo.bad", Run: run, Input: raw(`{"type":"object","properties":{"n":{"$ref":"file:///etc/passwd"}}}`)}, []string{"does not compile"}},
		{"output schema", tooling.Tool{Name: "demo.bad", Run: run, Output: raw(`{"type":7}`)}, []string{"output schema does not compile"}},
		{"low safety writes", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Effects: tooling.EffectWrite, Safety: tooling.SafetyLow}}, []string{"Safety is low", "write", "SafetyMedium"}},
		{"low safety process", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Effects: tooling.EffectProcess, Safety: tooling.SafetyLow}}, []string{"Safety is low", "process"}},
		{"read-only writes", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectWrite}}, []string{"ReadOnly", "cannot change state"}},
		{"resources on read-only", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Resources: []string{"kv"}}}, []string{"Resources only applies to Exclusive"}},
		{"negative timeout", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Timeout: -1}}, []string{"negative"}},
		{"rate NaN", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: math.NaN()}}}, []string{"PerMinute is NaN"}},
		{"burst without rate", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Rate: tooling.Rate{Burst: 3}}}, []string{"limits nothing"}},
		{"bad origin", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Origins: []tooling.Origin{"LLM"}}}, []string{`Origins has "LLM"`}},
		{"negative limit", tooling.Tool{Name: "demo.bad", Run: run, Meta: tooling.Meta{Confine: &tooling.Confinement{Limits: tooling.Limits{MemoryBytes: -1}}}}, []string{"Confine.Limits has a negative limit", "MemoryBytes:-1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tooling.NewRegistry()
			msg := panicMessage(func() { r.Register(tt.tool) })
			if msg == "" {
				t.Fatal("Register did not panic")
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("panic %q does not say %q", msg, w)
				}
			}
			if len(r.List(context.Background(), tooling.Filter{})) != 0 {
				t.Error("refused tool was registered")
			}
			err := r.Add(tt.tool)
			var re *tooling.RegisterError
			if !errors.As(err, &re) || re.Tool != tt.tool.Name || len(re.Problems) == 0 {
				t.Errorf("Add returned %#v", err)
			}
		})
	}
}

func panicMessage(f func()) (msg string) {
	defer func() {
		if p := recover(); p != nil {
			if err, ok := p.(error); ok {
				msg = err.Error()
			} else {
				msg = "non-error panic"
			}
		}
	}()
	f()
	return ""
}

func TestRegisterDuplicate(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.one", Run: run})
	msg := panicMessage(func() { r.Register(tooling.Tool{Name: "demo.one", Run: run}) })
	if !strings.Contains(msg, `Register("demo.one")`) || !strings.Contains(msg, "already registered") {
		t.Fatalf("panic %q", msg)
	}
}

func TestRegisterAcceptsDraft07AndSafeZeroMeta(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.draft07", Run: run, Input: raw(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"definitions": {"n": {"type": "integer", "minimum": 1}},
		"properties": {"n": {"$ref": "#/definitions/n"}}
	}`)})
	if _, err := r.Execute(context.Background(), "demo.draft07", raw(`{"n":0}`)); !errors.Is(err, codes.ValidationError) {
		t.Fatalf("draft-07 schema not enforced: %v", err)
	}
	tool, ok := r.Lookup("demo.draft07")
	if !ok || tool.Meta.Concurrency != tooling.Exclusive || tool.Meta.EffectiveSafety() != tooling.SafetyLow || tool.Meta.NeedsConsent() {
		t.Fatalf("zero Meta is not the documented default: %+v", tool.Meta)
	}
	if _, ok := r.Lookup("demo__draft07"); !ok {
		t.Error("Lookup does not accept the exported spelling")
	}
}

func TestMetaDerivations(t *testing.T) {
	tests := []struct {
		meta    tooling.Meta
		safety  tooling.Safety
		consent bool
	}{
		{tooling.Meta{}, tooling.SafetyLow, false},
		{tooling.Meta{Effects: tooling.EffectRead}, tooling.SafetyLow, false},
		{tooling.Meta{Effects: tooling.EffectNetwork}, tooling.SafetyMedium, false},
		{tooling.Meta{Effects: tooling.EffectWrite}, tooling.SafetyMedium, true},
		{tooling.Meta{Effects: tooling.EffectProcess}, tooling.SafetyHigh, true},
		{tooling.Meta{Safety: tooling.SafetyHigh}, tooling.SafetyHigh, true},
		{tooling.Meta{Consent: true}, tooling.SafetyLow, true},
	}
	for _, tt := range tests {
		if got := tt.meta.EffectiveSafety(); got != tt.safety {
			t.Errorf("%+v: safety %v, want %v", tt.meta, got, tt.safety)
		}
		if got := tt.meta.NeedsConsent(); got != tt.consent {
			t.Errorf("%+v: consent %v, want %v", tt.meta, got, tt.consent)
		}
	}
	var e tooling.Effects
	err := e.UnmarshalText([]byte("read|write,network"))
	if err != nil || e != tooling.EffectRead|tooling.EffectWrite|tooling.EffectNetwork || e.String() != "read|write|network" {
		t.Errorf("UnmarshalText = %v, %v", e, err)
	}
	if err := new(tooling.Effects).UnmarshalText([]byte("teleport")); err == nil {
		t.Error("unknown effect accepted")
	}
	// Register stores concurrency and risk in their canonical names,
	// whatever the case and spelling it was given, and refuses names it
	// does not know.
	for i, tc := range []struct {
		c    tooling.Concurrency
		s    tooling.Safety
		want tooling.Concurrency
		risk tooling.Safety
	}{
		{"", "", tooling.Exclusive, tooling.SafetyAuto},
		{"Read-Only", "LOW", tooling.ReadOnly, tooling.SafetyLow},
		{"readonly", "Medium", tooling.ReadOnly, tooling.SafetyMedium},
		{"main", "high", tooling.MainThread, tooling.SafetyHigh},
	} {
		r := tooling.NewRegistry()
		name := fmt.Sprintf("t.c%d", i)
		if err := r.Add(tooling.Tool{Name: name, Run: run, Meta: tooling.Meta{Concurrency: tc.c, Safety: tc.s}}); err != nil {
			t.Fatalf("%q/%q: %v", tc.c, tc.s, err)
		}
		got, _ := r.Lookup(name)
		if got.Meta.Concurrency != tc.want || got.Meta.Safety != tc.risk {
			t.Errorf("%q/%q stored as %q/%q, want %q/%q", tc.c, tc.s, got.Meta.Concurrency, got.Meta.Safety, tc.want, tc.risk)
		}
	}
	err = tooling.NewRegistry().Add(tooling.Tool{Name: "t.bad", Run: run, Meta: tooling.Meta{Concurrency: "parallel", Safety: "extreme"}})
	if err == nil || !strings.Contains(err.Error(), `"parallel" is unknown`) || !strings.Contains(err.Error(), `"extreme" is unknown`) {
		t.Errorf("unknown names: %v", err)
	}
}

// recursiveSchema is an object schema whose definition refers to itself from branches properties.
func recursiveSchema(branches int) json.RawMessage {
	var refs []string
	for i := range branches {
		refs = append(refs, fmt.Sprintf(`"k%d": {"$ref": "#/$defs/expr"}`, i))
	}
	return raw(`{"type": "object", "properties": {"root": {"$ref": "#/$defs/expr"}},
		"$defs": {"expr": {"type": "object", "properties": {"op": {"type": "string", "default": "add"}, ` + strings.Join(refs, ", ") + `}}}}`)
}

// TestRecursiveSchemaRegistersQuickly: registering a recursive schema costs in proportion to
// its size, not to its unfolding. Measured in allocations, which the machine's load does not
// change: twice the branches must cost well under twice as much (an unfolding costs their
// power); BenchmarkRegisterRecursiveSchema has the time.
func TestRecursiveSchemaRegistersQuickly(t *testing.T) {
	cost := func(branches int) float64 {
		s := recursiveSchema(branches)
		return testing.AllocsPerRun(3, func() {
			tooling.NewRegistry().Register(tooling.Tool{Name: "demo.expr", Run: run, Input: s})
		})
	}
	if five, ten := cost(5), cost(10); ten > 2*five {
		t.Fatalf("registering a recursive schema: %.0f allocations with 5 branches, %.0f with 10", five, ten)
	}
	r := tooling.NewRegistry()
	var got tooling.Call
	r.Register(tooling.Tool{Name: "demo.expr2", Input: raw(`{"type":"object","properties":{"root":{"$ref":"#/$defs/expr"}},
		"$defs":{"expr":{"type":"object","properties":{"op":{"type":"string","default":"add"},"a":{"$ref":"#/$defs/expr"}}}}}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) { got = c; return nil, nil }})
	mustExec(t, r, "demo.expr2", `{"root":{"a":{"a":{}}}}`)
	if string(got.Raw()) != `{"root":{"a":{"a":{"op":"add"},"op":"add"},"op":"add"}}` {
		t.Fatalf("defaults through recursion: %s", got.Raw())
	}
}

func TestRegisterRefusesDefaultsTheirSchemaRefuses(t *testing.T) {
	msg := panicMessage(func() {
		tooling.NewRegistry().Register(tooling.Tool{Name: "demo.bad_default", Run: run,
			Input: raw(`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"default":"lots"}}}`)})
	})
	if !strings.Contains(msg, "the default at /properties/n does not match its own schema") {
		t.Fatalf("panic %q", msg)
	}
}

func TestRegisterRefusesConflictingSharedRates(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "api.search", Run: run, Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 60, Burst: 10, Key: "api"}}})
	r.Register(tooling.Tool{Name: "api.get", Run: run, Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 60, Burst: 10, Key: "api"}}})
	msg := panicMessage(func() {
		r.Register(tooling.Tool{Name: "api.admin", Run: run, Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 1, Key: "api"}}})
	})
	if !strings.Contains(msg, `shares the bucket "api" with api.`) {
		t.Fatalf("panic %q", msg)
	}
}

func TestNotFoundSuggestsTheGroup(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.echo", Run: run})
	res, _ := r.Execute(context.Background(), "echo", nil)
	if !strings.Contains(res.Message, `did you mean "demo.echo"`) || res.Hint != "" {
		t.Fatalf("message %q hint %q", res.Message, res.Hint)
	}
	res, _ = r.Execute(context.Background(), "", nil)
	if res.Message != "no tool name given" {
		t.Fatalf("empty name: %q", res.Message)
	}
}

func BenchmarkRegisterRecursiveSchema(b *testing.B) {
	s := recursiveSchema(5)
	b.ReportAllocs()
	for b.Loop() {
		tooling.NewRegistry().Register(tooling.Tool{Name: "demo.expr", Run: run, Input: s})
	}
}

// TestRegisterBatch: a batch large enough to compile on several goroutines
// adds its tools in order up to the first bad one, whose problem the panic
// names, and every tool added validates its own arguments.
func TestRegisterBatch(t *testing.T) {
	noop := func(context.Context, tooling.Call) (any, error) { return nil, nil }
	var tools []tooling.Tool
	for i := range 100 {
		in := fmt.Sprintf(`{"type":"object","properties":{"n%d":{"type":"integer"}},"additionalProperties":false}`, i)
		if i == 60 {
			in = `{"type":"object","properties":{"x":{"type":"nonsense"}}}`
		}
		tools = append(tools, tooling.Tool{Name: fmt.Sprintf("batch.t%d", i), Input: json.RawMessage(in), Run: noop})
	}
	r := tooling.NewRegistry()
	func() {
		defer func() {
			p := recover()
			err, ok := p.(*tooling.RegisterError)
			if !ok || err.Tool != "batch.t60" {
				t.Fatalf("panic %v, want the RegisterError of batch.t60", p)
			}
		}()
		r.Register(tools...)
	}()
	if len(r.List(context.Background(), tooling.Filter{})) != 60 {
		t.Fatalf("%d tools added, want the 60 before the bad one", len(r.List(context.Background(), tooling.Filter{})))
	}
	for i := range 60 {
		name := fmt.Sprintf("batch.t%d", i)
		if fe, err := r.ValidateArgs(name, json.RawMessage(fmt.Sprintf(`{"n%d":"x"}`, i))); err != nil || len(fe) != 1 {
			t.Fatalf("%s: %v %v, want its own schema to refuse a string", name, fe, err)
		}
	}
	// Replace checks the whole batch before it changes anything.
	if err := r.Replace(nil, tools[60:]); err == nil || !strings.Contains(err.Error(), "batch.t60") {
		t.Fatalf("Replace with a bad tool: %v", err)
	}
	if len(r.List(context.Background(), tooling.Filter{})) != 60 {
		t.Fatalf("%d tools after a refused Replace, want 60", len(r.List(context.Background(), tooling.Filter{})))
	}
}
