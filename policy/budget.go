package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// CodeBudgetExceeded: the call would spend more than a Budget leaves its
// principal; the message names the budget, what is left and when it
// refills.
const CodeBudgetExceeded tooling.Code = "budget_exceeded"

// Budget bounds what each subject (or each tenant) may spend on the tools
// it names over a window: calls, bytes of arguments in and bytes of output
// out. A zero bound is no bound.
type Budget struct {
	// Name names the budget in refusals; zero: "budget N".
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
}

// Budgets enforces budgets as middleware (Middleware). A call over any of
// its budgets is refused before it runs; its output is counted after, so a
// call that returns more than is left is reported, and the next one
// refused. Safe for concurrent use: calls reserve what they spend before
// they run, so concurrent calls never overspend.
type Budgets struct {
	list []Budget
	now  func() time.Time

	mu    sync.Mutex
	spent map[spendKey]*spending
}

type spendKey struct {
	budget int
	who    string
}

type spending struct {
	window                   time.Time // start of the window counted
	calls, bytesIn, bytesOut int64
}

// NewBudgets checks list and returns its budgets. now is the clock (nil:
// time.Now), a parameter so that tests need not wait for a window.
func NewBudgets(list []Budget, now func() time.Time) (*Budgets, error) {
	var errs []error
	out := make([]Budget, len(list))
	for i, b := range list {
		if b.Name == "" {
			b.Name = fmt.Sprintf("budget %d", i+1)
		}
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
		if b.Calls < 0 || b.BytesIn < 0 || b.BytesOut < 0 {
			errs = append(errs, fmt.Errorf("policy: %s has a negative bound", b.Name))
		}
		b.Tools = slices.Clone(b.Tools)
		out[i] = b
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if now == nil {
		now = time.Now
	}
	return &Budgets{list: out, now: now, spent: map[spendKey]*spending{}}, nil
}

// Middleware refuses calls over budget and counts what calls spend.
func (bs *Budgets) Middleware() tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			in := int64(len(c.Raw()))
			held, err := bs.reserve(c, in)
			if err != nil {
				return nil, err
			}
			res, err := next(ctx, c)
			if res != nil {
				if over := bs.spendOutput(held, int64(len(res.Output))); over != "" {
					c.Decide("budget", over)
				}
			}
			return res, err
		}
	}
}

// reserve counts a call and its argument bytes against every budget that
// applies, or refuses it without counting anything.
func (bs *Budgets) reserve(c *tooling.Call, in int64) ([]*held, error) {
	now := bs.now()
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var hold []*held
	for i := range bs.list {
		b := &bs.list[i]
		if !matchesAny(b.Tools, c.Tool) {
			continue
		}
		who := c.Principal.Subject
		if b.PerTenant {
			who = c.Principal.Tenant
		}
		key := spendKey{i, who}
		s := bs.spent[key]
		start := now.Truncate(b.Window)
		if s == nil || !s.window.Equal(start) {
			s = &spending{window: start}
			bs.spent[key] = s
		}
		refill := start.Add(b.Window).Sub(now).Round(time.Second)
		switch {
		case b.Calls > 0 && s.calls+1 > b.Calls:
			return nil, bs.over(b, who, fmt.Sprintf("%d of %d calls used", s.calls, b.Calls), refill)
		case b.BytesIn > 0 && s.bytesIn+in > b.BytesIn:
			return nil, bs.over(b, who, fmt.Sprintf("%d of %d bytes in left, the call sends %d", b.BytesIn-s.bytesIn, b.BytesIn, in), refill)
		case b.BytesOut > 0 && s.bytesOut >= b.BytesOut:
			return nil, bs.over(b, who, fmt.Sprintf("all %d bytes out used", b.BytesOut), refill)
		}
		hold = append(hold, &held{b: b, s: s})
	}
	for _, h := range hold {
		h.s.calls++
		h.s.bytesIn += in
	}
	return hold, nil
}

type held struct {
	b *Budget
	s *spending
}

// spendOutput counts out bytes of output against what a call reserved; it
// says so when a budget is now spent past its bound.
func (bs *Budgets) spendOutput(hold []*held, out int64) string {
	bs.mu.Lock()
	defer bs.mu.Unlock()
	var over string
	for _, h := range hold {
		h.s.bytesOut += out
		if h.b.BytesOut > 0 && h.s.bytesOut > h.b.BytesOut && over == "" {
			over = fmt.Sprintf("%s: output took %d of %d bytes out; later calls are refused until it refills", h.b.Name, h.s.bytesOut, h.b.BytesOut)
		}
	}
	return over
}

func (bs *Budgets) over(b *Budget, who, what string, refill time.Duration) error {
	scope := "subject"
	if b.PerTenant {
		scope = "tenant"
	}
	if who == "" {
		who = "anonymous"
		if b.PerTenant {
			who = "(none)"
		}
	}
	return &tooling.Error{Code: CodeBudgetExceeded,
		Message: fmt.Sprintf("%s of %s %s: %s; it refills in %s", b.Name, scope, who, what, refill)}
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == "*" || toolname.Match(p, name) {
			return true
		}
	}
	return false
}
