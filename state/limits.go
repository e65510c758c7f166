package state

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/tooling"
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

// Middleware takes each call's token from its tool's bucket on Redis.
func (l *Limits) Middleware() tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			pol, err := l.reg.Policy(c.Tool)
			if err != nil || pol.Rate.PerMinute <= 0 || math.IsInf(pol.Rate.PerMinute, 1) {
				return next(ctx, c)
			}
			limit := limitOf(pol.Rate)
			var res *redis_rate.Result
			err = l.call(ctx, func(ctx context.Context) (err error) {
				res, err = l.lim.Allow(ctx, l.prefix+":"+pol.Rate.Key, limit)
				return err
			})
			if err != nil {
				return l.failure(ctx, next, c, err)
			}
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
