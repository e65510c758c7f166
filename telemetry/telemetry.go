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
	otelcodes "go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexplorer/toolexplorer/internal/tracectx"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
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

	mu      sync.Mutex
	calls   map[string]callSpan // call id → its span, between the call's begin and end
	spans   sync.Map            // callKey → *toolSpan, at most maxSets
	nspans  atomic.Int64        // entries of spans
	events  sync.Map            // tooling.Decision → trace.EventOption, at most maxSets
	nevents atomic.Int64        // entries of events
	stopped atomic.Bool
	remove  func()
}

// callSpan is a call's span between its begin and end events, with the
// attribute sets of its measurements.
type callSpan struct {
	span  trace.Span
	start time.Time
	sets  *callSets
}

// toolSpan is what the spans of one tool's calls from one origin and
// tenant share, made once rather than for each call: their name and the
// attributes that do not change from call to call.
type toolSpan struct {
	desc, source string // the tool's Description and Source it was made from
	name         string // "execute_tool NAME"
	attrs        trace.SpanStartOption
	sets         *callSets // the attribute sets of the calls' measurements
}

// spanKind is the kind of a call's span, an option made once.
var spanKind = trace.WithSpanKind(trace.SpanKindInternal)

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
		tracer: c.tp.Tracer(ScopeName), calls: map[string]callSpan{}}
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
		t.begin(ctx, &ev)
		return
	}
	t.mu.Lock()
	cs, ok := t.calls[ev.CallID]
	delete(t.calls, ev.CallID)
	t.mu.Unlock()
	if !ok {
		return
	}
	t.m.record(metricContext, &ev, cs.sets, ev.Time.Sub(cs.start))
	span := cs.span
	at := trace.WithTimestamp(ev.Time)
	if !span.IsRecording() {
		span.End(at)
		return
	}
	code := "ok"
	if ev.Code != codes.OK {
		code = string(ev.Code)
	}
	span.SetAttributes(AttrToolCallID.String(ev.CallID), AttrCode.String(code), AttrStatus.String(ev.Status),
		AttrWaitMS.Float64(ms(ev.Wait)), AttrRunMS.Float64(ms(ev.Run)))
	for _, d := range ev.Governance {
		span.AddEvent("governance", at, t.decision(d))
		if hash, ok := strings.CutPrefix(d.Detail, "profile "); ok && d.Step == "confine" {
			span.SetAttributes(AttrProfileHash.String(hash))
		}
	}
	if ev.Code != codes.OK {
		span.SetAttributes(AttrErrorType.String(string(ev.Code)))
		span.SetStatus(otelcodes.Error, string(ev.Code))
	}
	span.End(at)
}

// metricContext is the context measurements are recorded in: one without
// a span, so that they carry no exemplar (the SDK's default filter would
// make one for each of a sampled call's six measurements), and whose
// values cost nothing to look up.
var metricContext = context.Background()

// decision is the attributes of a governance event of d, made once for
// each decision (up to maxSets of them; most repeat from call to call).
func (t *Telemetry) decision(d tooling.Decision) trace.EventOption {
	if o, ok := t.events.Load(d); ok {
		return o.(trace.EventOption)
	}
	o := trace.WithAttributes(AttrStep.String(d.Step), AttrDetail.String(d.Detail))
	if t.nevents.Load() < maxSets {
		if _, loaded := t.events.LoadOrStore(d, o); !loaded {
			t.nevents.Add(1)
		}
	}
	return o
}

// toolSpan returns what the spans of ev's tool, origin and tenant share,
// with the attribute sets of their measurements, made when first needed
// and again when the tool's description or source changed.
func (t *Telemetry) toolSpan(ev *tooling.Event) *toolSpan {
	tool, found := t.reg.Lookup(ev.Tool)
	k := callKey{ev.Tool, string(ev.Origin), ev.Principal.Tenant}
	if v, ok := t.spans.Load(k); ok {
		ts := v.(*toolSpan)
		if ts.desc == tool.Description && ts.source == tool.Source {
			return ts
		}
	}
	attrs := []attribute.KeyValue{AttrOperationName.String("execute_tool"), AttrToolName.String(ev.Tool)}
	if found {
		attrs = append(attrs, AttrToolType.String(toolType(tool.Source)))
		if tool.Description != "" {
			attrs = append(attrs, AttrToolDescription.String(tool.Description))
		}
	}
	attrs = append(attrs, AttrOrigin.String(string(ev.Origin)))
	if ev.Principal.Tenant != "" {
		attrs = append(attrs, AttrTenant.String(ev.Principal.Tenant))
	}
	ts := &toolSpan{desc: tool.Description, source: tool.Source, name: "execute_tool " + ev.Tool, attrs: trace.WithAttributes(attrs...),
		sets: t.m.callSets(ev.Tool, ev.Origin, ev.Principal.Tenant)}
	if !found { // a name that is no tool is not kept
		return ts
	}
	if _, loaded := t.spans.Swap(k, ts); !loaded && t.nspans.Add(1) > maxSets {
		t.spans.Delete(k) // many tenants: made for each call past maxSets
		t.nspans.Add(-1)
	}
	return ts
}

func (t *Telemetry) begin(ctx context.Context, ev *tooling.Event) {
	ts := t.toolSpan(ev)
	// The SDK looks the parent span up in ctx several times; the hook's
	// context (context.WithoutCancel's) allocates on each look-up. The
	// span found once, set again on top, is found at once: the same
	// parent, and every other value of ctx as it was.
	ctx = trace.ContextWithSpan(ctx, trace.SpanFromContext(ctx))
	// The call id is set with the attributes of the end, which are set
	// anyway: one option less to make per call.
	var span trace.Span
	if t.subject && ev.Principal.Subject != "" {
		_, span = t.tracer.Start(ctx, ts.name, spanKind, trace.WithTimestamp(ev.Time), ts.attrs, trace.WithAttributes(AttrSubject.String(ev.Principal.Subject)))
	} else {
		_, span = t.tracer.Start(ctx, ts.name, spanKind, trace.WithTimestamp(ev.Time), ts.attrs)
	}
	t.mu.Lock()
	_, dup := t.calls[ev.CallID]
	if !dup {
		t.calls[ev.CallID] = callSpan{span: span, start: ev.Time, sets: ts.sets}
	}
	t.mu.Unlock()
	if dup {
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
		t.mu.Lock()
		cs, ok := t.calls[c.ID]
		t.mu.Unlock()
		if !ok {
			return next(ctx, c)
		}
		span := cs.span
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
	if res.Code != codes.OK {
		span.SetStatus(otelcodes.Error, string(res.Code))
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
