package state

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Defaults of Options.
const (
	DefaultPrefix  = "toolexplorer"
	DefaultTimeout = 100 * time.Millisecond
)

// Options tune Limits.
type Options struct {
	// Prefix starts every key. Zero: DefaultPrefix.
	Prefix string
	// Timeout bounds each decision's round trip to Redis. Zero:
	// DefaultTimeout.
	Timeout time.Duration
	// FailOpen lets a call whose decision Redis did not give in time go
	// on under the process's own limits, with a warning; default false:
	// it is refused with code unavailable, naming Redis.
	FailOpen bool
	// Warn is told of each fallback (FailOpen). Zero: slog.Warn.
	Warn func(msg string)
}

// Limits decides the tools' rate limits on Redis, shared by every process
// that uses the same server and prefix.
type Limits struct {
	reg     *tooling.Registry
	rdb     redis.UniversalClient
	lim     *redis_rate.Limiter
	addr    string
	prefix  string
	timeout time.Duration
	open    bool
	warn    func(string)

	decided, failed atomic.Int64
	mu              sync.Mutex
	lastErr         string
	lastErrAt       time.Time
	healthy         bool
}

// NewLimits returns the limits of reg's tools on rdb. The client's
// commands must honour their context's deadline
// (redis.Options.ContextTimeoutEnabled), as those of NewClient do.
func NewLimits(reg *tooling.Registry, rdb redis.UniversalClient, o Options) *Limits {
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Warn == nil {
		o.Warn = func(msg string) { slog.Warn(msg) }
	}
	addr := "Redis"
	if c, ok := rdb.(*redis.Client); ok {
		addr = "Redis at " + c.Options().Addr
	}
	return &Limits{reg: reg, rdb: rdb, lim: redis_rate.NewLimiter(rdb), addr: addr, prefix: o.Prefix,
		timeout: o.Timeout, open: o.FailOpen, warn: o.Warn, healthy: true}
}

// NewClient returns a Redis client for c whose commands honour their
// context's deadline, as Limits needs.
func NewClient(c config.Redis) *redis.Client {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return redis.NewClient(&redis.Options{Addr: c.Addr, Username: c.Username, Password: c.Password, DB: c.DB,
		ContextTimeoutEnabled: true, DialTimeout: timeout, MaxRetries: 1})
}

// Open returns the limits of reg on the Redis server c names, with its
// client: close the client when done.
func Open(reg *tooling.Registry, c config.Redis) (*Limits, *redis.Client) {
	rdb := NewClient(c)
	return NewLimits(reg, rdb, Options{Prefix: c.Prefix, Timeout: c.Timeout, FailOpen: c.FailOpen}), rdb
}

// Status is how Limits decides now.
type Status struct {
	// Backend names the server ("Redis at 127.0.0.1:6379").
	Backend string `json:"backend"`
	// OnFailure is "closed" (refuse) or "local" (the process's own
	// limits) when the server does not answer in time.
	OnFailure string `json:"on_failure"`
	// Healthy is false when the last decision failed.
	Healthy bool `json:"healthy"`
	// Decided counts the decisions Redis gave, Failed those it did not.
	Decided int64 `json:"decided"`
	Failed  int64 `json:"failed"`
	// LastError is the last failure and when it was; zero when none.
	LastError   string    `json:"last_error,omitempty"`
	LastErrorAt time.Time `json:"last_error_at,omitzero"`
}

// Status returns how Limits decides now.
func (l *Limits) Status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := Status{Backend: l.addr, OnFailure: "closed", Healthy: l.healthy, Decided: l.decided.Load(), Failed: l.failed.Load(),
		LastError: l.lastErr, LastErrorAt: l.lastErrAt}
	if l.open {
		s.OnFailure = "local"
	}
	return s
}

// Middleware takes each call's token from its tool's bucket on Redis.
func (l *Limits) Middleware() tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			pol, err := l.reg.Policy(c.Tool)
			if err != nil || pol.Rate.PerMinute <= 0 || math.IsInf(pol.Rate.PerMinute, 1) {
				return next(ctx, c)
			}
			limit := limitOf(pol.Rate)
			dctx, cancel := context.WithTimeout(ctx, l.timeout)
			res, err := l.lim.Allow(dctx, l.prefix+":"+pol.Rate.Key, limit)
			cancel()
			if err != nil {
				return l.failure(ctx, next, c, err)
			}
			l.decided.Add(1)
			l.mu.Lock()
			l.healthy = true
			l.mu.Unlock()
			if res.Allowed == 0 {
				msg := fmt.Sprintf("%s is limited to %s across replicas (bucket %q on %s): retry in %v",
					c.Tool, rateString(pol.Rate), pol.Rate.Key, l.addr, res.RetryAfter.Round(time.Millisecond))
				return &tooling.Result{Code: tooling.CodeRateLimited, Message: msg, RetryAfter: res.RetryAfter},
					&tooling.Error{Code: tooling.CodeRateLimited, Tool: c.Tool, Message: msg}
			}
			c.Decide("shared rate", fmt.Sprintf("token of bucket %q on %s, %d left", pol.Rate.Key, l.addr, res.Remaining))
			return next(ctx, c)
		}
	}
}

// failure decides a call whose token Redis did not give: refused, or on
// under the process's own limits.
func (l *Limits) failure(ctx context.Context, next tooling.Handler, c *tooling.Call, err error) (*tooling.Result, error) {
	l.failed.Add(1)
	l.mu.Lock()
	l.healthy, l.lastErr, l.lastErrAt = false, err.Error(), time.Now()
	l.mu.Unlock()
	if l.open {
		msg := fmt.Sprintf("state: the shared rate limit of %s was not decided (%s: %v): this process's own limit applies", c.Tool, l.addr, err)
		l.warn(msg)
		c.Decide("shared rate", fmt.Sprintf("%s did not answer (%v): this process's own limit applies", l.addr, err))
		return next(ctx, c)
	}
	msg := fmt.Sprintf("%s: the shared rate limit cannot be decided: %s did not answer: %v", c.Tool, l.addr, err)
	return nil, &tooling.Error{Code: tooling.CodeUnavailable, Tool: c.Tool, Message: msg, Err: err}
}

// limitOf is r as redis_rate's limit: PerMinute tokens a minute (a
// fractional rate as one token per its period), up to Burst.
func limitOf(r tooling.Rate) redis_rate.Limit {
	burst := max(r.Burst, 1)
	if r.PerMinute == math.Trunc(r.PerMinute) && r.PerMinute >= 1 {
		return redis_rate.Limit{Rate: int(r.PerMinute), Burst: burst, Period: time.Minute}
	}
	return redis_rate.Limit{Rate: 1, Burst: burst, Period: time.Duration(float64(time.Minute) / r.PerMinute)}
}

func rateString(r tooling.Rate) string {
	return fmt.Sprintf("%g/min, burst %d", r.PerMinute, max(r.Burst, 1))
}
