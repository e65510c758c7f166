package telemetry

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// Prometheus returns a meter provider whose metrics h serves in
// Prometheus' text format, through OpenTelemetry's Prometheus exporter on
// a Prometheus registry of its own (never the client library's default
// one, so that nothing else the program links shows up). opts are passed
// to the meter provider (a resource, views). Give mp to Instrument
// (WithMeterProvider), serve h at /metrics, and shut mp down when the
// program ends.
func Prometheus(opts ...sdkmetric.Option) (mp *sdkmetric.MeterProvider, h http.Handler, err error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
	if err != nil {
		return nil, nil, err
	}
	mp = sdkmetric.NewMeterProvider(append(opts, sdkmetric.WithReader(exp))...)
	return mp, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}), nil
}
