package telemetry_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	mnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tnoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
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
// ExecuteTelemetryPaired's on). The last, hand, is the peer a host would
// write instead: its own span of the same name, attributes and events
// (one per governance decision) around Execute and the same measurements, on the same SDK providers, with its
// attribute sets made once; both/hand is what the package costs on top of
// the SDK's own work.
//
// In each round it also times, on the same providers, what the SDK itself
// costs: a bare span started and ended (span-ns), one with the package's
// attributes and events (full-span-ns: five attributes at the start, five
// at the end, four governance events), a counter's Add and a histogram's
// Record with an attribute set made once (add-ns, record-ns); each is the
// median of rounds of 64, divided by 64.
func BenchmarkExecuteTelemetryParts(b *testing.B) {
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
	args := json.RawMessage(`{"n":7}`)
	calls := []func(context.Context) error{}
	for _, r := range []*tooling.Registry{off, hook, noop, tr, me, both} {
		calls = append(calls, func(ctx context.Context) error { _, err := r.Execute(ctx, "bench.work", args); return err })
	}
	calls = append(calls, handInstrumented(b, newReg(), tp, mp, args))
	names := []string{"off", "hook", "noop", "trace", "metric", "both", "hand"}
	ctx := context.Background()
	ts := make([][]time.Duration, len(calls))
	bare := sdkParts(b, tp, mp)
	tb := make([][]time.Duration, len(bare))
	round := 0
	for b.Loop() {
		round++
		for j := range calls {
			i := (j + round) % len(calls)
			start := time.Now()
			if err := calls[i](ctx); err != nil {
				b.Fatal(err)
			}
			ts[i] = append(ts[i], time.Since(start))
		}
		for i, p := range bare {
			start := time.Now()
			for range 64 {
				p.f(ctx)
			}
			tb[i] = append(tb[i], time.Since(start))
		}
	}
	med := make([]float64, len(calls))
	for i := range calls {
		slices.Sort(ts[i])
		med[i] = float64(ts[i][len(ts[i])/2])
		b.ReportMetric(med[i]/med[0], names[i])
	}
	b.ReportMetric(med[5]/med[6], "both/hand")
	b.ReportMetric(med[0], "off-ns")
	for i, p := range bare {
		slices.Sort(tb[i])
		b.ReportMetric(float64(tb[i][len(tb[i])/2])/64, p.name+"-ns")
	}
}

// sdkParts are what the SDK's providers tp and mp cost, each alone.
func sdkParts(b *testing.B, tp trace.TracerProvider, mp metric.MeterProvider) []struct {
	name string
	f    func(context.Context)
} {
	tracer := tp.Tracer("bare")
	meter := mp.Meter("bare")
	counter, err1 := meter.Int64Counter("bare_counter")
	hist, err2 := meter.Float64Histogram("bare_histogram", metric.WithUnit("s"))
	if err := errors.Join(err1, err2); err != nil {
		b.Fatal(err)
	}
	set := metric.WithAttributeSet(attribute.NewSet(attribute.String("tool", "bench.work"), attribute.String("origin", "app")))
	startAttrs := trace.WithAttributes(telemetry.AttrOperationName.String("execute_tool"), telemetry.AttrToolName.String("bench.work"),
		telemetry.AttrToolType.String("function"), telemetry.AttrOrigin.String("app"), telemetry.AttrTenant.String("acme"))
	event := trace.WithAttributes(telemetry.AttrStep.String("rate"), telemetry.AttrDetail.String("no rate limit"))
	return []struct {
		name string
		f    func(context.Context)
	}{
		{"span", func(ctx context.Context) {
			_, span := tracer.Start(ctx, "bare")
			span.End()
		}},
		{"full-span", func(ctx context.Context) {
			_, span := tracer.Start(ctx, "execute_tool bench.work", startAttrs)
			for range 4 {
				span.AddEvent("governance", event)
			}
			span.SetAttributes(telemetry.AttrToolCallID.String("c-1"), telemetry.AttrCode.String("ok"), telemetry.AttrStatus.String("ok"),
				telemetry.AttrWaitMS.Float64(0), telemetry.AttrRunMS.Float64(0.01))
			span.End()
		}},
		{"add", func(ctx context.Context) { counter.Add(ctx, 1, set) }},
		{"record", func(ctx context.Context) { hist.Record(ctx, 0.001, set) }},
	}
}

// handInstrumented is a call of reg's bench.work as a host would
// instrument it by hand on tp and mp: a span named and attributed as the
// package names and attributes it, and the package's measurements
// (invocations, latency end to end, waiting and running, bytes in and
// out), their attribute sets made once, recorded without the span's
// context (no exemplars), as the package records them.
func handInstrumented(b *testing.B, reg *tooling.Registry, tp trace.TracerProvider, mp metric.MeterProvider, args json.RawMessage) func(context.Context) error {
	tracer := tp.Tracer("hand")
	meter := mp.Meter("hand")
	inv, err1 := meter.Int64Counter(telemetry.MetricInvocations)
	lat, err2 := meter.Float64Histogram(telemetry.MetricLatency, metric.WithUnit("s"))
	bytes, err3 := meter.Int64Counter(telemetry.MetricBudgetBytes)
	if err := errors.Join(err1, err2, err3); err != nil {
		b.Fatal(err)
	}
	tool := attribute.NewSet(attribute.String("tool", "bench.work"), attribute.String("origin", "app"))
	phase := func(p string) metric.MeasurementOption {
		return metric.WithAttributeSet(attribute.NewSet(attribute.String("tool", "bench.work"), attribute.String("phase", p)))
	}
	total, wait, run := phase("total"), phase("wait"), phase("run")
	in := metric.WithAttributeSet(attribute.NewSet(attribute.String("dir", "in")))
	out := metric.WithAttributeSet(attribute.NewSet(attribute.String("dir", "out")))
	start := trace.WithAttributes(telemetry.AttrOperationName.String("execute_tool"), telemetry.AttrToolName.String("bench.work"),
		telemetry.AttrToolType.String("function"), telemetry.AttrOrigin.String("app"))
	kind := trace.WithSpanKind(trace.SpanKindInternal)
	return func(ctx context.Context) error {
		begin := time.Now()
		ctx, span := tracer.Start(ctx, "execute_tool bench.work", kind, start)
		res, err := reg.Execute(ctx, "bench.work", args)
		for _, d := range res.Governance {
			span.AddEvent("governance", trace.WithAttributes(telemetry.AttrStep.String(d.Step), telemetry.AttrDetail.String(d.Detail)))
		}
		span.SetAttributes(telemetry.AttrToolCallID.String(res.CallID), telemetry.AttrCode.String(string(res.Code)), telemetry.AttrStatus.String(res.Status),
			telemetry.AttrWaitMS.Float64(float64(res.Wait)/1e6), telemetry.AttrRunMS.Float64(float64(res.Run)/1e6))
		span.End()
		ctx = context.Background() // as the package does: no exemplars
		inv.Add(ctx, 1, metric.WithAttributeSet(tool))
		lat.Record(ctx, time.Since(begin).Seconds(), total)
		lat.Record(ctx, res.Wait.Seconds(), wait)
		lat.Record(ctx, res.Run.Seconds(), run)
		bytes.Add(ctx, int64(len(args)), in)
		bytes.Add(ctx, int64(len(res.Output)), out)
		return err
	}
}
