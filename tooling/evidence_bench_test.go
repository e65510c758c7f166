package tooling

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// BenchmarkPreflightExecute and BenchmarkPreflightExplain: the whole call
// of bench.search, and Explain of the same call (its preflight, nothing
// run or spent).
func BenchmarkPreflightExecute(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.search", benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPreflightExplain(b *testing.B) {
	r := benchRegistry(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Explain(ctx, "bench.search", benchArgs); err != nil {
			b.Fatal(err)
		}
	}
}

// keyedBench registers bench.pay, a tool that takes idempotency keys and
// works for 10µs.
func keyedBench(b *testing.B) *Registry {
	r := NewRegistry()
	r.Register(Tool{Name: "bench.pay", Meta: Meta{Concurrency: ReadOnly, IdempotencyKeys: true},
		Input: []byte(`{"type":"object","properties":{"amount":{"type":"integer"}}}`),
		Run: func(context.Context, Call) (any, error) {
			for start := time.Now(); time.Since(start) < 10*time.Microsecond; {
			}
			return map[string]int{"paid": 5}, nil
		}})
	return r
}

var payArgs = []byte(`{"amount":5}`)

// BenchmarkKeyedRun: a 10µs tool called with a new key each time: the
// key claimed, the tool run, its outcome kept (in memory).
func BenchmarkKeyedRun(b *testing.B) {
	r := keyedBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if _, err := r.Execute(ctx, "bench.pay", payArgs, WithIdempotencyKey(strconv.Itoa(i))); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkKeyedReplay: the same call repeated with one key: replayed
// from the in-memory store, the tool not run.
func BenchmarkKeyedReplay(b *testing.B) {
	r := keyedBench(b)
	ctx := context.Background()
	if _, err := r.Execute(ctx, "bench.pay", payArgs, WithIdempotencyKey("k")); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		res, err := r.Execute(ctx, "bench.pay", payArgs, WithIdempotencyKey("k"))
		if err != nil || !res.Replayed {
			b.Fatal(err, res.Replayed)
		}
	}
}

// BenchmarkKeyedNoKey: the same tool called without a key: no store.
func BenchmarkKeyedNoKey(b *testing.B) {
	r := keyedBench(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "bench.pay", payArgs); err != nil {
			b.Fatal(err)
		}
	}
}
