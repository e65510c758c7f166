package telemetry_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/telemetry"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// spin busy-waits d, a tool's work that does not sleep.
func spin(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

// BenchmarkExecuteTelemetry runs a 10 µs tool with tracing and metrics off,
// then on: the SDK's tracer provider sampling every span into a batch
// processor with an exporter that drops them, and the SDK's meter provider
// with a reader that is never collected.
func BenchmarkExecuteTelemetry(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "off"
		if on {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			reg := tooling.NewRegistry()
			reg.Register(tooling.Tool{Name: "bench.work", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
				Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
				Run: func(ctx context.Context, c tooling.Call) (any, error) {
					spin(10 * time.Microsecond)
					return callargs.Int(c.Args, "n"), nil
				}})
			if on {
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
				b.Cleanup(func() {
					_ = tp.Shutdown(context.Background())
					_ = mp.Shutdown(context.Background())
				})
				if _, err := telemetry.Instrument(reg, telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp)); err != nil {
					b.Fatal(err)
				}
			}
			args := json.RawMessage(`{"n":7}`)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := reg.Execute(ctx, "bench.work", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExecuteTelemetryPaired makes the calls of ExecuteTelemetry's
// two registries in turn, off then on, and reports the median call of
// each and their ratio (on/off): medians of calls made side by side stay
// readable on a loaded machine, where the two halves of ExecuteTelemetry
// meet different loads. The tool's work is fixed (hashing 8 KB, about
// 10 µs on an idle core), not a wall-clock wait.
func BenchmarkExecuteTelemetryPaired(b *testing.B) {
	newReg := func() *tooling.Registry {
		reg := tooling.NewRegistry()
		reg.Register(tooling.Tool{Name: "bench.work", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				var buf [8192]byte
				h := sha256.Sum256(buf[:])
				return int64(h[0]) + callargs.Int(c.Args, "n"), nil
			}})
		return reg
	}
	off, on := newReg(), newReg()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	if _, err := telemetry.Instrument(on, telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp)); err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"n":7}`)
	ctx := context.Background()
	var tOff, tOn []time.Duration
	call := func(reg *tooling.Registry) time.Duration {
		start := time.Now()
		if _, err := reg.Execute(ctx, "bench.work", args); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	b.ReportAllocs()
	for b.Loop() {
		tOff = append(tOff, call(off))
		tOn = append(tOn, call(on))
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	mOff, mOn := med(tOff), med(tOn)
	b.ReportMetric(mOff, "off-ns")
	b.ReportMetric(mOn, "on-ns")
	b.ReportMetric(mOn/mOff, "on/off")
}
