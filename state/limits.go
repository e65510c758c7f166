package state

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/batch"
	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Limits decides the tools' rate limits on Redis, shared by every process
// that uses the same server and prefix.
type Limits struct {
	*Redis
	reg *tooling.Registry
	lim *redis_rate.Limiter
}

// NewLimits returns the limits of reg's tools on rdb. The client's
// commands must honour their context's deadline
// (redis.Options.ContextTimeoutEnabled), as those of NewClient do.
func NewLimits(reg *tooling.Registry, rdb redis.UniversalClient, o Options) *Limits {
	return NewRedis(rdb, o).Limits(reg)
}

// Limits returns the limits of reg's tools on r's server.
func (r *Redis) Limits(reg *tooling.Registry) *Limits {
	return &Limits{Redis: r, reg: reg, lim: redis_rate.NewLimiter(r.rdb)}
}

// Middleware takes each call's token from its tool's bucket on Redis. A
// call that is only explained (Registry.Explain) takes none: the bucket is
// read on Redis by a script that writes nothing.
//
// The token is taken with every other decision the call asks of this
// Redis (its idempotency key's claim, its principal's limits and budgets
// kept by Counts), in one script, all or none: a call one of them refuses
// spends nothing, and a call whose key replays an outcome takes no token.
func (l *Limits) Middleware() tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		dryrun.Declare(next)
		if !l.cluster {
			dryrun.DeclarePlan(next)
		}
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if dryrun.Declaring(ctx) {
				return nil, nil
			}
			pol, err := l.reg.Policy(c.Tool)
			if err != nil || pol.Rate.PerMinute <= 0 || math.IsInf(pol.Rate.PerMinute, 1) {
				return next(ctx, c)
			}
			limit := limitOf(pol.Rate)
			if dryrun.Is(ctx) {
				return l.explain(ctx, next, c, pol.Rate, limit)
			}
			b := batch.From(ctx)
			if b.Planning() {
				if b.Registry == any(l.reg) && !l.cluster {
					b.Add(l.Redis, &rateSpec{bucket: pol.Rate.Key, key: l.rateKey(pol.Rate), limit: limit})
				}
				return next(ctx, c)
			}
			if it := b.Take(l.Redis, isRateSpec); it != nil && it.Spec.(*rateSpec).bucket == pol.Rate.Key {
				if !it.Decided {
					l.settle(ctx, b)
				}
				if it.Err != nil {
					return l.failure(ctx, next, c, it.Err)
				}
				switch o := it.Outcome.(rateOutcome); {
				case !o.allowed:
					return l.limited(c, pol.Rate, o.retry)
				case o.spent:
					c.Decide("shared rate", fmt.Sprintf("token of bucket %q on %s, %d left (taken with the call's other decisions)", pol.Rate.Key, l.addr, o.remaining))
				default:
					c.Decide("shared rate", fmt.Sprintf("no token taken from bucket %q on %s: another decision refuses the call", pol.Rate.Key, l.addr))
				}
				return next(ctx, c)
			}
			var res *redis_rate.Result
			err = l.call(ctx, func(ctx context.Context) (err error) {
				res, err = l.lim.Allow(ctx, l.prefix+":"+pol.Rate.Key, limit)
				return err
			})
			if err != nil {
				return l.failure(ctx, next, c, err)
			}
			if res.Allowed == 0 {
				return l.limited(c, pol.Rate, res.RetryAfter)
			}
			c.Decide("shared rate", fmt.Sprintf("token of bucket %q on %s, %d left", pol.Rate.Key, l.addr, res.Remaining))
			return next(ctx, c)
		}
	}
}

// isRateSpec matches the token of a tool's shared rate in a batch: a
// call asks for one (its tool's).
func isRateSpec(spec any) bool { _, ok := spec.(*rateSpec); return ok }

// limited refuses c: the bucket of rate has no token for retry.
func (l *Limits) limited(c *tooling.Call, rate tooling.Rate, retry time.Duration) (*tooling.Result, error) {
	msg := fmt.Sprintf("%s is limited to %s across replicas (bucket %q on %s): retry in %v",
		c.Tool, rateString(rate), rate.Key, l.addr, retry.Round(time.Millisecond))
	return &tooling.Result{Code: codes.RateLimited, Message: msg, RetryAfter: retry},
		&tooling.Error{Code: codes.RateLimited, Tool: c.Tool, Message: msg}
}

// rateKey is the key of rate's bucket on Redis, as redis_rate names it.
func (l *Limits) rateKey(rate tooling.Rate) string { return "rate:" + l.prefix + ":" + rate.Key }

// peekRateScript reads the GCRA bucket KEYS[1] of redis_rate's allowN
// (ARGV: burst, rate, period in seconds) without taking a token: it
// returns {1, tokens now} when it has one, else {0, seconds to wait}. It
// writes nothing.
var peekRateScript = redis.NewScript(`#!lua flags=no-writes
local burst, rate, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local emission_interval = period / rate
local burst_offset = emission_interval * burst
local jan_1_2017 = 1483228800
local now = redis.call("TIME")
now = (now[1] - jan_1_2017) + (now[2] / 1000000)
local tat = redis.call("GET", KEYS[1])
if not tat then tat = now else tat = tonumber(tat) end
tat = math.max(tat, now)
local diff = now - (tat + emission_interval - burst_offset)
if diff < 0 then return {0, tostring(-diff)} end
return {1, tostring((now - tat + burst_offset) / emission_interval)}
`)

// explain says what the call's token would be, taking none: refused
// rate_limited when the bucket has none, else noted and passed on.
func (l *Limits) explain(ctx context.Context, next tooling.Handler, c *tooling.Call, rate tooling.Rate, limit redis_rate.Limit) (*tooling.Result, error) {
	var reply []any
	err := l.call(ctx, func(ctx context.Context) (err error) {
		reply, err = peekRateScript.Run(ctx, l.rdb, []string{l.rateKey(rate)},
			limit.Burst, limit.Rate, limit.Period.Seconds()).Slice()
		return err
	})
	if err != nil {
		return l.failure(ctx, next, c, err)
	}
	has, _ := reply[0].(int64)
	v, _ := reply[1].(string)
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return nil, fmt.Errorf("state: a bucket on Redis answered %q: %v", v, err)
	}
	if has == 0 {
		retry := max(time.Duration(n*float64(time.Second)), time.Millisecond)
		msg := fmt.Sprintf("%s is limited to %s across replicas (bucket %q on %s): no token now, retry in %v",
			c.Tool, rateString(rate), rate.Key, l.addr, retry.Round(time.Millisecond))
		return nil, &tooling.Error{Code: codes.RateLimited, Tool: c.Tool, Message: msg, Result: &tooling.Result{RetryAfter: retry}}
	}
	c.Decide("shared rate", fmt.Sprintf("would pass: %.1f tokens in bucket %q on %s (none taken)", math.Floor(n*10)/10, rate.Key, l.addr))
	return next(ctx, c)
}

// failure decides a call whose token Redis did not give: refused, or on
// under the process's own limits.
func (l *Limits) failure(ctx context.Context, next tooling.Handler, c *tooling.Call, err error) (*tooling.Result, error) {
	if ctx.Err() != nil {
		return nil, err
	}
	if l.open {
		msg := fmt.Sprintf("state: the shared rate limit of %s was not decided (%v): this process's own limit applies", c.Tool, err)
		l.warn(msg)
		c.Decide("shared rate", fmt.Sprintf("%v: this process's own limit applies", err))
		return next(ctx, c)
	}
	msg := fmt.Sprintf("%s: the shared rate limit cannot be decided: %v", c.Tool, err)
	return nil, &tooling.Error{Code: codes.Unavailable, Tool: c.Tool, Message: msg, Err: err}
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
