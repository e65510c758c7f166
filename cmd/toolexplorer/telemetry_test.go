package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestServeMetricsAndOTLP: serve --http with --metrics serves the calls'
// metrics for Prometheus, and the config's telemetry.otlp sends spans and
// metrics to a collector, what is left sent when serve ends.
func TestServeMetricsAndOTLP(t *testing.T) {
	t.Cleanup(func() { tooling.Default().SetConsentFunc(nil) })
	var mu sync.Mutex
	exports := map[string]int{}
	col := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		exports[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer col.Close()
	cfg := writeFile(t, "c.json", `{"telemetry": {"otlp": {"endpoint": "`+col.URL+`"}}}`)

	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			if code := <-done; code != exitOK {
				t.Errorf("serve: exit %d: %s", code, stderr.String())
			}
		}
	}
	defer stop()
	field := func(prefix string) string {
		return waitFor(t, func() (string, bool) {
			_, after, ok := strings.Cut(stderr.String(), prefix)
			line, _, _ := strings.Cut(after, "\n")
			return strings.TrimSpace(line), ok && strings.Contains(after, "\n")
		})
	}
	mcpURL, metricsURL := field("serving MCP at "), field("serving metrics at ")

	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: mcpURL, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "demo__echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
	}
	cs.Close()

	resp, err := http.Get(metricsURL)
	if err != nil {
		t.Fatal(err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	var calls float64
	for _, m := range fams["tool_invocations_total"].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "tool" && l.GetValue() == "demo.echo" {
				calls += m.GetCounter().GetValue()
			}
		}
	}
	if calls != 2 {
		t.Errorf("tool_invocations_total{tool=demo.echo} = %v, want 2", calls)
	}
	for _, name := range []string{"tool_latency_seconds", "tool_in_flight", "tool_queue", "tool_budget_bytes_total"} {
		if fams[name] == nil {
			t.Errorf("no %s in /metrics", name)
		}
	}

	stop()
	mu.Lock()
	defer mu.Unlock()
	if exports["/v1/traces"] == 0 || exports["/v1/metrics"] == 0 {
		t.Errorf("the collector got %v, want spans and metrics", exports)
	}
}
