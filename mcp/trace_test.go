package mcp_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestTraceRunsFromHostThroughGatewayIntoRemote: a host's span, sent in
// _meta.traceparent of a tools/call, is the parent of the gateway's server
// span; the gateway's call of the remote tool is a client span under it,
// whose context reaches the remote server in _meta, where its server span
// continues the trace, and the remote tool runs with that span.
func TestTraceRunsFromHostThroughGatewayIntoRemote(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	old := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() {
		otel.SetTracerProvider(old)
		_ = tp.Shutdown(context.Background())
	})

	// The remote server: a registry with one tool, served over HTTP.
	inTool := make(chan trace.SpanContext, 1)
	upReg := tooling.NewRegistry()
	upReg.Register(tooling.Tool{Name: "up.work", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			inTool <- trace.SpanFromContext(ctx).SpanContext()
			return "done", nil
		}})
	hs := httptest.NewServer(mcp.NewServer(upReg, mcp.Options{}).Handler(mcp.HTTPOptions{}))
	defer hs.Close()

	// The gateway: a registry of the remote server's tools, served in memory.
	gwReg := tooling.NewRegistry()
	remote, err := mcp.Connect(context.Background(), gwReg, "up", mcp.Spec{URL: hs.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(gwReg, mcp.Options{}).Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "host", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// The host: a span of its own, its context in _meta.
	ctx, host := tp.Tracer("host").Start(context.Background(), "host turn")
	meta := map[string]any{}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(ctx, carrier)
	for k, v := range carrier {
		meta[k] = v
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Meta: meta, Name: "up__up_work", Arguments: json.RawMessage(`{}`)})
	host.End()
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("call failed: %+v", res.Content[0])
	}

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		byName[s.Name()+" "+s.SpanKind().String()] = s
	}
	gwServer := byName["tools/call up__up_work server"]
	gwClient := byName["tools/call up.work client"]
	upServer := byName["tools/call up.work server"]
	if gwServer == nil || gwClient == nil || upServer == nil {
		var names []string
		for k := range byName {
			names = append(names, k)
		}
		t.Fatalf("spans %v: want the gateway's server and client spans and the remote server's", names)
	}
	traceID := host.SpanContext().TraceID()
	chain := []struct {
		name   string
		span   sdktrace.ReadOnlySpan
		parent trace.SpanID
	}{
		{"gateway server", gwServer, host.SpanContext().SpanID()},
		{"gateway client", gwClient, gwServer.SpanContext().SpanID()},
		{"remote server", upServer, gwClient.SpanContext().SpanID()},
	}
	for _, c := range chain {
		if c.span.SpanContext().TraceID() != traceID {
			t.Errorf("%s span is in trace %v, not the host's %v", c.name, c.span.SpanContext().TraceID(), traceID)
		}
		if c.span.Parent().SpanID() != c.parent {
			t.Errorf("%s span's parent is %v, want %v", c.name, c.span.Parent().SpanID(), c.parent)
		}
		found := false
		for _, kv := range c.span.Attributes() {
			if kv.Key == attribute.Key("mcp.method.name") && kv.Value.AsString() == "tools/call" {
				found = true
			}
		}
		if !found {
			t.Errorf("%s span has no mcp.method.name tools/call", c.name)
		}
	}
	if got := <-inTool; got.TraceID() != traceID {
		t.Errorf("the remote tool ran in trace %v, not the host's", got.TraceID())
	}
}

// TestServerSpansFollowTheGlobalProvider: the server spans go to the
// global tracer provider of the moment: after a program sets another, its
// calls' spans go to the new one only.
func TestServerSpansFollowTheGlobalProvider(t *testing.T) {
	old := otel.GetTracerProvider()
	t.Cleanup(func() { otel.SetTracerProvider(old) })
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "t.ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(reg, mcp.Options{}).Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var recs []*tracetest.SpanRecorder
	for range 2 {
		rec := tracetest.NewSpanRecorder()
		tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		otel.SetTracerProvider(tp)
		recs = append(recs, rec)
		if res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.ok", Arguments: json.RawMessage(`{}`)}); err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
	}
	for i, rec := range recs {
		if spans := rec.Ended(); len(spans) != 1 || spans[0].Name() != "tools/call t.ok" {
			t.Errorf("provider %d recorded %d spans, want the one call made while it was global", i, len(spans))
		}
	}
}

// TestServedCallCarriesTheTraceWithoutARecordingProvider: while the
// global provider records nothing, a served call makes no span of its
// own, and its tool still runs in the trace its _meta carries, as the
// call's client sent it.
func TestServedCallCarriesTheTraceWithoutARecordingProvider(t *testing.T) {
	old := otel.GetTracerProvider()
	otel.SetTracerProvider(noop.NewTracerProvider())
	t.Cleanup(func() { otel.SetTracerProvider(old) })

	inTool := make(chan trace.SpanContext, 1)
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "t.ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			inTool <- trace.SpanContextFromContext(ctx)
			return "ok", nil
		}})
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.NewServer(reg, mcp.Options{}).Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Wait()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for _, meta := range []map[string]any{{"traceparent": traceparent}, nil} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: meta, Name: "t.ok", Arguments: json.RawMessage(`{}`)})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
		got := <-inTool
		if meta == nil {
			if got.IsValid() {
				t.Errorf("a call without a trace ran in trace %v", got.TraceID())
			}
			continue
		}
		if got.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || got.SpanID().String() != "00f067aa0ba902b7" || !got.IsRemote() || !got.IsSampled() {
			t.Errorf("the tool ran in %+v, want the client's span context", got)
		}
	}
}
