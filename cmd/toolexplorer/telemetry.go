package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/toolexplorer/toolexplorer/telemetry"
)

// startTelemetry instruments the registry when the config's telemetry.otlp
// or metricsAddr (serve --metrics) asks for it: spans and metrics exported
// to the collector, metrics served at http://metricsAddr/metrics. stop
// flushes what is left and stops serving; it is a no-op when nothing was
// asked for.
func (a *app) startTelemetry(metricsAddr string) (stop func(), err error) {
	cfg := a.cfg.Telemetry
	if metricsAddr == "" && cfg.OTLP == nil {
		return func() {}, nil
	}
	var (
		tp    *sdktrace.TracerProvider
		mopts []sdkmetric.Option
		stops []func(context.Context)
	)
	stopAll := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i](ctx)
		}
	}
	if cfg.OTLP != nil {
		var reader sdkmetric.Reader
		tp, reader, err = telemetry.OTLP(a.ctx, cfg.OTLP.Endpoint, cfg.OTLP.Headers, cfg.OTLP.Interval)
		if err != nil {
			return nil, err
		}
		mopts = append(mopts, sdkmetric.WithReader(reader))
		// The MCP spans (served calls, calls of remote servers) use the
		// global provider and propagator.
		oldTP, oldProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
		otel.SetTracerProvider(tp)
		otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
		stops = append(stops, func(ctx context.Context) {
			otel.SetTracerProvider(oldTP)
			otel.SetTextMapPropagator(oldProp)
			_ = tp.Shutdown(ctx)
		})
	}
	var mp *sdkmetric.MeterProvider
	if metricsAddr != "" {
		var h http.Handler
		if mp, h, err = telemetry.Prometheus(mopts...); err != nil {
			stopAll()
			return nil, err
		}
		ln, err := net.Listen("tcp", metricsAddr)
		if err != nil {
			stopAll()
			_ = mp.Shutdown(context.Background())
			return nil, fmt.Errorf("--metrics: %w", err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", h)
		hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		done := make(chan struct{})
		go func() {
			defer close(done)
			if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
				a.errorf("--metrics: %v", err)
			}
		}()
		fmt.Fprintf(a.stderr, "toolexplorer: serving metrics at http://%s/metrics\n", ln.Addr())
		stops = append(stops, func(ctx context.Context) {
			if err := hs.Shutdown(ctx); err != nil {
				hs.Close()
			}
			<-done
		})
	} else {
		mp = sdkmetric.NewMeterProvider(mopts...)
	}
	stops = append(stops, func(ctx context.Context) { _ = mp.Shutdown(ctx) })
	opts := []telemetry.Option{telemetry.WithMeterProvider(mp)}
	if tp != nil {
		opts = append(opts, telemetry.WithTracerProvider(tp))
	}
	if cfg.Content {
		opts = append(opts, telemetry.WithContent())
	}
	if cfg.Subject {
		opts = append(opts, telemetry.WithSubject())
	}
	tel, err := telemetry.Instrument(a.reg, opts...)
	if err != nil {
		stopAll()
		return nil, err
	}
	stops = append(stops, func(context.Context) { tel.Close() })
	return stopAll, nil
}
