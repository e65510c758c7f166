package telemetry

import (
	"context"
	"sync"
	"sync/atomic"
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

	// The attribute sets of measurements, made once: a measurement given
	// a set made before costs no allocation.
	calls   sync.Map     // callKey → *callSets
	refused sync.Map     // setKey → []metric.AddOption, of denied and errors
	nsets   atomic.Int64 // entries of calls and refused
	in, out []metric.AddOption
}

// callKey names the measurements of a tool's calls from one origin and
// tenant.
type callKey struct {
	tool, origin, tenant string
}

// callSets are the attribute sets of the measurements of the calls of one
// callKey.
type callSets struct {
	invocations      []metric.AddOption
	total, wait, run []metric.RecordOption
}

// setKey names the attribute set of a refused or failed call's count.
type setKey struct {
	denied     bool // tool_denied; else tool_errors, by code alone
	tool, code string
}

// maxSets bounds the attribute sets kept: past it (many tenants), sets are
// made for each measurement.
const maxSets = 10000

func newInstruments(m metric.Meter, r *tooling.Registry) (*instruments, error) {
	in := &instruments{
		in:  []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(labelDir.String("in")))},
		out: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(labelDir.String("out")))},
	}
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

// record counts a call at its end event; sets are its attribute sets
// (callSets), total its time end to end.
func (in *instruments) record(ctx context.Context, ev *tooling.Event, sets *callSets, total time.Duration) {
	in.invocations.Add(ctx, 1, sets.invocations...)
	switch ev.Status {
	case "denied":
		in.denied.Add(ctx, 1, in.refusedSet(setKey{denied: true, tool: ev.Tool, code: string(ev.Code)})...)
	case "error":
		in.errors.Add(ctx, 1, in.refusedSet(setKey{code: string(ev.Code)})...)
	}
	in.latency.Record(ctx, total.Seconds(), sets.total...)
	if ev.Run > 0 { // the tool started: it waited (perhaps not at all), then ran
		in.latency.Record(ctx, ev.Wait.Seconds(), sets.wait...)
		in.latency.Record(ctx, ev.Run.Seconds(), sets.run...)
	}
	if ev.ArgsSize > 0 {
		in.budget.Add(ctx, int64(ev.ArgsSize), in.in...)
	}
	if ev.OutputSize > 0 {
		in.budget.Add(ctx, int64(ev.OutputSize), in.out...)
	}
}

// callSets returns the attribute sets of the calls of tool from origin
// and tenant, made once.
func (in *instruments) callSets(tool string, origin tooling.Origin, tenant string) *callSets {
	k := callKey{tool, string(origin), tenant}
	if v, ok := in.calls.Load(k); ok {
		return v.(*callSets)
	}
	stage := func(s string) []metric.RecordOption {
		return []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(labelTool.String(tool), labelStage.String(s)))}
	}
	cs := &callSets{
		invocations: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(labelTool.String(tool), labelOrigin.String(k.origin), labelTenant.String(tenant)))},
		total:       stage("total"), wait: stage("wait"), run: stage("run"),
	}
	if in.nsets.Load() < maxSets {
		if v, loaded := in.calls.LoadOrStore(k, cs); loaded {
			return v.(*callSets)
		}
		in.nsets.Add(1)
	}
	return cs
}

// refusedSet returns the attribute set of k, made once.
func (in *instruments) refusedSet(k setKey) []metric.AddOption {
	if v, ok := in.refused.Load(k); ok {
		return v.([]metric.AddOption)
	}
	set := attribute.NewSet(labelCode.String(k.code))
	if k.denied {
		set = attribute.NewSet(labelTool.String(k.tool), labelCode.String(k.code))
	}
	o := []metric.AddOption{metric.WithAttributeSet(set)}
	if in.nsets.Load() < maxSets {
		if v, loaded := in.refused.LoadOrStore(k, o); loaded {
			return v.([]metric.AddOption)
		}
		in.nsets.Add(1)
	}
	return o
}
