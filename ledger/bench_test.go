package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
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
