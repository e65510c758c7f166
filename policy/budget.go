package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/batch"
	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// CodeBudgetExceeded: the call would spend more than a Budget leaves its
// principal; the message names the budget, what is left and when it
// refills.
const CodeBudgetExceeded codes.Code = "budget_exceeded"

// Budget bounds what each subject (or each tenant) may spend on the tools
// it names over a window: calls, bytes of arguments in, bytes of output
// out and CPU milliseconds of confined calls. A zero bound is no bound.
type Budget struct {
	// Name names the budget in refusals and keys its counts in the Store;
	// zero: "budget N". Names are unique.
	Name string
	// Tools are tool-name patterns, as Rule.Tools. Required.
	Tools []string
	// PerTenant counts per tenant; zero: per subject (the anonymous
	// principal is one subject).
	PerTenant bool
	// Window is how long a count lasts: it starts again at each multiple
	// of Window (a minute, an hour, a day). Required.
	Window time.Duration
	// Calls, BytesIn and BytesOut bound each window.
	Calls, BytesIn, BytesOut int64
	// CPUMillis bounds the CPU time, in milliseconds, that confined calls
	// spend in their child (its "cpu" decision); in-process calls spend
	// none.
	CPUMillis int64
}

// Budgets enforces budgets as middleware (Middleware). A call over any of
// its budgets is refused before it runs; its output is counted after, so a
// call that returns more than is left is reported, and the next one
// refused. Safe for concurrent use: calls reserve what they spend before
// they run, all budgets at once (one exchange with a BatchStore), so
// concurrent calls never overspend and a call refused by one budget counts
// against none.
type Budgets struct {
	list  []Budget
	now   func() time.Time
	store Store
}

// The counters of a budget, in the order they are checked.
const (
	counterCalls    = "calls"
	counterBytesIn  = "bytes_in"
	counterBytesOut = "bytes_out"
	counterCPU      = "cpu_ms"
)

// NewBudgets checks list and returns its budgets. The counts are kept in
// a MemoryStore unless WithStore gives another.
func NewBudgets(list []Budget, opts ...Option) (*Budgets, error) {
	var errs []error
	out := make([]Budget, len(list))
	seen := map[string]bool{}
	for i, b := range list {
		if b.Name == "" {
			b.Name = fmt.Sprintf("budget %d", i+1)
		}
		if seen[b.Name] {
			errs = append(errs, fmt.Errorf("policy: two budgets are named %q", b.Name))
		}
		seen[b.Name] = true
		if len(b.Tools) == 0 {
			errs = append(errs, fmt.Errorf("policy: %s names no tools", b.Name))
		}
		for _, p := range b.Tools {
			if !toolname.ValidPattern(p) {
				errs = append(errs, fmt.Errorf("policy: %s: %q is not a tool pattern", b.Name, p))
			}
		}
		if b.Window <= 0 {
			errs = append(errs, fmt.Errorf("policy: %s has no window (a minute, an hour, a day)", b.Name))
		}
		if b.Calls < 0 || b.BytesIn < 0 || b.BytesOut < 0 || b.CPUMillis < 0 {
			errs = append(errs, fmt.Errorf("policy: %s has a negative bound", b.Name))
		}
		b.Tools = slices.Clone(b.Tools)
		out[i] = b
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	o := optionsOf(opts)
	return &Budgets{list: out, now: o.now, store: o.store}, nil
}

// Middleware refuses calls over budget and counts what calls spend. With
// a Store shared on Redis (package state), what a call reserves is counted
// with every other decision the call asks of it, in one round trip, all or
// none. A
// call that is only explained (Registry.Explain) counts nothing: each
// budget says whether it would let the call through.
func (bs *Budgets) Middleware() tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		dryrun.Declare(next)
		if batch.Plans(bs.store, nil) {
			dryrun.DeclarePlan(next)
		}
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if dryrun.Declaring(ctx) {
				return nil, nil
			}
			if b := batch.From(ctx); b.Planning() && !batch.Plans(bs.store, b) {
				return next(ctx, c) // a store of this process's: nothing to plan
			}
			if dryrun.Is(ctx) {
				if err := bs.wouldReserve(ctx, c, int64(len(c.Raw()))); err != nil {
					return nil, err
				}
				return next(ctx, c)
			}
			held, err := bs.reserve(ctx, c, int64(len(c.Raw())))
			if err != nil {
				return nil, err
			}
			res, err := next(ctx, c)
			if res != nil && len(held) > 0 {
				if over := bs.spendAfter(ctx, held, res); over != "" {
					c.Decide("budget", over)
				}
			}
			return res, err
		}
	}
}

// held is a budget a call counts against, in the window it started in.
type held struct {
	b       *Budget
	tenant  string // the call's tenant, which starts every key (Store)
	who     string
	start   time.Time
	expires time.Time
}

func (h *held) key(counter string) string {
	return keyOf(h.tenant, "budget", h.b.Name, h.who, counter, strconv.FormatInt(h.start.Unix(), 10))
}

// reserve counts a call and its argument bytes against every budget that
// applies, all in one exchange with the store, or refuses it and counts
// nothing.
func (bs *Budgets) reserve(ctx context.Context, c *tooling.Call, in int64) ([]held, error) {
	now := bs.now()
	var (
		hold    []held
		of      []int // per counter, its budget in hold
		names   []string
		keys    []string
		ns      []int64
		bounds  []int64
		expires []time.Time
	)
	for i := range bs.list {
		b := &bs.list[i]
		if !matchesAny(b.Tools, c.Tool) {
			continue
		}
		start := now.Truncate(b.Window)
		h := held{b: b, tenant: c.Principal.Tenant, who: c.Principal.Subject, start: start, expires: start.Add(b.Window)}
		if b.PerTenant {
			h.who = c.Principal.Tenant
		}
		for _, k := range [...]struct {
			counter  string
			n, bound int64
		}{{counterCalls, 1, b.Calls}, {counterBytesIn, in, b.BytesIn}, {counterBytesOut, 0, b.BytesOut}, {counterCPU, 0, b.CPUMillis}} {
			if k.bound == 0 {
				continue
			}
			of, names = append(of, len(hold)), append(names, k.counter)
			keys, ns, bounds, expires = append(keys, h.key(k.counter)), append(ns, k.n), append(bounds, k.bound), append(expires, h.expires)
		}
		hold = append(hold, h)
	}
	if len(keys) == 0 {
		return hold, nil
	}
	counts, refused, err := addAll(ctx, bs.store, keys, ns, bounds, expires)
	if err != nil {
		b := hold[of[max(refused, 0)]].b
		return nil, &tooling.Error{Code: codes.Unavailable, Message: fmt.Sprintf("budget %s cannot be checked: %v", b.Name, err)}
	}
	if refused >= 0 {
		h := &hold[of[refused]]
		refill := h.expires.Sub(now).Round(time.Second)
		return nil, bs.over(h.b, h.who, spentWhat(names[refused], counts[refused], bounds[refused], ns[refused]), refill)
	}
	return hold, nil
}

// wouldReserve is reserve without counting: it refuses c as reserve
// would, or notes on c what each budget that applies leaves.
func (bs *Budgets) wouldReserve(ctx context.Context, c *tooling.Call, in int64) error {
	left, err := bs.Left(ctx, c.Principal, c.Tool)
	if err != nil {
		return &tooling.Error{Code: codes.Unavailable, Message: fmt.Sprintf("budgets cannot be checked: %v", err)}
	}
	for i, l := range left {
		var parts []string
		for _, k := range l.Counts {
			n := int64(0)
			switch k.What {
			case counterCalls:
				n = 1
			case counterBytesIn:
				n = in
			}
			if k.Used >= k.Bound || k.Used+n > k.Bound {
				return bs.over(&bs.list[bs.index(l.Name)], l.Who, spentWhat(k.What, k.Used, k.Bound, n), l.Refill.Round(time.Second))
			}
			parts = append(parts, fmt.Sprintf("%d of %d %s left", k.Bound-k.Used, k.Bound, strings.ReplaceAll(k.What, "_", " ")))
		}
		c.Decide("budget", fmt.Sprintf("would pass: %s of %s: %s (nothing counted)", left[i].Name, whose(l.Per == "tenant", l.Who), strings.Join(parts, ", ")))
	}
	return nil
}

// index is the position of the budget named name.
func (bs *Budgets) index(name string) int {
	for i := range bs.list {
		if bs.list[i].Name == name {
			return i
		}
	}
	return -1
}

func spentWhat(counter string, count, bound, n int64) string {
	switch counter {
	case counterCalls:
		return fmt.Sprintf("%d of %d calls used", count, bound)
	case counterBytesIn:
		return fmt.Sprintf("%d of %d bytes in left, the call sends %d", max(bound-count, 0), bound, n)
	}
	if counter == counterCPU {
		return fmt.Sprintf("all %d ms of CPU used", bound)
	}
	return fmt.Sprintf("all %d bytes out used", bound)
}

// spendAfter counts the output's bytes and the CPU milliseconds of a call
// (res) against the budgets it reserved; it says so when a budget is now
// spent past its bound.
func (bs *Budgets) spendAfter(ctx context.Context, hold []held, res *tooling.Result) string {
	out, cpu := int64(len(res.Output)), cpuMillis(res)
	type spent struct {
		h        *held
		unit     string
		n, bound int64
	}
	var (
		what    []spent
		keys    []string
		ns      []int64
		expires []time.Time
	)
	for i := range hold {
		h := &hold[i]
		for _, k := range [...]struct {
			counter, unit string
			n, bound      int64
		}{{counterBytesOut, "bytes out", out, h.b.BytesOut}, {counterCPU, "ms of CPU", cpu, h.b.CPUMillis}} {
			if k.bound == 0 || k.n == 0 {
				continue
			}
			what = append(what, spent{h, k.unit, k.n, k.bound})
			keys, ns, expires = append(keys, h.key(k.counter)), append(ns, k.n), append(expires, h.expires)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	counts, _, err := addAll(context.WithoutCancel(ctx), bs.store, keys, ns, make([]int64, len(keys)), expires)
	var over []string
	for i, w := range what {
		switch {
		case err != nil:
			over = append(over, fmt.Sprintf("%s: %d %s could not be counted: %v", w.h.b.Name, w.n, w.unit, err))
		case counts[i] > w.bound:
			over = append(over, fmt.Sprintf("%s: the call took %d of %d %s; later calls are refused until it refills", w.h.b.Name, counts[i], w.bound, w.unit))
		}
	}
	return strings.Join(over, "; ")
}

// cpuMillis is the CPU time a confined call's child spent, from its "cpu"
// decision ("12.5ms of CPU in the confined child"), rounded up to a
// millisecond; 0 for a call that ran in process.
func cpuMillis(res *tooling.Result) int64 {
	for _, d := range res.Governance {
		if d.Step != "cpu" {
			continue
		}
		first, _, _ := strings.Cut(d.Detail, " ")
		if cpu, err := time.ParseDuration(first); err == nil && cpu > 0 {
			return int64((cpu + time.Millisecond - 1) / time.Millisecond)
		}
	}
	return 0
}

func (bs *Budgets) over(b *Budget, who, what string, refill time.Duration) error {
	return &tooling.Error{Code: CodeBudgetExceeded,
		Message: fmt.Sprintf("%s of %s: %s; it refills in %s", b.Name, whose(b.PerTenant, who), what, refill)}
}

// whose names the subject or tenant a count is kept for.
func whose(perTenant bool, who string) string {
	if perTenant {
		if who == "" {
			who = "(none)"
		}
		return "tenant " + who
	}
	if who == "" {
		who = "anonymous"
	}
	return "subject " + who
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == "*" || toolname.Match(p, name) {
			return true
		}
	}
	return false
}
