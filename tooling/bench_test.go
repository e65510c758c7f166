package tooling

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling/internal/schema"
)

// benchSchema is a realistic tool input: strings with bounds and a pattern,
// an integer with bounds and a default, an enum, a nested object with a
// format, and an array of enums.
var benchSchema = json.RawMessage(`{
	"type": "object",
	"properties": {
		"query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What to search for"},
		"limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
		"sort": {"enum": ["relevance", "date", "title"], "default": "relevance"},
		"filter": {
			"type": "object",
			"properties": {
				"since": {"type": "string", "format": "date"},
				"author": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"}
			},
			"additionalProperties": false
		},
		"tags": {"type": "array", "items": {"enum": ["go", "rust", "docs", "api"]}, "uniqueItems": true, "maxItems": 4}
	},
	"required": ["query"],
	"additionalProperties": false
}`)

var benchArgs = json.RawMessage(`{"query":"governed tool execution","limit":20,"filter":{"since":"2026-01-31","author":"ada_l"},"tags":["go","api"]}`)

func benchRun(_ context.Context, c Call) (any, error) { return callargs.Int(c.Args, "limit"), nil }

func benchRegistry(b *testing.B) *Registry {
	r := NewRegistry()
	r.Register(Tool{Name: "bench.search", Input: benchSchema, Meta: Meta{Concurrency: ReadOnly}, Run: benchRun})
	r.Register(Tool{Name: "bench.none", Meta: Meta{Concurrency: ReadOnly}, Run: benchRun})
	return r
}

// BenchmarkDecodeValidateStd is what a host would write without the
// registry: encoding/json with UseNumber, then the compiled schema.
func BenchmarkDecodeValidateStd(b *testing.B) {
	op := decodeValidateStd(b)
	b.ReportAllocs()
	for b.Loop() {
		op()
	}
}

// decodeValidateStd returns one decode and validation of benchArgs as a host
// writes it by hand: with the public libraries a host has, encoding/json and
// github.com/santhosh-tekuri/jsonschema/v6 (the registry validates with its
// own copy of that library in internal/jsonschema, which a host cannot
// import, and which validates faster).
func decodeValidateStd(b *testing.B) func() {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(benchSchema))
	if err != nil {
		b.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("bench.json", doc); err != nil {
		b.Fatal(err)
	}
	compiled, err := c.Compile("bench.json")
	if err != nil {
		b.Fatal(err)
	}
	return func() {
		d := json.NewDecoder(bytes.NewReader(benchArgs))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			b.Fatal(err)
		}
		if err := compiled.Validate(v); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeValidate is the floor of a call: the registry's own
// decoder and the compiled schema, nothing else.
func BenchmarkDecodeValidate(b *testing.B) {
	s, err := schema.Compile("bench.search", "input", benchSchema, true)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		v, err := schema.Decode(benchArgs)
		if err != nil {
			b.Fatal(err)
		}
		if fe, _, _ := s.Validate(v, 0); fe != nil {
			b.Fatal(fe)
		}
	}
}

// BenchmarkExecuteTool is the whole governed call on the same schema.
func BenchmarkExecuteTool(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.search", benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteToolNoParams: a tool without parameters skips decoding
// and validation.
func BenchmarkExecuteToolNoParams(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.none", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDirectCall is the tool's Run called directly.
func BenchmarkDirectCall(b *testing.B) {
	c := Call{Args: map[string]any{"limit": json.Number("20")}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := benchRun(ctx, c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteToolParallel is throughput with every core calling.
func BenchmarkExecuteToolParallel(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := r.Execute(ctx, "bench.search", benchArgs); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkExecuteToolObserved adds one audit hook (digests of args and output).
func BenchmarkExecuteToolObserved(b *testing.B) {
	r := benchRegistry(b)
	remove := r.Audit(func(context.Context, Event) {})
	defer remove()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.search", benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// governedRegistry has the same tool twice: once with every limit on (a
// rate bucket, a global slot limit, an exclusive resource lock), once with
// none (read-only, unlimited rate, a slot limit never reached).
func governedRegistry(b *testing.B, slots int) *Registry {
	r := NewRegistry()
	r.Register(Tool{Name: "bench.governed", Input: benchSchema, Run: benchRun,
		Meta: Meta{Concurrency: Exclusive, Resources: []string{"bench"}, Rate: Rate{PerMinute: 1e12, Burst: 1 << 30}}})
	r.Register(Tool{Name: "bench.free", Input: benchSchema, Run: benchRun, Meta: Meta{Concurrency: ReadOnly}})
	r.Configure(Settings{MaxConcurrent: slots})
	return r
}

// BenchmarkExecuteGoverned: a call that takes a rate token, a slot and a
// resource lock.
func BenchmarkExecuteGoverned(b *testing.B) {
	r := governedRegistry(b, 256)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.governed", benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteUngoverned: the same call with no limits at all.
func BenchmarkExecuteUngoverned(b *testing.B) {
	r := governedRegistry(b, 1<<30)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.free", benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExecuteMainThread: an empty-argument call of a MainThread tool,
// through the whole pipeline and the scheduler's own thread.
func BenchmarkExecuteMainThread(b *testing.B) {
	r := NewRegistry()
	r.Register(Tool{Name: "bench.main", Meta: Meta{Concurrency: MainThread}, Run: benchRun})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.main", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// manyFailures is an array of 10,000 items that all fail the schema's
// integer type: the cost of refusing hostile or careless arguments.
var manyFailures = func() json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"ids":[`)
	for i := range 10000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"x"`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}()

// BenchmarkValidateManyFailures validates 10,000 failing array items
// through ValidateArgs (the size cap, decoding, validation, field errors).
func BenchmarkValidateManyFailures(b *testing.B) {
	r := NewRegistry()
	r.Register(Tool{Name: "bench.ids", Input: json.RawMessage(`{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`), Run: benchRun})
	b.ReportAllocs()
	for b.Loop() {
		fields, err := r.ValidateArgs("bench.ids", manyFailures)
		if err != nil || len(fields) == 0 {
			b.Fatal(err, len(fields))
		}
	}
}

// Latency distributions: the same work as BenchmarkDecodeValidateStd and
// BenchmarkExecuteTool, each op timed on its own, reported as p50-ns and
// p90-ns. The tail of a governed call is compared with the tail of the code
// a host would write by hand:
//
//	go test -run '^$' -bench 'Latency' -count 6 ./tooling
func benchLatency(b *testing.B, op func()) {
	for range 1000 {
		op()
	}
	lat := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		op()
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	at := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Nanoseconds()) }
	b.ReportMetric(at(0.50), "p50-ns")
	b.ReportMetric(at(0.90), "p90-ns")
	b.ReportMetric(at(0.99), "p99-ns")
}

func BenchmarkLatencyDecodeValidateStd(b *testing.B) { benchLatency(b, decodeValidateStd(b)) }

func BenchmarkLatencyExecuteTool(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	benchLatency(b, func() {
		if _, err := r.Execute(ctx, "bench.search", benchArgs); err != nil {
			b.Fatal(err)
		}
	})
}
