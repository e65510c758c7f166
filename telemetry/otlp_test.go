package telemetry_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/toolexplorer/toolexplorer/telemetry"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// collector is a tiny OTLP/HTTP collector that counts the requests to
// each path and the header it was given.
type collector struct {
	mu       sync.Mutex
	requests map[string]int
	keys     map[string]bool
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	if r.Method == http.MethodPost && r.Header.Get("Content-Type") == "application/x-protobuf" && len(body) > 0 {
		c.requests[r.URL.Path]++
	}
	c.keys[r.Header.Get("X-Key")] = true
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

func TestOTLPExportsSpansAndMetricsToTheCollector(t *testing.T) {
	col := &collector{requests: map[string]int{}, keys: map[string]bool{}}
	srv := httptest.NewServer(col)
	defer srv.Close()
	ctx := context.Background()
	tp, reader, err := telemetry.OTLP(ctx, srv.URL, map[string]string{"X-Key": "k1"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "text.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) { return "x", nil }})
	if _, err := telemetry.Instrument(reg, telemetry.WithTracerProvider(tp), telemetry.WithMeterProvider(mp)); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Execute(ctx, "text.echo", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	// Shutting down sends what is batched: no waiting for an interval.
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if col.requests["/v1/traces"] != 1 || col.requests["/v1/metrics"] != 1 || !col.keys["k1"] || len(col.keys) != 1 {
		t.Fatalf("collector got %v with keys %v, want one export of traces and one of metrics, each with the header", col.requests, col.keys)
	}
	if _, _, err := telemetry.OTLP(ctx, "collector:4318", nil, 0); err == nil {
		t.Error("an endpoint without a scheme was taken")
	}
}
