package telemetry_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric"
	mnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tnoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/toolexplorer/toolexplorer/telemetry"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// BenchmarkExecuteTelemetryParts says where the time of telemetry goes:
// the calls of six registries made in turn (each round starting with the
// next, so that none gains from its place), and the median call of each
// against the one without telemetry (off): with an empty audit hook
// (hook: the registry's own cost of a hook, the digests and events),
// instrumented with no-op providers (noop: the instrumentation's own
// work), with the SDK's tracer and a no-op meter (trace), with a no-op
// tracer and the SDK's meter (metric), and with both (both, as
// ExecuteTelemetryPaired's on).
func BenchmarkExecuteTelemetryParts(b *testing.B) {
	newReg := func() *tooling.Registry {
		reg := tooling.NewRegistry()
		reg.Register(tooling.Tool{Name: "bench.work", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				var buf [8192]byte
				h := sha256.Sum256(buf[:])
				return int64(h[0]) + c.Int("n"), nil
			}})
		return reg
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	off, tr, me, noop, both := newReg(), newReg(), newReg(), newReg(), newReg()
	b.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	for _, in := range []struct {
		r  *tooling.Registry
		tp trace.TracerProvider
		mp metric.MeterProvider
	}{{tr, tp, mnoop.NewMeterProvider()}, {me, tnoop.NewTracerProvider(), mp}, {noop, tnoop.NewTracerProvider(), mnoop.NewMeterProvider()}, {both, tp, mp}} {
		if _, err := telemetry.Instrument(in.r, telemetry.WithTracerProvider(in.tp), telemetry.WithMeterProvider(in.mp)); err != nil {
			b.Fatal(err)
		}
	}
	hook := newReg()
	hook.Audit(func(context.Context, tooling.Event) {})
	regs := []*tooling.Registry{off, hook, noop, tr, me, both}
	names := []string{"off", "hook", "noop", "trace", "metric", "both"}
	args := json.RawMessage(`{"n":7}`)
	ctx := context.Background()
	ts := make([][]time.Duration, len(regs))
	round := 0
	for b.Loop() {
		round++
		for j := range regs {
			i := (j + round) % len(regs)
			r := regs[i]
			start := time.Now()
			if _, err := r.Execute(ctx, "bench.work", args); err != nil {
				b.Fatal(err)
			}
			ts[i] = append(ts[i], time.Since(start))
		}
	}
	var m0 float64
	for i := range regs {
		slices.Sort(ts[i])
		m := float64(ts[i][len(ts[i])/2])
		if i == 0 {
			m0 = m
		}
		b.ReportMetric(m/m0, names[i])
	}
}
