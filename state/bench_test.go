package state_test

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

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
// idempotency record are on a local redis-server against the same call in
// process, and one PING. It reports the median of each, the time Redis
// adds (redis - local) and that time in PING round trips; rate-only is the
// same call without a key (the rate limit alone). The outcome of a keyed
// call, stored on Redis after the call returns, is flushed outside the
// measured time, so that it does not slow the next measurement.
func BenchmarkSharedStateCall(b *testing.B) {
	srv := redistest.Start(b)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	defer rdb.Close()
	shared := state.NewRedis(rdb, state.Options{Prefix: "bench", Timeout: time.Second})
	local, _ := benchRegistry(b, nil)
	remote, idem := benchRegistry(b, shared)
	ctx := context.Background()
	args := json.RawMessage(`{}`)
	var tLocal, tRemote, tRate, tPing []time.Duration
	call := func(reg *tooling.Registry, opts ...tooling.Option) time.Duration {
		start := time.Now()
		if _, err := reg.Execute(ctx, "bench.pay", args, opts...); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		key := tooling.WithIdempotencyKey(fmt.Sprintf("k%d", i))
		tLocal = append(tLocal, call(local, key))
		tRemote = append(tRemote, call(remote, key))
		// The outcome goes to Redis after the call returns: it is there
		// before the next measurement, which it would otherwise slow.
		if err := idem.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		tRate = append(tRate, call(remote))
		start := time.Now()
		if err := rdb.Ping(ctx).Err(); err != nil {
			b.Fatal(err)
		}
		tPing = append(tPing, time.Since(start))
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds())
	}
	ml, mr, mrate, mp := med(tLocal), med(tRemote), med(tRate), med(tPing)
	b.ReportMetric(ml, "local-ns")
	b.ReportMetric(mr, "redis-ns")
	b.ReportMetric(mrate, "rate-only-ns")
	b.ReportMetric(mp, "ping-ns")
	b.ReportMetric((mr-ml)/mp, "added-pings")
	b.ReportMetric((mrate-ml)/mp, "rate-added-pings")
}
