package bindings

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexplorer/toolexplorer/internal/tracectx"
)

// headerPropagator puts the span id in x-test-span, to tell a propagator
// the host chose from the default one.
type headerPropagator struct{}

func (headerPropagator) Inject(ctx context.Context, c propagation.TextMapCarrier) {
	c.Set("x-test-span", trace.SpanContextFromContext(ctx).SpanID().String())
}

func (headerPropagator) Extract(ctx context.Context, _ propagation.TextMapCarrier) context.Context {
	return ctx
}

func (headerPropagator) Fields() []string { return []string{"x-test-span"} }

// TestHTTPClientSpans: each attempt of a file tool's HTTP request is a
// client span under the call's span, and its context reaches the server in
// traceparent (a 503 then a 200: two attempts, two spans); a call with
// another propagator sends its header instead; a call with no span sends
// none.
func TestHTTPClientSpans(t *testing.T) {
	var mu sync.Mutex
	var got []http.Header
	var n int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Clone())
		n++
		first := n == 1
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if first {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	file := `sources:
  api: {http: {base_url: "` + srv.URL + `", allow_private: true}}
tools:
  - name: t.get
    meta: {effects: [read, network], concurrency: read_only}
    binding: {http: {source: api, path: "/orders/{id}"}}
    input: {type: object, properties: {id: {type: string}}, required: [id]}
`
	_, r := loadInto(t, map[string]string{"f.yaml": file}, Options{})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer tp.Shutdown(context.Background())

	ctx, call := tp.Tracer("test").Start(context.Background(), "execute_tool t.get")
	res, err := r.Execute(ctx, "t.get", []byte(`{"id":"42"}`))
	call.End()
	if err != nil || !res.OK() {
		t.Fatalf("call: %v %+v", err, res)
	}
	var clients []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		if s.SpanKind() == trace.SpanKindClient {
			clients = append(clients, s)
		}
	}
	if len(clients) != 2 || len(got) != 2 {
		t.Fatalf("%d client spans, %d requests; want 2 of each (a 503, then a 200)", len(clients), len(got))
	}
	for i, s := range clients {
		if s.Name() != "GET /orders/{id}" || s.Parent().SpanID() != call.SpanContext().SpanID() {
			t.Errorf("span %d: %q under %v; want GET /orders/{id} under the call's span", i, s.Name(), s.Parent().SpanID())
		}
		tp := got[i].Get("traceparent")
		if want := s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String(); !strings.Contains(tp, want) {
			t.Errorf("request %d: traceparent %q; want the trace and span of its client span (%s)", i, tp, want)
		}
		attrs := map[string]string{}
		for _, kv := range s.Attributes() {
			attrs[string(kv.Key)] = kv.Value.String()
		}
		if want := []string{"503", "200"}[i]; attrs["http.response.status_code"] != want || attrs["http.request.method"] != "GET" || attrs["server.address"] != "127.0.0.1" {
			t.Errorf("span %d attributes %v; want GET to 127.0.0.1, status %s", i, attrs, want)
		}
	}

	reset := func() { mu.Lock(); got, n = nil, 1; mu.Unlock() } // the next request is answered 200 at once
	reset()
	ctx, call = tp.Tracer("test").Start(context.Background(), "execute_tool t.get")
	if _, err := r.Execute(tracectx.WithPropagator(ctx, headerPropagator{}), "t.get", []byte(`{"id":"42"}`)); err != nil {
		t.Fatal(err)
	}
	call.End()
	if len(got) != 1 || got[0].Get("x-test-span") == "" || got[0].Get("traceparent") != "" {
		t.Errorf("with the host's propagator: headers %v; want x-test-span and no traceparent", got)
	}

	reset()
	if _, err := r.Execute(context.Background(), "t.get", []byte(`{"id":"42"}`)); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Get("traceparent") != "" {
		t.Errorf("a call with no span: headers %v; want no traceparent", got)
	}
}
