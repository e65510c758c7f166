package policy

import (
	"context"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// BudgetLeft is what one budget leaves a principal on a tool, now.
type BudgetLeft struct {
	Name string `json:"name"`
	// Per is "subject" or "tenant"; Who the subject or tenant counted.
	Per    string        `json:"per"`
	Who    string        `json:"who"`
	Window time.Duration `json:"window_ns"`
	// Refill is how long until the window starts again.
	Refill time.Duration `json:"refill_ns"`
	// Counts are the budget's bounded counts, in the order calls,
	// bytes_in, bytes_out, cpu_ms.
	Counts []Count `json:"counts"`
}

// Count is one bounded count of a budget. Used may be past Bound: the
// bytes out and CPU time of a call are counted after it ran.
type Count struct {
	What  string `json:"what"` // "calls", "bytes_in", "bytes_out", "cpu_ms"
	Used  int64  `json:"used"`
	Bound int64  `json:"bound"`
}

// Left is what the count leaves: Bound less Used, 0 when spent.
func (c Count) Left() int64 { return max(c.Bound-c.Used, 0) }

// Left is what each budget that applies to tool leaves p in the current
// window, in the order of the budgets; nil when none applies.
func (bs *Budgets) Left(ctx context.Context, p tooling.Principal, tool string) ([]BudgetLeft, error) {
	return bs.left(ctx, p, func(b *Budget) bool { return matchesAny(b.Tools, tool) })
}

// Snapshot is what every budget leaves p in the current window, whatever
// tools it names, in the order of the budgets: what a host or the
// console's governance board shows of them.
func (bs *Budgets) Snapshot(ctx context.Context, p tooling.Principal) ([]BudgetLeft, error) {
	return bs.left(ctx, p, func(*Budget) bool { return true })
}

func (bs *Budgets) left(ctx context.Context, p tooling.Principal, applies func(*Budget) bool) ([]BudgetLeft, error) {
	now := bs.now()
	var out []BudgetLeft
	for i := range bs.list {
		b := &bs.list[i]
		if !applies(b) {
			continue
		}
		start := now.Truncate(b.Window)
		h := held{b: b, tenant: p.Tenant, who: p.Subject, start: start, expires: start.Add(b.Window)}
		per := "subject"
		if b.PerTenant {
			h.who, per = p.Tenant, "tenant"
		}
		left := BudgetLeft{Name: b.Name, Per: per, Who: h.who, Window: b.Window, Refill: h.expires.Sub(now)}
		for _, k := range [...]struct {
			counter string
			bound   int64
		}{{counterCalls, b.Calls}, {counterBytesIn, b.BytesIn}, {counterBytesOut, b.BytesOut}, {counterCPU, b.CPUMillis}} {
			if k.bound == 0 {
				continue
			}
			n, _, err := bs.store.Add(ctx, h.key(k.counter), 0, 0, h.expires)
			if err != nil {
				return nil, err
			}
			left.Counts = append(left.Counts, Count{What: k.counter, Used: n, Bound: k.bound})
		}
		out = append(out, left)
	}
	return out, nil
}

// For is the limits that apply to tool, in order.
func (ls *Limits) For(tool string) []Limit {
	var out []Limit
	for _, l := range ls.list {
		if matchesAny(l.Tools, tool) {
			out = append(out, l)
		}
	}
	return out
}
