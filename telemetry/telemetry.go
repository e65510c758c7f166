package telemetry

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexplorer/toolexplorer/internal/tracectx"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// ScopeName is the instrumentation scope of the spans and metrics.
const ScopeName = "github.com/toolexplorer/toolexplorer/telemetry"

// Option configures Instrument.
type Option func(*config)

type config struct {
	tp      trace.TracerProvider
	mp      metric.MeterProvider
	prop    propagation.TextMapPropagator
	content bool
	subject bool
}

// WithTracerProvider makes the spans with tp. Default: the global tracer
// provider (otel.GetTracerProvider) as it is when Instrument is called.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(c *config) { c.tp = tp }
}

// WithMeterProvider makes the metrics with mp. Default: the global meter
// provider (otel.GetMeterProvider) as it is when Instrument is called.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) { c.mp = mp }
}

// WithPropagators carries a call's trace onward with p: into the headers
// of a file tool's HTTP requests (each a client span under the call's) and
// the _meta of a remote MCP tool's calls. Default: W3C trace context and
// the global propagator (otel.GetTextMapPropagator) together.
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.prop = p }
}

// WithContent records a call's arguments and output, as JSON, on its span
// (gen_ai.tool.call.arguments, gen_ai.tool.call.result). Default: never,
// since they may hold personal data and secrets; a call refused before its
// arguments were validated records none.
func WithContent() Option { return func(c *config) { c.content = true } }

// WithSubject records the principal's subject on a call's span
// (toolexplorer.subject). Default: only the tenant is recorded.
func WithSubject() Option { return func(c *config) { c.subject = true } }

// Telemetry is a registry's instrumentation, from Instrument until Close.
type Telemetry struct {
	reg     *tooling.Registry
	tracer  trace.Tracer
	prop    propagation.TextMapPropagator // nil: tracectx's default
	content bool
	subject bool
	m       *instruments

	calls   sync.Map // call id → *callSpan, between a call's begin and end
	stopped atomic.Bool
	remove  func()
}

// callSpan is a call's span between its begin and end events.
type callSpan struct {
	span  trace.Span
	start time.Time
}

// Instrument makes a span and metrics of every call r runs from now on,
// until Close. It adds an audit hook (Registry.Audit) and a middleware
// (Registry.Use); the middleware should stay the outermost, so Instrument
// comes before the other middleware a host adds. Spans are keyed by call
// id: a host that sets its own ids (tooling.WithCallID) keeps them unique
// among the calls in flight.
func Instrument(r *tooling.Registry, opts ...Option) (*Telemetry, error) {
	if r == nil {
		return nil, errors.New("telemetry: Instrument needs a registry")
	}
	var c config
	for _, o := range opts {
		o(&c)
	}
	if c.tp == nil {
		c.tp = otel.GetTracerProvider()
	}
	if c.mp == nil {
		c.mp = otel.GetMeterProvider()
	}
	t := &Telemetry{reg: r, content: c.content, subject: c.subject, prop: c.prop,
		tracer: c.tp.Tracer(ScopeName)}
	m, err := newInstruments(c.mp.Meter(ScopeName), r)
	if err != nil {
		return nil, err
	}
	t.m = m
	r.Use(t.middleware)
	t.remove = r.Audit(t.audit)
	return t, nil
}

// Close stops the instrumentation: calls that start afterwards make no
// span and are not counted. A call in flight keeps its span open until
// it ends.
func (t *Telemetry) Close() {
	if t.stopped.Swap(true) {
		return
	}
	t.remove()
	t.m.close()
}

// audit opens a call's span at its begin event and closes it, and counts
// the call, at its end.
func (t *Telemetry) audit(ctx context.Context, ev tooling.Event) {
	if ev.State != "" { // a change of a tool's state, not a call
		return
	}
	if !ev.End {
		t.begin(ctx, ev)
		return
	}
	v, ok := t.calls.LoadAndDelete(ev.CallID)
	if !ok {
		return
	}
	cs := v.(*callSpan)
	t.m.record(ctx, ev, ev.Time.Sub(cs.start))
	span := cs.span
	if !span.IsRecording() {
		span.End(trace.WithTimestamp(ev.Time))
		return
	}
	code := "ok"
	if ev.Code != tooling.CodeOK {
		code = string(ev.Code)
	}
	span.SetAttributes(AttrCode.String(code), AttrStatus.String(ev.Status),
		AttrWaitMS.Float64(ms(ev.Wait)), AttrRunMS.Float64(ms(ev.Run)))
	for _, d := range ev.Governance {
		span.AddEvent("governance", trace.WithTimestamp(ev.Time), trace.WithAttributes(AttrStep.String(d.Step), AttrDetail.String(d.Detail)))
		if hash, ok := strings.CutPrefix(d.Detail, "profile "); ok && d.Step == "confine" {
			span.SetAttributes(AttrProfileHash.String(hash))
		}
	}
	if ev.Code != tooling.CodeOK {
		span.SetAttributes(AttrErrorType.String(string(ev.Code)))
		span.SetStatus(codes.Error, string(ev.Code))
	}
	span.End(trace.WithTimestamp(ev.Time))
}

func (t *Telemetry) begin(ctx context.Context, ev tooling.Event) {
	attrs := make([]attribute.KeyValue, 0, 8)
	attrs = append(attrs, AttrOperationName.String("execute_tool"), AttrToolName.String(ev.Tool),
		AttrToolCallID.String(ev.CallID), AttrOrigin.String(string(ev.Origin)))
	if tool, ok := t.reg.Lookup(ev.Tool); ok {
		attrs = append(attrs, AttrToolType.String(toolType(tool.Source)))
		if tool.Description != "" {
			attrs = append(attrs, AttrToolDescription.String(tool.Description))
		}
	}
	if ev.Principal.Tenant != "" {
		attrs = append(attrs, AttrTenant.String(ev.Principal.Tenant))
	}
	if t.subject && ev.Principal.Subject != "" {
		attrs = append(attrs, AttrSubject.String(ev.Principal.Subject))
	}
	_, span := t.tracer.Start(ctx, "execute_tool "+ev.Tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(ev.Time), trace.WithAttributes(attrs...))
	if _, dup := t.calls.LoadOrStore(ev.CallID, &callSpan{span: span, start: ev.Time}); dup {
		// Another call in flight has this id: this one makes no span.
		span.End()
	}
}

// middleware runs the call with its span in ctx, so that what the tool
// does joins the trace, and adds to the span what only the call knows: its
// confinement, its governance decisions, and its content when asked for.
func (t *Telemetry) middleware(next tooling.Handler) tooling.Handler {
	return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
		if t.stopped.Load() {
			return next(ctx, c)
		}
		v, ok := t.calls.Load(c.ID)
		if !ok {
			return next(ctx, c)
		}
		span := v.(*callSpan).span
		ctx = trace.ContextWithSpan(ctx, span)
		if t.prop != nil {
			ctx = tracectx.WithPropagator(ctx, t.prop)
		}
		recording := span.IsRecording()
		var confined bool
		if recording {
			if c.Meta().Confine != nil {
				confined = true
				span.SetAttributes(AttrConfined.Bool(true))
			}
			if t.content {
				span.SetAttributes(AttrToolArguments.String(string(c.Raw())))
			}
		}
		res, err := next(ctx, c)
		if recording && res != nil {
			if confined && res.Run > 0 {
				t.childSpan(ctx, c.Tool, res)
			}
			if t.content && len(res.Output) > 0 {
				span.SetAttributes(AttrToolResult.String(string(res.Output)))
			}
		}
		return res, err
	}
}

// childSpan records the confined child's run as a span of its own under
// the call's: it ends now and lasted the call's run time.
func (t *Telemetry) childSpan(ctx context.Context, tool string, res *tooling.Result) {
	end := time.Now()
	_, span := t.tracer.Start(ctx, "confined_child "+tool, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithTimestamp(end.Add(-res.Run)), trace.WithAttributes(AttrToolName.String(tool), AttrConfined.Bool(true)))
	if res.Code != tooling.CodeOK {
		span.SetStatus(codes.Error, string(res.Code))
	}
	span.End(trace.WithTimestamp(end))
}

// toolType is gen_ai.tool.type for a tool of source src (tooling.Tool.Source).
func toolType(src string) string {
	if strings.HasPrefix(src, "file:") || strings.HasPrefix(src, "mcp:") {
		return "extension"
	}
	return "function"
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
