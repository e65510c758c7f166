package mcp

import (
	"context"
	"fmt"
	"reflect"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolexplorer/toolexplorer/internal/tracectx"
)

// Tracing: every tools/call served makes a server span, and every
// tools/call sent to a remote server a client span, both named
// "tools/call {tool}", with the trace context carried in the request's
// _meta (traceparent, tracestate, baggage), so that a trace runs from an
// MCP host through a gateway into a remote server. The spans are made with
// OpenTelemetry's global tracer provider (the client span with the
// provider of the span it continues, when there is one) and the context is
// carried by W3C trace context and OpenTelemetry's global propagator:
// with neither set, they cost next to nothing and record nothing. While
// the global provider records nothing (none was set, or a no-op one), a
// served call makes no server span at all: the trace context of its _meta
// is carried on in its context all the same, which is all such a span
// would have done.

// traceScope is the instrumentation scope of the MCP spans.
const traceScope = "github.com/toolexplorer/toolexplorer/mcp"

// The attributes of the MCP spans.
const (
	attrMethod    = attribute.Key("mcp.method.name")
	attrSession   = attribute.Key("mcp.session.id")
	attrToolName  = attribute.Key("gen_ai.tool.name")
	attrOperation = attribute.Key("gen_ai.operation.name")
	attrErrorType = attribute.Key("error.type")
)

// propagator carries the trace context in _meta: W3C trace context always
// (MCP's traceparent), and whatever the program set as global.
func propagator() propagation.TextMapPropagator {
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, otel.GetTextMapPropagator())
}

// metaCarrier is a request's _meta as a propagation carrier; string values
// only.
type metaCarrier struct{ m map[string]any }

func (c metaCarrier) Get(key string) string {
	s, _ := c.m[key].(string)
	return s
}

func (c metaCarrier) Set(key, value string) { c.m[key] = value }

func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c.m))
	for k := range c.m {
		keys = append(keys, k)
	}
	return keys
}

// serverSpans makes the server span of each tools/call served, continuing
// the trace of the context in its _meta.
func serverSpans(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		call, ok := req.(*sdk.CallToolRequest)
		if !ok || call.Params == nil {
			return next(ctx, method, req)
		}
		tracer, records := serverTracer()
		if !records && !trace.SpanFromContext(ctx).IsRecording() {
			// The span would record nothing and carry on the context
			// it was started in: the context is carried on as it is.
			if meta := call.Params.GetMeta(); meta != nil {
				ctx = propagator().Extract(ctx, metaCarrier{meta})
			}
			return next(ctx, method, req)
		}
		ctx, span := startServerSpan(ctx, tracer, method, call)
		defer span.End()
		res, err := next(ctx, method, req)
		endSpan(span, res, err)
		return res, err
	}
}

// startServerSpan starts the server span of call. It is a function of its
// own so that its attributes are off the stack while the call runs.
func startServerSpan(ctx context.Context, tracer trace.Tracer, method string, call *sdk.CallToolRequest) (context.Context, trace.Span) {
	tool := call.Params.Name
	if meta := call.Params.GetMeta(); meta != nil {
		ctx = propagator().Extract(ctx, metaCarrier{meta})
	}
	attrs := []attribute.KeyValue{attrMethod.String(method), attrOperation.String("execute_tool"), attrToolName.String(tool)}
	if ss := call.Session; ss != nil && ss.ID() != "" {
		attrs = append(attrs, attrSession.String(ss.ID()))
	}
	return tracer.Start(ctx, method+" "+tool, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
}

// tracerOf is the tracer of the MCP spans from one provider, and whether
// its spans may record anything.
type tracerOf struct {
	tp      trace.TracerProvider
	t       trace.Tracer
	records bool
}

// lastTracer is the tracer of the global provider it was last taken from,
// when that provider can be compared.
var lastTracer atomic.Pointer[tracerOf]

// serverTracer is the tracer of the MCP spans from the global provider,
// taken from it once for as long as it stays the global provider (a
// provider's Tracer takes a lock and looks the scope up), and whether its
// spans may record anything (recordsSpans).
func serverTracer() (trace.Tracer, bool) {
	tp := otel.GetTracerProvider()
	if last := lastTracer.Load(); last != nil && last.tp == tp {
		return last.t, last.records
	}
	t := tp.Tracer(traceScope)
	records := recordsSpans(t)
	if reflect.TypeOf(tp).Comparable() {
		lastTracer.Store(&tracerOf{tp, t, records})
	}
	return t, records
}

// globalPkg is the package of OpenTelemetry's global provider as it is
// until a program sets one: its tracers make spans that record nothing.
const globalPkg = "go.opentelemetry.io/otel/internal/global"

// recordsSpans reports whether the spans of t may record anything: not
// when t is a no-op tracer, nor when it is a tracer of the global provider
// made before any provider was set (once one is set, the global provider's
// Tracer returns the first provider set, and its earlier tracers forward
// to it). The global provider stays the same value until a program sets
// another, which is when serverTracer asks again. (OpenTelemetry's
// automatic instrumentation, attached to a process from outside, records
// the global provider's spans before any is set; it does not see the
// served calls'.)
func recordsSpans(t trace.Tracer) bool {
	if _, ok := t.(noop.Tracer); ok {
		return false
	}
	typ := reflect.TypeOf(t)
	return typ.Kind() != reflect.Pointer || typ.Elem().PkgPath() != globalPkg || typ.Elem().Name() != "tracer"
}

// clientSpans makes the client span of each tools/call sent, and puts its
// context in the request's _meta.
func clientSpans(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		params, ok := req.GetParams().(*sdk.CallToolParams)
		if !ok || params == nil {
			return next(ctx, method, req)
		}
		tp := otel.GetTracerProvider()
		if parent := trace.SpanFromContext(ctx); parent.SpanContext().IsValid() {
			tp = parent.TracerProvider()
		}
		ctx, span := tp.Tracer(traceScope).Start(ctx, method+" "+params.Name, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attrMethod.String(method), attrOperation.String("execute_tool"), attrToolName.String(params.Name)))
		defer span.End()
		if span.SpanContext().IsValid() {
			meta := params.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			tracectx.Propagator(ctx).Inject(ctx, metaCarrier{meta})
			params.SetMeta(meta)
		}
		res, err := next(ctx, method, req)
		endSpan(span, res, err)
		return res, err
	}
}

// endSpan marks span failed when the call failed: a JSON-RPC error, or a
// tool result with isError.
func endSpan(span trace.Span, res sdk.Result, err error) {
	switch r, _ := res.(*sdk.CallToolResult); {
	case err != nil:
		span.SetAttributes(attrErrorType.String(fmt.Sprintf("%T", err)))
		span.SetStatus(codes.Error, err.Error())
	case r != nil && r.IsError:
		span.SetAttributes(attrErrorType.String("tool_error"))
		span.SetStatus(codes.Error, "the tool's result is an error")
	}
}
