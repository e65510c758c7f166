package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// spin is a tool that works for 10µs.
func spin(context.Context, tooling.Call) (any, error) {
	for start := time.Now(); time.Since(start) < 10*time.Microsecond; {
	}
	return 1, nil
}

// BenchmarkExecuteLedger: one call of a 10µs tool with the ledger off and
// on (group commit, fsync at most every 100ms, the default).
func BenchmarkExecuteLedger(b *testing.B) {
	args := json.RawMessage(`{"query":"governed tool execution","limit":20}`)
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			r := tooling.NewRegistry()
			r.Register(tooling.Tool{Name: "bench.spin", Input: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}}}`), Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Version: "1.0.0"}, Run: spin})
			if on {
				l, err := ledger.Open(ledger.Options{Path: filepath.Join(b.TempDir(), "ledger.jsonl")})
				if err != nil {
					b.Fatal(err)
				}
				defer l.Close()
				l.Attach(r)
			}
			p := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Auth: "local"})
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := r.Execute(ctx, "bench.spin", args, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExecuteLedgerPaired makes the calls of ExecuteLedger's two
// registries in turn, in blocks of 256 calls without the ledger then 256
// with it, and reports the median call of each (off-ns, on-ns) and their
// ratio (on/off), then the process's processor time per call of each
// (off-cpu-ns, on-cpu-ns) and their ratio (cpu-on/off). A block with the
// ledger ends when the writer has written its records, so that the
// writer's work counts with it. Calls made side by side meet the same
// load, so the ratios stay readable on a busy machine.
func BenchmarkExecuteLedgerPaired(b *testing.B) {
	args := json.RawMessage(`{"query":"governed tool execution","limit":20}`)
	newReg := func() *tooling.Registry {
		r := tooling.NewRegistry()
		r.Register(tooling.Tool{Name: "bench.spin", Input: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}}}`), Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Version: "1.0.0"}, Run: spin})
		return r
	}
	off, on := newReg(), newReg()
	l, err := ledger.Open(ledger.Options{Path: filepath.Join(b.TempDir(), "ledger.jsonl")})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	l.Attach(on)
	p := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Auth: "local"})
	ctx := context.Background()
	const block = 256
	var wallOff, wallOn []time.Duration
	var cpuOff, cpuOn time.Duration
	run := func(r *tooling.Registry, wall *[]time.Duration) {
		for range block {
			start := time.Now()
			if _, err := r.Execute(ctx, "bench.spin", args, p); err != nil {
				b.Fatal(err)
			}
			*wall = append(*wall, time.Since(start))
		}
	}
	written := l.Stats().Written
	b.ReportAllocs()
	for b.Loop() {
		c0 := cpuNow()
		run(off, &wallOff)
		c1 := cpuNow()
		run(on, &wallOn)
		written += 2 * block // a begin and an end record a call
		for l.Stats().Written < written {
			time.Sleep(time.Millisecond) // the writer's linger: few wake-ups
		}
		c2 := cpuNow()
		cpuOff += c1 - c0
		cpuOn += c2 - c1
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	mOff, mOn := med(wallOff), med(wallOn)
	b.ReportMetric(mOff, "off-ns")
	b.ReportMetric(mOn, "on-ns")
	b.ReportMetric(mOn/mOff, "on/off")
	if cpuOff > 0 {
		n := float64(len(wallOff))
		b.ReportMetric(float64(cpuOff.Nanoseconds())/n, "off-cpu-ns")
		b.ReportMetric(float64(cpuOn.Nanoseconds())/n, "on-cpu-ns")
		b.ReportMetric(float64(cpuOn)/float64(cpuOff), "cpu-on/off")
	}
}

// BenchmarkRead100k: listing the calls of a ledger of 100,000 records
// (50,000 calls over 10 tools), all of them and those of one tool.
func BenchmarkRead100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "ledger.jsonl")
	l, err := ledger.Open(ledger.Options{Path: path})
	if err != nil {
		b.Fatal(err)
	}
	r := tooling.NewRegistry()
	for i := 0; i < 10; i++ {
		r.Register(tooling.Tool{Name: fmt.Sprintf("bench.t%d", i), Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return 1, nil }})
	}
	l.Attach(r)
	for i := 0; i < 50000; i++ {
		r.Execute(context.Background(), fmt.Sprintf("bench.t%d", i%10), json.RawMessage(`{"n":1}`))
	}
	if err := l.Close(); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		f    ledger.Filter
		want int
	}{{"all", ledger.Filter{}, 50000}, {"tool", ledger.Filter{Tool: "bench.t3"}, 5000}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				es, err := ledger.Read(path, c.f)
				if err != nil || len(es) != c.want {
					b.Fatalf("%d calls, %v; want %d", len(es), err, c.want)
				}
			}
		})
	}
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			rep, err := ledger.Verify(path, l.PublicKey())
			if err != nil || !rep.OK() || rep.Records < 100000 {
				b.Fatalf("%+v %v", rep, err)
			}
		}
	})
}
