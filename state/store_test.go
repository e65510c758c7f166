package state_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/policy/storetest"
	"github.com/toolexplorer/toolexplorer/state"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
	"github.com/toolexplorer/toolexplorer/tooling/tooltest"
)

// client is a client of srv, closed when the test ends.
func client(t *testing.T, srv *redisServer) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true, MaxRetries: 1})
	t.Cleanup(func() { c.Close() })
	return c
}

// prefix is a key prefix of its own, so that tests sharing a server
// never meet.
func prefix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return "t" + hex.EncodeToString(b[:])
}

// TestIdempotencyOnRedis: the Redis store keeps every promise of
// idempotency.Store, as the memory and SQLite stores do.
func TestIdempotencyOnRedis(t *testing.T) {
	rdb := client(t, startRedis(t))
	tooltest.TestIdempotencyStore(t, func(t *testing.T) idempotency.Store {
		return state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: 5 * time.Second}).Idempotency()
	})
}

// TestIdempotencyOnRedisTwoProcesses: two stores on one server, as two
// replicas hold them, keep the promises between them: one claims, the
// other waits, completes and reads.
func TestIdempotencyOnRedisTwoProcesses(t *testing.T) {
	srv := startRedis(t)
	a, b := client(t, srv), client(t, srv)
	tooltest.TestIdempotencyStore(t, func(t *testing.T) idempotency.Store {
		p := prefix()
		return &split{a: state.NewRedis(a, state.Options{Prefix: p, Timeout: 5 * time.Second}).Idempotency(),
			b: state.NewRedis(b, state.Options{Prefix: p, Timeout: 5 * time.Second}).Idempotency()}
	})
}

// split claims through a and reads through b; a completes, holding the
// claim.
type split struct{ a, b idempotency.Store }

func (s *split) Claim(ctx context.Context, key, digest string, lease time.Duration) (*idempotency.Record, error) {
	return s.a.Claim(ctx, key, digest, lease)
}

func (s *split) Complete(ctx context.Context, key string, rec *idempotency.Record, ttl time.Duration) error {
	if err := s.a.Complete(ctx, key, rec, ttl); err != nil {
		return err
	}
	// The outcome is stored on Redis after Complete returns: b reads it
	// once it is there.
	return s.a.(*state.Idempotency).Flush(ctx)
}

func (s *split) Get(ctx context.Context, key string) (*idempotency.Record, error) {
	return s.b.Get(ctx, key)
}

// TestIdempotencyCrashedClaimerExpires: a claim whose holder died (its
// client closed before it completed) ends with its lease, on Redis: another
// process then claims the key.
func TestIdempotencyCrashedClaimerExpires(t *testing.T) {
	srv := startRedis(t)
	p := prefix()
	dead := redis.NewClient(&redis.Options{Addr: srv.Addr, ContextTimeoutEnabled: true})
	if rec, err := state.NewRedis(dead, state.Options{Prefix: p}).Idempotency().Claim(t.Context(), "k", "d", 300*time.Millisecond); rec != nil || err != nil {
		t.Fatalf("first claim: %+v, %v", rec, err)
	}
	dead.Close()
	other := state.NewRedis(client(t, srv), state.Options{Prefix: p, Timeout: 5 * time.Second}).Idempotency()
	rec, err := other.Get(t.Context(), "k")
	if err != nil || rec == nil || !rec.Pending {
		t.Fatalf("Get while the lease runs: %+v, %v; want the pending claim", rec, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if rec, err := other.Claim(ctx, "k", "d", time.Hour); rec != nil || err != nil {
		t.Fatalf("claim past the dead claimer's lease: %+v, %v; want nil (claimed)", rec, err)
	}
}

// TestCountsOnRedis: the Redis store of counts keeps every promise of
// policy.Store and policy.BatchStore, as the memory store does.
func TestCountsOnRedis(t *testing.T) {
	rdb := client(t, startRedis(t))
	storetest.Run(t, func(*testing.T) storetest.Store {
		return state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: 5 * time.Second}).Counts(nil)
	})
}

// TestCountsKeysByTenant: a count's key on Redis starts with the prefix
// and the tenant as a hash tag, so that a cluster keeps a tenant's counts
// together.
func TestCountsKeysByTenant(t *testing.T) {
	rdb := client(t, startRedis(t))
	p := prefix()
	s := state.NewRedis(rdb, state.Options{Prefix: p}).Counts(nil)
	if _, _, err := s.AddAll(t.Context(), []string{"acme\x00budget\x00b\x00alice\x00calls\x000", "acme\x00budget\x00b\x00alice\x00bytes_in\x000"},
		[]int64{1, 10}, []int64{5, 100}, []time.Time{time.Now().Add(time.Minute), time.Now().Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(t.Context(), "*"+p+"*").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k, "{"+p+":acme}:budget:b:alice:") {
			t.Errorf("key %q: want {%s:acme}:budget:b:alice:...", k, p)
		}
		if ttl := rdb.PTTL(t.Context(), k).Val(); ttl <= 0 || ttl > 2*time.Minute+time.Second {
			t.Errorf("key %q expires in %v, want the window's end and a minute", k, ttl)
		}
	}
	if len(keys) != 2 {
		t.Errorf("keys %q, want two", keys)
	}
}

// TestRedisDownEachStore: with Redis stopped, each store fails naming
// Redis (fail closed), or decides in the process with a warning
// (FailOpen); Status says which; with Redis back, they decide on it again.
func TestRedisDownEachStore(t *testing.T) {
	srv := startRedis(t)
	rdb := client(t, srv)
	ctx := t.Context()
	var mu sync.Mutex
	var warned []string
	closed := state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second})
	open := state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: time.Second, FailOpen: true,
		Warn: func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }})
	local := &memCounts{}
	for _, s := range []*state.Redis{closed, open} {
		if st := s.Status(); st.State != state.StateConnected {
			t.Fatalf("before any decision: %+v", st)
		}
	}
	srv.Stop()

	_, err := closed.Idempotency().Claim(ctx, "k", "d", time.Minute)
	if err == nil || !strings.Contains(err.Error(), "Redis at "+srv.Addr) {
		t.Errorf("fail closed, claim with Redis down: %v; want an error naming Redis", err)
	}
	if _, _, err := closed.Counts(local).AddAll(ctx, []string{"t\x00c"}, []int64{1}, []int64{5}, []time.Time{time.Now()}); err == nil || !strings.Contains(err.Error(), "Redis at") {
		t.Errorf("fail closed, budgets with Redis down: %v; want an error naming Redis", err)
	}
	if st := closed.Status(); st.State != state.StateRefusing || st.Healthy || st.Failed != 2 || !strings.Contains(st.String(), "refusing calls") {
		t.Errorf("fail closed, status: %+v (%s)", st, st)
	}

	idem := open.Idempotency()
	if rec, err := idem.Claim(ctx, "k", "d", time.Minute); rec != nil || err != nil {
		t.Errorf("fall back, claim with Redis down: %+v, %v; want claimed in the process", rec, err)
	}
	if err := idem.Complete(ctx, "k", &idempotency.Record{Digest: "d", Outcome: []byte("x")}, time.Minute); err != nil {
		t.Errorf("fall back, complete: %v", err)
	}
	if rec, err := idem.Claim(ctx, "k", "d", time.Minute); err != nil || rec == nil || string(rec.Outcome) != "x" {
		t.Errorf("fall back, repeat: %+v, %v; want the outcome kept in the process", rec, err)
	}
	if counts, refused, err := open.Counts(local).AddAll(ctx, []string{"t\x00c"}, []int64{1}, []int64{5}, []time.Time{time.Now()}); err != nil || refused != -1 || counts[0] != 1 || local.adds != 1 {
		t.Errorf("fall back, budgets: %v %d %v (local adds %d); want added to the local store", counts, refused, err, local.adds)
	}
	if st := open.Status(); st.State != state.StateFallingBack || st.OnFailure != "local" {
		t.Errorf("fall back, status: %+v", st)
	}
	mu.Lock()
	if len(warned) != 3 {
		t.Errorf("warnings %q, want one for each claim and one for the budgets", warned)
	}
	mu.Unlock()

	srv.Start()
	for name, s := range map[string]*state.Redis{"closed": closed, "open": open} {
		var err error
		for range 2 { // the first command may meet the connection Redis closed
			if _, _, err = s.Counts(local).AddAll(ctx, []string{"t\x00c"}, []int64{1}, []int64{5}, []time.Time{time.Now()}); err == nil {
				break
			}
		}
		if st := s.Status(); err != nil || st.State != state.StateConnected {
			t.Errorf("%s, Redis back: %v, %+v", name, err, st)
		}
	}
}

// memCounts is a local store of counts that counts its adds.
type memCounts struct {
	mu   sync.Mutex
	n    map[string]int64
	adds int
}

func (m *memCounts) Take(context.Context, string, float64, int, time.Time) (time.Duration, error) {
	return 0, errors.New("not used")
}

func (m *memCounts) Add(_ context.Context, key string, n, bound int64, _ time.Time) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[string]int64{}
	}
	m.adds++
	if bound > 0 && m.n[key]+n > bound {
		return m.n[key], false, nil
	}
	m.n[key] += n
	return m.n[key], true, nil
}

// TestIdempotencyOutcomeStoredWithoutWaiting: Complete hands the outcome
// over and returns; while it is on its way (here, Redis is down), this
// process answers a repeat with it at once, and Flush waits for it. Once
// Redis is back, the outcome is stored and another process reads it.
func TestIdempotencyOutcomeStoredWithoutWaiting(t *testing.T) {
	srv := startRedis(t)
	p := prefix()
	var warned []string
	var mu sync.Mutex
	a := state.NewRedis(client(t, srv), state.Options{Prefix: p, Timeout: time.Second,
		Warn: func(m string) { mu.Lock(); warned = append(warned, m); mu.Unlock() }}).Idempotency()
	b := state.NewRedis(client(t, srv), state.Options{Prefix: p, Timeout: time.Second}).Idempotency()
	ctx := context.Background()
	if rec, err := a.Claim(ctx, "k", "d1", time.Hour); rec != nil || err != nil {
		t.Fatalf("claim: %+v, %v", rec, err)
	}
	srv.Stop()
	if err := a.Complete(ctx, "k", &idempotency.Record{Digest: "d1", Outcome: []byte("out")}, time.Hour); err != nil {
		t.Fatalf("Complete with Redis down: %v; want it handed over", err)
	}
	if rec, err := a.Claim(ctx, "k", "d1", time.Hour); err != nil || rec == nil || rec.Pending || string(rec.Outcome) != "out" {
		t.Fatalf("a repeat in the process, the outcome on its way: %+v, %v; want the outcome", rec, err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if err := a.Flush(short); err == nil {
		t.Fatal("Flush returned with the outcome not on Redis")
	}
	srv.Start()
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if rec, err := b.Get(ctx, "k"); err != nil || rec == nil || rec.Pending || string(rec.Outcome) != "out" {
		t.Fatalf("the other process, once flushed: %+v, %v; want the outcome", rec, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 0 {
		t.Errorf("warnings %q; want none: the outcome was kept", warned)
	}
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

// TestKeyedCallOneRoundTripBeforeItRuns: a call with an idempotency key
// to a tool whose rate is shared on Redis makes one round trip before its
// tool runs (the claim and the token in one script), where it made two,
// and returns without waiting for its outcome to be stored (three before).
// A repeat that replays takes no token; a call the bucket has no token
// for is refused rate_limited and leaves its key unclaimed.
func TestKeyedCallOneRoundTripBeforeItRuns(t *testing.T) {
	srv := startRedis(t)
	rdb := client(t, srv)
	trips := &roundTrips{}
	rdb.AddHook(trips)
	shared := state.NewRedis(rdb, state.Options{Prefix: prefix(), Timeout: 5 * time.Second})
	reg := tooling.NewRegistry()
	var before atomic.Int64
	if err := reg.Add(tooling.Tool{Name: "t.pay", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true,
		Rate: tooling.Rate{PerMinute: 1, Burst: 3}},
		Run: func(context.Context, tooling.Call) (any, error) { before.Store(trips.n.Load()); return "paid", nil }}); err != nil {
		t.Fatal(err)
	}
	reg.Use(shared.Limits(reg).Middleware())
	idem := shared.Idempotency()
	reg.SetIdempotencyStore(idem)
	ctx := context.Background()
	pay := func(key string) (*tooling.Result, int64, int64) {
		t.Helper()
		start := trips.n.Load()
		before.Store(-1)
		res, _ := reg.Execute(ctx, "t.pay", nil, tooling.WithIdempotencyKey(key))
		returned := trips.n.Load()
		if err := idem.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		b := before.Load()
		if b >= 0 {
			b -= start
		}
		return res, b, returned - start
	}
	// The scripts are loaded on the server by the first calls (a NOSCRIPT
	// answer, then EVAL): count from the second.
	if res, _, _ := pay("warm"); res.Code != codes.OK {
		t.Fatalf("first call: %s %s", res.Code, res.Message)
	}
	res, beforeRun, byReturn := pay("k1")
	if res.Code != codes.OK || beforeRun != 1 || byReturn > 2 || !strings.Contains(decisionOf(res, "shared rate"), "taken with the call's other decisions") {
		t.Fatalf("keyed call: %s %q, %d round trips before the run, %d by its return; want ok, 1 before the run, the outcome not waited for; governance %+v",
			res.Code, res.Message, beforeRun, byReturn, res.Governance)
	}
	// A replay takes no token: the third token is still there for k2.
	if res, _, _ := pay("k1"); !res.Replayed {
		t.Fatalf("repeat: %+v", res)
	}
	if res, _, _ := pay("k2"); res.Code != codes.OK || res.Replayed {
		t.Fatalf("third key, the third token: %s %q", res.Code, res.Message)
	}
	res, beforeRun, _ = pay("k3")
	if res.Code != codes.RateLimited || res.RetryAfter <= 0 || beforeRun >= 0 {
		t.Fatalf("fourth key, no token: %s %q (retry %v, ran %v); want rate_limited, not run", res.Code, res.Message, res.RetryAfter, beforeRun >= 0)
	}
	for _, k := range rdb.Keys(ctx, "*:idem:*").Val() {
		if v := rdb.Get(ctx, k).Val(); strings.HasPrefix(v, "P:") {
			t.Errorf("%s is left claimed (%q) after a refused call", k, v)
		}
	}
}

// decisionOf is the detail of the first decision of step in res.
func decisionOf(res *tooling.Result, step string) string {
	for _, d := range res.Governance {
		if d.Step == step {
			return d.Detail
		}
	}
	return ""
}
