package state_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
	"github.com/toolexplorer/toolexplorer/state"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// work is a tool's fixed work, about 10 µs on an idle core: hashing 4 KB.
func work() [32]byte {
	var buf [4096]byte
	return sha256.Sum256(buf[:])
}

// benchRegistry is a registry with one rate-limited tool that takes
// idempotency keys: in process (shared nil) or with its rate limit and
// idempotency records on Redis.
func benchRegistry(b *testing.B, shared *state.Redis) (*tooling.Registry, *state.Idempotency) {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "bench.pay", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true,
		Rate: tooling.Rate{PerMinute: 1e9, Burst: 1 << 30}},
		Run: func(context.Context, tooling.Call) (any, error) { h := work(); return h[0], nil }})
	if shared == nil {
		return reg, nil
	}
	idem := shared.Idempotency()
	reg.Use(shared.Limits(reg).Middleware())
	reg.SetIdempotencyStore(idem)
	return reg, idem
}

// BenchmarkSharedStateCall compares, call by call in turn (so that the
// machine's load falls on all alike), a call whose rate limit and
// idempotency record are on a local redis-server (redis) against the same
// call in process (local), and the time Redis adds (redis - local) against
// one round trip. rate-only is the same call without a key (the rate limit
// alone). The outcome of a keyed call, stored on Redis after the call
// returns, is flushed outside the measured time, so that it does not slow
// the next measurement.
//
// One round trip is measured two ways: a PING alone (ping), and a PING
// made by a middleware of the call in process (ping-call - local: a round
// trip as a call meets it, after the registry's own work, which on a
// loaded machine costs more than one made right after another).
//
// peer is what a host would do instead with the peers it would pick: the
// call in process, with a middleware that takes a token with redis_rate's
// Limiter.Allow (one GCRA script) and claims the key with SET NX. allow is
// Limiter.Allow alone, as a PING alone is.
func BenchmarkSharedStateCall(b *testing.B) {
	srv := redistest.Start(b)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()
	shared := state.NewRedis(rdb, state.Options{Prefix: "bench", Timeout: time.Second})
	local, _ := benchRegistry(b, nil)
	remote, idem := benchRegistry(b, shared)
	lim := redis_rate.NewLimiter(rdb)
	limit := redis_rate.Limit{Rate: 1e9, Burst: 1 << 30, Period: time.Minute}
	pinged, _ := benchRegistry(b, nil)
	pinged.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if err := rdb.Ping(ctx).Err(); err != nil {
				return nil, err
			}
			return next(ctx, c)
		}
	})
	peer, _ := benchRegistry(b, nil)
	peer.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if res, err := lim.Allow(ctx, "peer:"+c.Tool, limit); err != nil || res.Allowed == 0 {
				return nil, fmt.Errorf("peer: no token: %v", err)
			}
			if ok, err := rdb.SetNX(ctx, "peer:idem:"+c.IdempotencyKey, "pending", time.Minute).Result(); err != nil || !ok {
				return nil, fmt.Errorf("peer: not claimed: %v", err)
			}
			return next(ctx, c)
		}
	})
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	call := func(reg *tooling.Registry, opts ...tooling.Option) {
		if _, err := reg.Execute(ctx, "bench.pay", args, opts...); err != nil {
			b.Fatal(err)
		}
	}
	var key tooling.Option
	ops := []func(){
		func() { call(local, key) },
		func() { call(remote, key) },
		func() { call(remote) },
		func() { call(pinged, key) },
		func() { call(peer, key) },
		func() {
			if _, err := lim.Allow(ctx, "peer:allow", limit); err != nil {
				b.Fatal(err)
			}
		},
		func() {
			if err := rdb.Ping(ctx).Err(); err != nil {
				b.Fatal(err)
			}
		},
	}
	ts := make([][]time.Duration, len(ops))
	b.ReportAllocs()
	round := 0
	for b.Loop() {
		round++
		key = tooling.WithIdempotencyKey(fmt.Sprintf("k%d", round))
		// Each round starts with the next, so that none gains from its
		// place.
		for j := range ops {
			i := (j + round) % len(ops)
			start := time.Now()
			ops[i]()
			ts[i] = append(ts[i], time.Since(start))
			// The outcome of a keyed call goes to Redis after it returns:
			// it is there before the next measurement, which it would
			// otherwise slow.
			if err := idem.Flush(ctx); err != nil {
				b.Fatal(err)
			}
		}
	}
	tLocal, tRemote, tRate, tPinged, tPeer, tAllow, tPing := ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], ts[6]
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	ml, mr, mrate, mpinged, mpeer, mallow, mp := med(tLocal), med(tRemote), med(tRate), med(tPinged), med(tPeer), med(tAllow), med(tPing)
	trip := mpinged - ml
	b.ReportMetric(ml, "local-ns")
	b.ReportMetric(mr, "redis-ns")
	b.ReportMetric(mrate, "rate-only-ns")
	b.ReportMetric(mpinged, "ping-call-ns")
	b.ReportMetric(mpeer, "peer-ns")
	b.ReportMetric(mp, "ping-ns")
	b.ReportMetric((mr-ml)/trip, "added-trips")
	b.ReportMetric((mrate-ml)/trip, "rate-added-trips")
	b.ReportMetric((mpeer-ml)/trip, "peer-added-trips")
	b.ReportMetric((mr-ml)/mp, "added-pings")
	b.ReportMetric((mrate-ml)/mp, "rate-added-pings")
	b.ReportMetric((mpeer-ml)/mp, "peer-added-pings")
	b.ReportMetric(mallow/mp, "allow-pings")
}
