package policy

import (
	"context"
	"errors"
	"fmt"
	"math"
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

// Limit bounds how often each subject (or each tenant) may call the tools
// it names: a token bucket per principal, besides the bucket of each tool
// (Meta.Rate). A call without a token is refused with code rate_limited,
// naming the limit, and Result.RetryAfter.
type Limit struct {
	// Name names the limit in refusals and keys its buckets in the Store;
	// zero: "limit N". Names are unique.
	Name string
	// Tools are tool-name patterns, as Rule.Tools. Required.
	Tools []string
	// PerTenant keeps a bucket per tenant; zero: per subject (the
	// anonymous principal is one subject).
	PerTenant bool
	// PerMinute is the rate, calls a minute (fractions allowed). Required.
	PerMinute float64
	// Burst is how many calls may come at once before the rate applies;
	// zero: 1.
	Burst int
}

// Limits enforces limits as middleware (Middleware). Safe for concurrent
// use.
type Limits struct {
	list  []Limit
	now   func() time.Time
	store Store
}

// NewLimits checks list and returns its limits. The buckets are kept in a
// MemoryStore unless WithStore gives another.
func NewLimits(list []Limit, opts ...Option) (*Limits, error) {
	var errs []error
	out := make([]Limit, len(list))
	seen := map[string]bool{}
	for i, l := range list {
		if l.Name == "" {
			l.Name = fmt.Sprintf("limit %d", i+1)
		}
		if seen[l.Name] {
			errs = append(errs, fmt.Errorf("policy: two limits are named %q", l.Name))
		}
		seen[l.Name] = true
		if len(l.Tools) == 0 {
			errs = append(errs, fmt.Errorf("policy: %s names no tools", l.Name))
		}
		for _, p := range l.Tools {
			if !toolname.ValidPattern(p) {
				errs = append(errs, fmt.Errorf("policy: %s: %q is not a tool pattern", l.Name, p))
			}
		}
		if !(l.PerMinute > 0) || math.IsInf(l.PerMinute, 0) {
			errs = append(errs, fmt.Errorf("policy: %s: per_minute must be a positive number", l.Name))
		}
		if l.Burst < 0 {
			errs = append(errs, fmt.Errorf("policy: %s has a negative burst", l.Name))
		}
		if l.Burst == 0 {
			l.Burst = 1
		}
		l.Tools = slices.Clone(l.Tools)
		out[i] = l
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	o := optionsOf(opts)
	return &Limits{list: out, now: o.now, store: o.store}, nil
}

// Middleware refuses a call when a limit that applies has no token for its
// principal. A call takes a token from each limit that applies, in order,
// and is refused by the first that has none. With a Store shared on Redis
// (package state), the tokens are taken with every other decision the
// call asks of it, in one round trip, all or none. A call that is only explained
// (Registry.Explain) takes none: each limit says whether it has one, when
// its Store can tell without taking it (a MemoryStore can).
func (ls *Limits) Middleware() tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		dryrun.Declare(next)
		if batch.Plans(ls.store, nil) {
			dryrun.DeclarePlan(next)
		}
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if dryrun.Declaring(ctx) {
				return nil, nil
			}
			if b := batch.From(ctx); b.Planning() && !batch.Plans(ls.store, b) {
				return next(ctx, c) // a store of this process's: nothing to plan
			}
			take := ls.take
			if dryrun.Is(ctx) {
				take = ls.wouldTake
			}
			if err := take(ctx, c); err != nil {
				return nil, err
			}
			return next(ctx, c)
		}
	}
}

// peeker is a Store that tells how long until a bucket has a token
// without taking it.
type peeker interface {
	Peek(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (retry time.Duration, err error)
}

// wouldTake is take without taking: it refuses c as take would, or notes
// on c what each limit that applies would decide.
func (ls *Limits) wouldTake(ctx context.Context, c *tooling.Call) error {
	now := ls.now()
	p, canPeek := ls.store.(peeker)
	for i := range ls.list {
		l := &ls.list[i]
		if !matchesAny(l.Tools, c.Tool) {
			continue
		}
		who := c.Principal.Subject
		if l.PerTenant {
			who = c.Principal.Tenant
		}
		if !canPeek {
			c.Decide("limit", fmt.Sprintf("not known: %s of %s keeps its tokens in a store that cannot tell without taking one", l.Name, whose(l.PerTenant, who)))
			continue
		}
		retry, err := p.Peek(ctx, keyOf(c.Principal.Tenant, "limit", l.Name, who), l.PerMinute/60, l.Burst, now)
		if err != nil {
			return &tooling.Error{Code: codes.Unavailable, Message: fmt.Sprintf("limit %s cannot be checked: %v", l.Name, err)}
		}
		if retry > 0 {
			return &tooling.Error{Code: codes.RateLimited, Message: limitedMessage(l, who, retry), Result: &tooling.Result{RetryAfter: retry}}
		}
		c.Decide("limit", fmt.Sprintf("would pass: %s of %s has a token (none taken)", l.Name, whose(l.PerTenant, who)))
	}
	return nil
}

// limitedMessage is the refusal of a call l has no token for.
func limitedMessage(l *Limit, who string, retry time.Duration) string {
	return fmt.Sprintf("%s of %s is %s calls a minute (burst %d): retry in %v",
		l.Name, whose(l.PerTenant, who), strconv.FormatFloat(l.PerMinute, 'g', -1, 64), l.Burst, retry.Round(time.Millisecond))
}

func (ls *Limits) take(ctx context.Context, c *tooling.Call) error {
	var (
		apply  []*Limit
		whos   []string
		keys   []string
		rates  []float64
		bursts []int
	)
	for i := range ls.list {
		l := &ls.list[i]
		if !matchesAny(l.Tools, c.Tool) {
			continue
		}
		who := c.Principal.Subject
		if l.PerTenant {
			who = c.Principal.Tenant
		}
		apply, whos = append(apply, l), append(whos, who)
		keys = append(keys, keyOf(c.Principal.Tenant, "limit", l.Name, who))
		rates, bursts = append(rates, l.PerMinute/60), append(bursts, l.Burst)
	}
	if len(keys) == 0 {
		return nil
	}
	refused, retry, err := takeAll(ctx, ls.store, keys, rates, bursts, ls.now())
	if err != nil {
		names := make([]string, len(apply))
		for i, l := range apply {
			names[i] = l.Name
		}
		return &tooling.Error{Code: codes.Unavailable, Message: fmt.Sprintf("limit %s cannot be checked: %v", strings.Join(names, ", "), err)}
	}
	if refused < 0 {
		return nil
	}
	l := apply[refused]
	return &tooling.Error{Code: codes.RateLimited, Message: limitedMessage(l, whos[refused], retry), Result: &tooling.Result{RetryAfter: retry}}
}
