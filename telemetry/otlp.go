package telemetry

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// OTLP returns a tracer provider that exports its spans, in batches, and a
// metric reader that exports the metrics every interval (zero: 60s), to
// the OpenTelemetry collector at endpoint over OTLP/HTTP: endpoint is the
// collector's base URL ("http://collector:4318"), spans go to /v1/traces
// and metrics to /v1/metrics under it, each request with headers. Give the
// reader to a meter provider (sdkmetric.WithReader, or Prometheus' opts),
// and shut both down when the program ends: that sends what is left.
func OTLP(ctx context.Context, endpoint string, headers map[string]string, interval time.Duration) (*sdktrace.TracerProvider, sdkmetric.Reader, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, nil, errors.New("telemetry: the OTLP endpoint must be an http or https URL, such as http://collector:4318")
	}
	base := strings.TrimSuffix(endpoint, "/")
	spans, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(base+"/v1/traces"), otlptracehttp.WithHeaders(headers))
	if err != nil {
		return nil, nil, err
	}
	metrics, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(base+"/v1/metrics"), otlpmetrichttp.WithHeaders(headers))
	if err != nil {
		_ = spans.Shutdown(ctx)
		return nil, nil, err
	}
	if interval <= 0 {
		interval = time.Minute
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(spans)),
		sdkmetric.NewPeriodicReader(metrics, sdkmetric.WithInterval(interval)), nil
}
