package main

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/state"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// everyDecisionHost is a registry whose calls ask Redis for everything:
// t.pay takes idempotency keys and has a shared rate of a burst of 10,
// t.rare a shared rate of a burst of 1; a limit per subject (burst 4), a
// limit per tenant (burst 100) and a budget of 3 calls per subject, all
// counted on the same Redis, in the order a host installs them (the
// shared rates, then the limits, then the budgets). ran is set to the
// round trips trips counted when a tool runs.
func everyDecisionHost(t *testing.T, shared *state.Redis, ran *atomic.Int64, trips *roundTrips) (*tooling.Registry, *state.Idempotency) {
	t.Helper()
	reg := tooling.NewRegistry()
	run := func(context.Context, tooling.Call) (any, error) {
		ran.Store(trips.n.Load())
		return "paid", nil
	}
	for _, tool := range []tooling.Tool{
		{Name: "t.pay", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true, Rate: tooling.Rate{PerMinute: 1, Burst: 10}}, Run: run},
		{Name: "t.rare", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Rate: tooling.Rate{PerMinute: 1, Burst: 1}}, Run: run},
	} {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	counts := shared.Counts(policy.NewMemoryStore(nil))
	limits, err := policy.NewLimits([]policy.Limit{
		{Name: "per subject", Tools: []string{"t.*"}, PerMinute: 1, Burst: 4},
		{Name: "per tenant", Tools: []string{"t.*"}, PerTenant: true, PerMinute: 1, Burst: 100},
	}, policy.WithStore(counts))
	if err != nil {
		t.Fatal(err)
	}
	budgets, err := policy.NewBudgets([]policy.Budget{{Name: "calls", Tools: []string{"t.*"}, Window: time.Hour, Calls: 3, BytesIn: 1000}},
		policy.WithStore(counts))
	if err != nil {
		t.Fatal(err)
	}
	reg.Use(shared.Limits(reg).Middleware(), limits.Middleware(), budgets.Middleware())
	idem := shared.Idempotency()
	reg.SetIdempotencyStore(idem)
	return reg, idem
}

// snapshot is every key of prefix p on Redis and what it holds.
func snapshot(t *testing.T, rdb *redis.Client, p string) map[string]string {
	t.Helper()
	ctx := t.Context()
	keys, err := rdb.Keys(ctx, "*"+p+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, len(keys))
	for _, k := range keys {
		out[k] = rdb.Dump(ctx, k).Val()
	}
	return out
}

// everyDecisionCall makes a call of reg as subject of tenant acme, with
// an idempotency key unless key is "", and returns its result and how many
// round trips it made before its tool ran (-1: it did not run), once its
// outcome is stored.
func everyDecisionCall(t *testing.T, reg *tooling.Registry, idem *state.Idempotency, ran *atomic.Int64, trips *roundTrips,
	tool, subject, key string) (*tooling.Result, int64) {
	t.Helper()
	opts := []tooling.Option{tooling.WithPrincipal(tooling.Principal{Subject: subject, Tenant: "acme"})}
	if key != "" {
		opts = append(opts, tooling.WithIdempotencyKey(key))
	}
	start := trips.n.Load()
	ran.Store(-1)
	res, _ := reg.Execute(context.Background(), tool, nil, opts...)
	if err := idem.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if b := ran.Load(); b >= 0 {
		return res, b - start
	}
	return res, -1
}

// TestEveryDecisionOfACallInOneRoundTrip: a call whose idempotency key,
// tool rate, principal's limits (per subject and per tenant) and budget
// are all on Redis makes one round trip before its tool runs, keyed or
// not (it made three: the claim with the tool's token, the limits, the
// budget). A repeat that replays makes one and takes nothing.
func TestEveryDecisionOfACallInOneRoundTrip(t *testing.T) {
	rdb := client(t, redistest.Start(t))
	trips := &roundTrips{}
	rdb.AddHook(trips)
	var ran atomic.Int64
	reg, idem := everyDecisionHost(t, state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: 5 * time.Second}), &ran, trips)
	call := func(subject, key string) (*tooling.Result, int64) {
		t.Helper()
		return everyDecisionCall(t, reg, idem, &ran, trips, "t.pay", subject, key)
	}
	// The script is loaded on the server by the first call (a NOSCRIPT
	// answer, then EVAL): count from the second.
	if res, _ := call("warm", "warm"); res.Code != codes.OK {
		t.Fatalf("first call: %s %s", res.Code, res.Message)
	}
	for i, key := range []string{"k1", "", "k2"} {
		res, before := call("alice", key)
		if res.Code != codes.OK || before != 1 {
			t.Fatalf("alice's call %d (key %q): %s %q, %d round trips before the run; want ok after 1; governance %+v",
				i+1, key, res.Code, res.Message, before, res.Governance)
		}
		if d := decision(res, "shared rate"); !strings.Contains(d, "taken with the call's other decisions") {
			t.Fatalf("alice's call %d: shared rate %q", i+1, d)
		}
	}
	start := trips.n.Load()
	if res, before := call("alice", "k1"); !res.Replayed || before != -1 || trips.n.Load()-start != 1 {
		t.Fatalf("repeat of k1: replayed %v, ran %v, %d round trips; want replayed after 1", res.Replayed, before >= 0, trips.n.Load()-start)
	}
}

// TestACallRefusedSpendsNothing: the decisions of a call on Redis are all
// or none. A call the budget, a limit or the tool's rate refuses changes
// nothing on Redis, whichever refuses it: no token of the tool or of a
// limit, no count of a budget, no claim of its key (before, what was
// decided before the refusal stayed spent).
func TestACallRefusedSpendsNothing(t *testing.T) {
	rdb := client(t, redistest.Start(t))
	trips := &roundTrips{}
	rdb.AddHook(trips)
	p := prefix()
	shared := state.NewRedis(rdb, state.Options{Prefix: p, Timeout: 5 * time.Second})
	var ran atomic.Int64
	reg, idem := everyDecisionHost(t, shared, &ran, trips)
	call := func(tool, subject, key string) *tooling.Result {
		t.Helper()
		res, _ := everyDecisionCall(t, reg, idem, &ran, trips, tool, subject, key)
		return res
	}
	refused := func(what, tool, subject, key string, code codes.Code, in string) {
		t.Helper()
		was := snapshot(t, rdb, p)
		if res := call(tool, subject, key); res.Code != code || !strings.Contains(res.Message, in) {
			t.Fatalf("%s: %s %q; want %s naming %q", what, res.Code, res.Message, code, in)
		}
		if ran.Load() >= 0 {
			t.Fatalf("%s: the tool ran", what)
		}
		now := snapshot(t, rdb, p)
		for k, v := range now {
			if was[k] != v {
				t.Errorf("%s: %s changed on Redis", what, k)
			}
		}
		for k := range was {
			if _, ok := now[k]; !ok {
				t.Errorf("%s: %s was removed from Redis", what, k)
			}
		}
	}
	// Alice's budget of 3 calls is spent: her fourth call, keyed, takes
	// no token of the tool, of her limit or of her tenant's, and claims
	// nothing.
	for _, key := range []string{"k1", "", "k2"} {
		if res := call("t.pay", "alice", key); res.Code != codes.OK {
			t.Fatalf("alice: %s %s", res.Code, res.Message)
		}
	}
	refused("the budget", "t.pay", "alice", "k3", policy.CodeBudgetExceeded, "calls of subject alice")
	// t.rare's single token goes to bob; carol's call then spends none of
	// her limits nor her budget.
	if res := call("t.rare", "bob", ""); res.Code != codes.OK {
		t.Fatalf("bob's t.rare: %s %s", res.Code, res.Message)
	}
	refused("the tool's rate", "t.rare", "carol", "", codes.RateLimited, "across replicas")
	// Dave's bucket of the limit per subject is empty: his keyed call
	// takes no token of the tool nor of his tenant's limit, counts nothing
	// of his budget and claims nothing.
	for range 4 {
		if _, err := shared.Counts(nil).Take(t.Context(), "acme\x00limit\x00per subject\x00dave", 1.0/60, 4, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	refused("the limit", "t.pay", "dave", "kd", codes.RateLimited, "per subject of subject dave")
}

// TestEveryDecisionRedisDown: with Redis down, a call whose decisions
// are all on Redis waits for one deadline, not one per decision: it is
// refused unavailable, naming Redis (fail closed), or, with FailOpen,
// decided in the process alone, each decision with its warning.
func TestEveryDecisionRedisDown(t *testing.T) {
	srv := redistest.Start(t)
	rdb := client(t, srv)
	trips := &roundTrips{}
	rdb.AddHook(trips)
	var ran atomic.Int64
	closed, _ := everyDecisionHost(t, state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second}), &ran, trips)
	var mu sync.Mutex
	var warned []string
	open, _ := everyDecisionHost(t, state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second, FailOpen: true,
		Warn: func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }}), &ran, trips)
	srv.Stop()
	ctx := context.Background()
	who := tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: "acme"})
	for _, key := range []string{"k", ""} {
		opts := []tooling.Option{who}
		if key != "" {
			opts = append(opts, tooling.WithIdempotencyKey(key))
		}
		start := trips.n.Load()
		res, _ := closed.Execute(ctx, "t.pay", nil, opts...)
		if res.Code != codes.Unavailable || !strings.Contains(res.Message, "Redis at "+srv.Addr) {
			t.Errorf("fail closed, key %q: %s %q; want unavailable naming Redis", key, res.Code, res.Message)
		}
		if n := trips.n.Load() - start; n != 1 {
			t.Errorf("fail closed, key %q: %d attempts; want 1", key, n)
		}
		mu.Lock()
		warned = nil
		mu.Unlock()
		start = trips.n.Load()
		res, _ = open.Execute(ctx, "t.pay", nil, opts...)
		if res.Code != codes.OK || !strings.Contains(decision(res, "shared rate"), "own limit applies") {
			t.Errorf("fall back, key %q: %s %q, governance %+v; want ok under the process's own limits", key, res.Code, res.Message, res.Governance)
		}
		if n := trips.n.Load() - start; n != 1 {
			t.Errorf("fall back, key %q: %d attempts; want 1", key, n)
		}
		mu.Lock()
		want := 3 // the tool's rate, the limits, the budget
		if key != "" {
			want++ // the claim
		}
		if len(warned) != want {
			t.Errorf("fall back, key %q: warnings %q; want %d, one a decision", key, warned, want)
		}
		mu.Unlock()
	}
}

// client is a client of srv, closed when the test ends.
func client(t *testing.T, srv *redistest.Server) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: 1})
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrips counts the commands a client sends, one round trip each.
type roundTrips struct{ n atomic.Int64 }

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmd)
	}
}
func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.n.Add(1)
		return next(ctx, cmds)
	}
}
