package telemetry_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.opentelemetry.io/otel/attribute"
	otelcodes "go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/telemetry"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// fixture is a registry with two tools, instrumented with a span recorder
// and a manual metric reader.
type fixture struct {
	reg    *tooling.Registry
	spans  *tracetest.SpanRecorder
	tp     *sdktrace.TracerProvider
	reader *sdkmetric.ManualReader
	tel    *telemetry.Telemetry
	inTool chan trace.SpanContext // the span context each run of text.shout saw
}

func newFixture(t *testing.T, opts ...telemetry.Option) *fixture {
	t.Helper()
	f := &fixture{reg: tooling.NewRegistry(), spans: tracetest.NewSpanRecorder(), reader: sdkmetric.NewManualReader(),
		inTool: make(chan trace.SpanContext, 16)}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.spans))
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	t.Cleanup(func() {
		_ = f.tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	f.reg.Register(tooling.Tool{
		Name:        "text.shout",
		Description: "Upper-cases text.",
		Input:       json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Meta:        tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			f.inTool <- trace.SpanFromContext(ctx).SpanContext()
			return strings.ToUpper(callargs.String(c.Args, "text")), nil
		},
	}, tooling.Tool{
		Name: "text.fail",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			return nil, errors.New("no luck")
		},
	})
	tel, err := telemetry.Instrument(f.reg, append([]telemetry.Option{telemetry.WithTracerProvider(f.tp),
		telemetry.WithMeterProvider(mp)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	f.tel = tel
	return f
}

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

func TestOneSpanPerCallUnderTheCallersSpan(t *testing.T) {
	f := newFixture(t)
	ctx, parent := f.tp.Tracer("host").Start(context.Background(), "host request")
	res, err := f.reg.Execute(ctx, "text.shout", json.RawMessage(`{"text":"secret words"}`),
		tooling.WithOrigin(tooling.OriginLLM), tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme"}))
	parent.End()
	if err != nil {
		t.Fatal(err)
	}
	ended := f.spans.Ended()
	if len(ended) != 2 {
		t.Fatalf("got %d spans, want the call's and the host's", len(ended))
	}
	s := ended[0]
	if s.Name() != "execute_tool text.shout" || s.SpanKind() != trace.SpanKindInternal {
		t.Fatalf("span %q kind %v", s.Name(), s.SpanKind())
	}
	if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
		t.Fatal("the call's span is not a child of the caller's span")
	}
	if got := <-f.inTool; got.SpanID() != s.SpanContext().SpanID() {
		t.Fatalf("the tool ran with span %v in its context, want the call's %v", got.SpanID(), s.SpanContext().SpanID())
	}
	if !s.StartTime().Equal(res.Started) {
		t.Fatalf("span starts at %v, the call at %v", s.StartTime(), res.Started)
	}
	a := attrs(s)
	want := map[attribute.Key]string{
		telemetry.AttrOperationName: "execute_tool", telemetry.AttrToolName: "text.shout",
		telemetry.AttrToolCallID: res.CallID, telemetry.AttrToolType: "function", telemetry.AttrOrigin: "llm",
		telemetry.AttrTenant: "acme", telemetry.AttrCode: "ok", telemetry.AttrStatus: "ok",
		telemetry.AttrToolDescription: "Upper-cases text.",
	}
	for k, v := range want {
		if a[k].AsString() != v {
			t.Errorf("%s = %q, want %q", k, a[k].AsString(), v)
		}
	}
	for _, k := range []attribute.Key{telemetry.AttrSubject, telemetry.AttrToolArguments, telemetry.AttrToolResult, telemetry.AttrErrorType} {
		if _, ok := a[k]; ok {
			t.Errorf("%s recorded without being asked for", k)
		}
	}
	if _, ok := a[telemetry.AttrRunMS]; !ok {
		t.Error("no run time")
	}
	var steps []string
	for _, e := range s.Events() {
		for _, kv := range e.Attributes {
			if kv.Key == telemetry.AttrStep {
				steps = append(steps, kv.Value.AsString())
			}
		}
	}
	if !strings.Contains(strings.Join(steps, ","), "timeout") {
		t.Errorf("governance events %v, want the timeout decision among them", steps)
	}
	if s.Status().Code == otelcodes.Error {
		t.Error("a call that succeeded has an error status")
	}
}

func TestRefusedAndFailedCallsHaveSpansWithTheirCode(t *testing.T) {
	f := newFixture(t)
	cases := []struct {
		tool, args string
		code       codes.Code
	}{
		{"text.nope", `{}`, codes.NotFound},
		{"text.shout", `{"text":1}`, codes.ValidationError},
		{"text.fail", `{}`, codes.ToolError},
	}
	for _, c := range cases {
		_, err := f.reg.Execute(context.Background(), c.tool, json.RawMessage(c.args))
		if !errors.Is(err, c.code) {
			t.Fatalf("%s: err %v, want %s", c.tool, err, c.code)
		}
	}
	ended := f.spans.Ended()
	if len(ended) != len(cases) {
		t.Fatalf("got %d spans for %d calls", len(ended), len(cases))
	}
	for i, s := range ended {
		a := attrs(s)
		if a[telemetry.AttrErrorType].AsString() != string(cases[i].code) || a[telemetry.AttrCode].AsString() != string(cases[i].code) {
			t.Errorf("%s: error.type %q, code %q, want %s", s.Name(), a[telemetry.AttrErrorType].AsString(), a[telemetry.AttrCode].AsString(), cases[i].code)
		}
		if s.Status().Code != otelcodes.Error {
			t.Errorf("%s: status %v, want error", s.Name(), s.Status())
		}
	}
}

func TestContentAndSubjectOnlyWhenAskedFor(t *testing.T) {
	f := newFixture(t, telemetry.WithContent(), telemetry.WithSubject())
	if _, err := f.reg.Execute(context.Background(), "text.shout", json.RawMessage(`{"text":"hi"}`),
		tooling.WithPrincipal(tooling.Principal{Subject: "alice"})); err != nil {
		t.Fatal(err)
	}
	a := attrs(f.spans.Ended()[0])
	if a[telemetry.AttrToolArguments].AsString() != `{"text":"hi"}` || a[telemetry.AttrToolResult].AsString() != `"HI"` ||
		a[telemetry.AttrSubject].AsString() != "alice" {
		t.Fatalf("arguments %q, result %q, subject %q", a[telemetry.AttrToolArguments].AsString(),
			a[telemetry.AttrToolResult].AsString(), a[telemetry.AttrSubject].AsString())
	}
}

func TestCloseStopsSpansAndCounts(t *testing.T) {
	f := newFixture(t)
	f.tel.Close()
	if _, err := f.reg.Execute(context.Background(), "text.shout", json.RawMessage(`{"text":"hi"}`)); err != nil {
		t.Fatal(err)
	}
	if n := len(f.spans.Ended()); n != 0 {
		t.Fatalf("%d spans after Close", n)
	}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == telemetry.MetricInvocations {
				t.Fatal("a call after Close was counted")
			}
		}
	}
}

// sums reads every counter point of the metric name as "k=v,k=v" → value.
func sums(t *testing.T, r *sdkmetric.ManualReader, name string) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += p.Value
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					out[p.Attributes.Encoded(attribute.DefaultEncoder())] += int64(p.Count)
				}
			}
		}
	}
	return out
}

func TestMetricsCountEveryCall(t *testing.T) {
	f := newFixture(t)
	p := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme"})
	for range 3 {
		if _, err := f.reg.Execute(context.Background(), "text.shout", json.RawMessage(`{"text":"hi"}`), p); err != nil {
			t.Fatal(err)
		}
	}
	f.reg.Execute(context.Background(), "text.shout", json.RawMessage(`{"text":1}`), p)
	f.reg.Execute(context.Background(), "text.fail", nil, p)
	checks := []struct {
		metric string
		want   map[string]int64
	}{
		{telemetry.MetricInvocations, map[string]int64{"origin=app,tenant=acme,tool=text.shout": 4, "origin=app,tenant=acme,tool=text.fail": 1}},
		{telemetry.MetricDenied, map[string]int64{"code=validation_error,tool=text.shout": 1}},
		{telemetry.MetricErrors, map[string]int64{"code=tool_error": 1}},
		{telemetry.MetricLatency, map[string]int64{"stage=total,tool=text.shout": 4, "stage=run,tool=text.shout": 3,
			"stage=wait,tool=text.shout": 3,
			"stage=total,tool=text.fail": 1, "stage=run,tool=text.fail": 1, "stage=wait,tool=text.fail": 1}},
		{telemetry.MetricBudgetBytes, map[string]int64{"dir=in": 3*int64(len(`{"text":"hi"}`)) + int64(len(`{"text":1}`)), "dir=out": 3 * int64(len(`"HI"`))}},
		{telemetry.MetricInFlight, map[string]int64{"": 0}},
		{telemetry.MetricQueue, map[string]int64{"": 0}},
	}
	for _, c := range checks {
		got := sums(t, f.reader, c.metric)
		if len(got) != len(c.want) {
			t.Errorf("%s: %v, want %v", c.metric, got, c.want)
			continue
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s{%s} = %d, want %d", c.metric, k, got[k], v)
			}
		}
	}
}

func TestPrometheusHandlerServesTheMetrics(t *testing.T) {
	mp, h, err := telemetry.Prometheus()
	if err != nil {
		t.Fatal(err)
	}
	defer mp.Shutdown(context.Background())
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "text.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) { return "x", nil }})
	if _, err := telemetry.Instrument(reg, telemetry.WithMeterProvider(mp)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := reg.Execute(context.Background(), "text.echo", nil); err != nil {
			t.Fatal(err)
		}
	}
	reg.Execute(context.Background(), "text.echo", json.RawMessage(`[1]`))
	srv := httptest.NewServer(h)
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string, labels map[string]string) float64 {
		t.Helper()
		fam, ok := fams[name]
		if !ok {
			t.Fatalf("no %s in the scrape", name)
		}
	metrics:
		for _, m := range fam.GetMetric() {
			for _, lp := range m.GetLabel() {
				if want, ok := labels[lp.GetName()]; ok && want != lp.GetValue() {
					continue metrics
				}
			}
			switch {
			case m.Counter != nil:
				return m.GetCounter().GetValue()
			case m.Gauge != nil:
				return m.GetGauge().GetValue()
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
		t.Fatalf("no %s with %v", name, labels)
		return 0
	}
	if v := value("tool_invocations_total", map[string]string{"tool": "text.echo", "origin": "app", "tenant": ""}); v != 3 {
		t.Errorf("tool_invocations_total = %v, want 3", v)
	}
	if v := value("tool_denied_total", map[string]string{"tool": "text.echo", "code": "validation_error"}); v != 1 {
		t.Errorf("tool_denied_total = %v, want 1", v)
	}
	if v := value("tool_latency_seconds", map[string]string{"tool": "text.echo", "stage": "total"}); v != 3 {
		t.Errorf("tool_latency_seconds count = %v, want 3", v)
	}
	if v := value("tool_budget_bytes_total", map[string]string{"dir": "out"}); v != 6 {
		t.Errorf("tool_budget_bytes_total{dir=out} = %v, want 6", v)
	}
	value("tool_in_flight", nil)
	value("tool_queue", nil)
}

// TestStateChangesMakeNoSpan: a change of a tool's state reaches the audit
// hooks as an event that is no call: it makes no span and is not counted.
func TestStateChangesMakeNoSpan(t *testing.T) {
	f := newFixture(t)
	if err := f.reg.SetState(context.Background(), "text.shout", tooling.StatePaused, "maintenance", ""); err != nil {
		t.Fatal(err)
	}
	if n := len(f.spans.Ended()) + len(f.spans.Started()); n != 0 {
		t.Fatalf("%d spans for a change of state", n)
	}
	if got := sums(t, f.reader, telemetry.MetricInvocations); len(got) != 0 {
		t.Fatalf("a change of state was counted: %v", got)
	}
}

// A call's span name and attributes are made once per tool, origin and
// tenant and kept: a tool replaced by one with another description and
// source gets spans that say so, and a second origin and tenant get their
// own.
func TestKeptSpanAttributesFollowTheTool(t *testing.T) {
	f := newFixture(t)
	call := func(o tooling.Origin, tenant string) map[attribute.Key]attribute.Value {
		t.Helper()
		if _, err := f.reg.Execute(context.Background(), "text.fail", nil, tooling.WithOrigin(o),
			tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: tenant})); err == nil {
			t.Fatal("text.fail succeeded")
		}
		ended := f.spans.Ended()
		return attrs(ended[len(ended)-1])
	}
	check := func(a map[attribute.Key]attribute.Value, want map[attribute.Key]string) {
		t.Helper()
		for k, v := range want {
			if a[k].AsString() != v {
				t.Errorf("%s = %q, want %q", k, a[k].AsString(), v)
			}
		}
	}
	check(call(tooling.OriginApp, "acme"), map[attribute.Key]string{telemetry.AttrToolType: "function", telemetry.AttrToolDescription: "",
		telemetry.AttrOrigin: "app", telemetry.AttrTenant: "acme"})
	check(call(tooling.OriginLLM, "globex"), map[attribute.Key]string{telemetry.AttrOrigin: "llm", telemetry.AttrTenant: "globex"})
	if err := f.reg.Replace([]string{"text.fail"}, []tooling.Tool{{Name: "text.fail", Description: "Fails, from a file.", Source: "file:tools.yaml",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run:  func(context.Context, tooling.Call) (any, error) { return nil, errors.New("no luck") }}}); err != nil {
		t.Fatal(err)
	}
	check(call(tooling.OriginApp, "acme"), map[attribute.Key]string{telemetry.AttrToolType: "extension", telemetry.AttrToolDescription: "Fails, from a file.",
		telemetry.AttrOrigin: "app", telemetry.AttrTenant: "acme"})
	a := call(tooling.OriginApp, "")
	check(a, map[attribute.Key]string{telemetry.AttrOrigin: "app", telemetry.AttrToolType: "extension"})
	if _, ok := a[telemetry.AttrTenant]; ok {
		t.Error("a call without a tenant has one on its span")
	}
}
