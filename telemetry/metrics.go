package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The metrics' names, as OpenTelemetry instruments. Prometheus' exporter
// adds the suffixes of its conventions: tool_invocations_total,
// tool_denied_total, tool_errors_total, tool_latency_seconds,
// tool_budget_bytes_total, tool_in_flight and tool_queue.
const (
	// MetricInvocations counts calls, by tool, origin and tenant.
	MetricInvocations = "tool_invocations"
	// MetricDenied counts calls refused before their tool ran, by tool
	// and code.
	MetricDenied = "tool_denied"
	// MetricErrors counts calls whose tool ran and failed, by code.
	MetricErrors = "tool_errors"
	// MetricLatency is a histogram of seconds, by tool and stage: "total"
	// (end to end), "wait" (queued for a slot, lock or thread) and "run"
	// (the tool ran).
	MetricLatency = "tool_latency"
	// MetricBudgetBytes counts bytes of arguments (dir "in") and of output
	// (dir "out").
	MetricBudgetBytes = "tool_budget_bytes"
	// MetricInFlight is the number of calls between begin and end.
	MetricInFlight = "tool_in_flight"
	// MetricQueue is the number of calls waiting for a slot, a resource
	// lock or the main thread.
	MetricQueue = "tool_queue"
)

// latencyBounds are the histogram's buckets, in seconds: from 100 µs to a
// minute.
var latencyBounds = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

type instruments struct {
	invocations, denied, errors, budget metric.Int64Counter
	latency                             metric.Float64Histogram
	reg                                 metric.Registration

	mu   sync.Mutex
	sets map[setKey]metric.MeasurementOption // attribute sets, made once
}

// setKey names one attribute set of one instrument.
type setKey struct {
	kind       byte // 'i' invocations, 'd' denied, 'e' errors, 't' 'w' 'r' latency stages, '<' '>' bytes
	tool, a, b string
}

// maxSets bounds the attribute sets kept: past it (many tenants), sets are
// made for each measurement.
const maxSets = 10000

func newInstruments(m metric.Meter, r *tooling.Registry) (*instruments, error) {
	in := &instruments{sets: map[setKey]metric.MeasurementOption{}}
	var err error
	if in.invocations, err = m.Int64Counter(MetricInvocations, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls, by tool, origin and tenant.")); err != nil {
		return nil, err
	}
	if in.denied, err = m.Int64Counter(MetricDenied, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls refused before the tool ran, by tool and code.")); err != nil {
		return nil, err
	}
	if in.errors, err = m.Int64Counter(MetricErrors, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls whose tool ran and failed, by code.")); err != nil {
		return nil, err
	}
	if in.budget, err = m.Int64Counter(MetricBudgetBytes, metric.WithUnit("By"),
		metric.WithDescription("Bytes of arguments (dir in) and output (dir out) of tool calls.")); err != nil {
		return nil, err
	}
	if in.latency, err = m.Float64Histogram(MetricLatency, metric.WithUnit("s"),
		metric.WithDescription("Tool call latency, by tool and stage: total (end to end), wait (queued), run (the tool ran)."),
		metric.WithExplicitBucketBoundaries(latencyBounds...)); err != nil {
		return nil, err
	}
	inFlight, err := m.Int64ObservableGauge(MetricInFlight, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls between begin and end."))
	if err != nil {
		return nil, err
	}
	queue, err := m.Int64ObservableGauge(MetricQueue, metric.WithUnit("{call}"),
		metric.WithDescription("Tool calls waiting for a slot, a resource lock or the main thread."))
	if err != nil {
		return nil, err
	}
	in.reg, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s := r.Stats()
		waiting := s.Slots.Waiting + s.MainThread.QueueDepth
		for _, l := range s.Locks {
			waiting += len(l.Waiters)
		}
		o.ObserveInt64(inFlight, s.InFlight)
		o.ObserveInt64(queue, int64(waiting))
		return nil
	}, inFlight, queue)
	if err != nil {
		return nil, err
	}
	return in, nil
}

func (in *instruments) close() {
	if in.reg != nil {
		_ = in.reg.Unregister()
	}
}

// record counts a call at its end event; total is its time end to end.
func (in *instruments) record(ctx context.Context, ev tooling.Event, total time.Duration) {
	in.invocations.Add(ctx, 1, in.set(setKey{kind: 'i', tool: ev.Tool, a: string(ev.Origin), b: ev.Principal.Tenant}))
	switch ev.Status {
	case "denied":
		in.denied.Add(ctx, 1, in.set(setKey{kind: 'd', tool: ev.Tool, a: string(ev.Code)}))
	case "error":
		in.errors.Add(ctx, 1, in.set(setKey{kind: 'e', a: string(ev.Code)}))
	}
	in.latency.Record(ctx, total.Seconds(), in.set(setKey{kind: 't', tool: ev.Tool}))
	if ev.Run > 0 { // the tool started: it waited (perhaps not at all), then ran
		in.latency.Record(ctx, ev.Wait.Seconds(), in.set(setKey{kind: 'w', tool: ev.Tool}))
		in.latency.Record(ctx, ev.Run.Seconds(), in.set(setKey{kind: 'r', tool: ev.Tool}))
	}
	if ev.ArgsSize > 0 {
		in.budget.Add(ctx, int64(ev.ArgsSize), in.set(setKey{kind: '<'}))
	}
	if ev.OutputSize > 0 {
		in.budget.Add(ctx, int64(ev.OutputSize), in.set(setKey{kind: '>'}))
	}
}

// set returns the attribute set k stands for, made once.
func (in *instruments) set(k setKey) metric.MeasurementOption {
	in.mu.Lock()
	o, ok := in.sets[k]
	in.mu.Unlock()
	if ok {
		return o
	}
	o = metric.WithAttributeSet(k.attributes())
	in.mu.Lock()
	if len(in.sets) < maxSets {
		in.sets[k] = o
	}
	in.mu.Unlock()
	return o
}

func (k setKey) attributes() attribute.Set {
	switch k.kind {
	case 'i':
		return attribute.NewSet(labelTool.String(k.tool), labelOrigin.String(k.a), labelTenant.String(k.b))
	case 'd':
		return attribute.NewSet(labelTool.String(k.tool), labelCode.String(k.a))
	case 'e':
		return attribute.NewSet(labelCode.String(k.a))
	case 't':
		return attribute.NewSet(labelTool.String(k.tool), labelStage.String("total"))
	case 'w':
		return attribute.NewSet(labelTool.String(k.tool), labelStage.String("wait"))
	case 'r':
		return attribute.NewSet(labelTool.String(k.tool), labelStage.String("run"))
	case '<':
		return attribute.NewSet(labelDir.String("in"))
	default:
		return attribute.NewSet(labelDir.String("out"))
	}
}
