package bindings

import (
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexplorer/toolexplorer/internal/tracectx"
)

// Tracing: each attempt of an HTTP tool's request is a client span,
// "{method} {path}" (the path as the tools file writes it), under the span
// of the call in the request's context, made with that span's tracer
// provider; its context goes to the server in the request's headers
// (traceparent), carried by the call's propagator (tracectx: the host's
// telemetry.WithPropagators, else W3C trace context and the global one).
// A call with no span (telemetry off) makes none and sends no header.

// traceScope is the instrumentation scope of the bindings' spans.
const traceScope = "github.com/toolexplorer/toolexplorer/bindings"

// startSpan starts the client span of the attempt hr, and puts its context
// in hr's headers; nil when hr's context has no span.
func (b *httpBinding) startSpan(hr *http.Request) trace.Span {
	parent := trace.SpanFromContext(hr.Context())
	if !parent.SpanContext().IsValid() {
		return nil
	}
	attrs := []attribute.KeyValue{attribute.String("http.request.method", b.method), attribute.String("url.template", b.route),
		attribute.String("url.scheme", hr.URL.Scheme), attribute.String("server.address", hr.URL.Hostname())}
	if port, err := strconv.Atoi(hr.URL.Port()); err == nil {
		attrs = append(attrs, attribute.Int("server.port", port))
	}
	ctx, span := parent.TracerProvider().Tracer(traceScope).Start(hr.Context(), b.method+" "+b.route,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	tracectx.Propagator(ctx).Inject(ctx, propagation.HeaderCarrier(hr.Header))
	return span
}

// endSpan ends span (nil: none) with the response's status, or err when
// there was none.
func endSpan(span trace.Span, status int, err error) {
	if span == nil {
		return
	}
	if status > 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", status))
	}
	switch {
	case err != nil:
		span.SetAttributes(attribute.String("error.type", "request_failed"))
		span.SetStatus(codes.Error, err.Error())
	case status >= 400:
		span.SetAttributes(attribute.String("error.type", strconv.Itoa(status)))
		span.SetStatus(codes.Error, "")
	}
	span.End()
}
