package tracectx

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

type key struct{}

// WithPropagator returns ctx carrying p.
func WithPropagator(ctx context.Context, p propagation.TextMapPropagator) context.Context {
	return context.WithValue(ctx, key{}, p)
}

// Propagator is the propagator ctx carries (WithPropagator), else W3C
// trace context and OpenTelemetry's global propagator together.
func Propagator(ctx context.Context) propagation.TextMapPropagator {
	if p, ok := ctx.Value(key{}).(propagation.TextMapPropagator); ok {
		return p
	}
	return propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, otel.GetTextMapPropagator())
}
