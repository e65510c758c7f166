package telemetry_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexplorer/toolexplorer/internal/tracectx"
	"github.com/toolexplorer/toolexplorer/telemetry"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// spanIDPropagator carries the span id in x-span, to tell the host's
// propagator from the default one.
type spanIDPropagator struct{}

func (spanIDPropagator) Inject(ctx context.Context, c propagation.TextMapCarrier) {
	c.Set("x-span", trace.SpanContextFromContext(ctx).SpanID().String())
}
func (spanIDPropagator) Extract(ctx context.Context, _ propagation.TextMapCarrier) context.Context {
	return ctx
}
func (spanIDPropagator) Fields() []string { return []string{"x-span"} }

// TestWithPropagators: what a call reaches out to carries the call's
// trace with the propagator the host chose (WithPropagators), else with
// W3C trace context (traceparent).
func TestWithPropagators(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []telemetry.Option
		header string
	}{
		{"default", nil, "traceparent"},
		{"chosen", []telemetry.Option{telemetry.WithPropagators(spanIDPropagator{})}, "x-span"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.opts...)
			carried := make(chan propagation.MapCarrier, 1)
			f.reg.Register(tooling.Tool{Name: "net.fetch", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
				Run: func(ctx context.Context, c tooling.Call) (any, error) {
					m := propagation.MapCarrier{}
					tracectx.Propagator(ctx).Inject(ctx, m)
					carried <- m
					return "ok", nil
				}})
			if _, err := f.reg.Execute(context.Background(), "net.fetch", json.RawMessage(`{}`)); err != nil {
				t.Fatal(err)
			}
			m := <-carried
			span := f.spans.Ended()[0].SpanContext()
			if len(m) != 1 || m[tc.header] == "" {
				t.Fatalf("carried %v, want only %s", m, tc.header)
			}
			if v := m[tc.header]; !contains(v, span.SpanID().String()) {
				t.Fatalf("%s = %q, want the call's span %s", tc.header, v, span.SpanID())
			}
		})
	}
}

func contains(s, sub string) bool { return sub != "" && strings.Contains(s, sub) }
