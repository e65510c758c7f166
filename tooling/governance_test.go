package tooling_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// overlap counts calls inside a section and remembers the most at once.
type overlap struct {
	in, most atomic.Int64
}

func (o *overlap) enter() {
	n := o.in.Add(1)
	for {
		m := o.most.Load()
		if n <= m || o.most.CompareAndSwap(m, n) {
			return
		}
	}
}

func (o *overlap) leave() { o.in.Add(-1) }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 2m")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestExclusiveToolsNeverOverlap(t *testing.T) {
	r := tooling.NewRegistry()
	var kv, other, self overlap
	section := func(o *overlap) func(context.Context, tooling.Call) (any, error) {
		return func(context.Context, tooling.Call) (any, error) {
			o.enter()
			defer o.leave()
			time.Sleep(20 * time.Microsecond)
			return nil, nil
		}
	}
	r.Register(tooling.Tool{Name: "kv.put", Meta: tooling.Meta{Resources: []string{"kv"}}, Run: section(&kv)})
	r.Register(tooling.Tool{Name: "kv.del", Meta: tooling.Meta{Resources: []string{"kv"}}, Run: section(&kv)})
	r.Register(tooling.Tool{Name: "other.put", Meta: tooling.Meta{Resources: []string{"other"}}, Run: section(&other)})
	r.Register(tooling.Tool{Name: "self.put", Run: section(&self)}) // no key: exclusive per tool
	names := []string{"kv.put", "kv.del", "other.put", "self.put"}
	var wg sync.WaitGroup
	for g := 0; g < 32; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 1000/32+1; i++ {
				mustExec(t, r, names[(g+i)%len(names)], ``, tooling.WithConsent())
			}
		}()
	}
	wg.Wait()
	for _, name := range []string{"kv.put", "kv.del", "other.put", "self.put"} {
		if s, _ := toolStats(r, name); s.Peak != 1 || s.Running != 0 {
			t.Errorf("%s: peak running %d, running %d; want 1 and 0", name, s.Peak, s.Running)
		}
	}
	for name, o := range map[string]*overlap{"kv": &kv, "other": &other, "self.put": &self} {
		if o.most.Load() != 1 {
			t.Errorf("%s: %d calls overlapped", name, o.most.Load())
		}
	}
	if g := r.Stats(); len(g.Locks) != 0 || g.Slots.Used != 0 {
		t.Fatalf("held after all calls: %+v %+v", g.Locks, g.Slots)
	}
}

func TestExclusiveToolsWithDifferentKeysOverlap(t *testing.T) {
	r := tooling.NewRegistry()
	both := make(chan struct{})
	var arrived atomic.Int32
	run := func(context.Context, tooling.Call) (any, error) {
		if arrived.Add(1) == 2 {
			close(both)
		}
		select {
		case <-both:
			return "together", nil
		case <-time.After(2 * time.Minute): // a hang guard
			return nil, errors.New("the other call never came in")
		}
	}
	r.Register(tooling.Tool{Name: "a.put", Meta: tooling.Meta{Resources: []string{"a"}}, Run: run})
	r.Register(tooling.Tool{Name: "b.put", Meta: tooling.Meta{Resources: []string{"b"}}, Run: run})
	var wg sync.WaitGroup
	for _, n := range []string{"a.put", "b.put"} {
		wg.Add(1)
		go func() { defer wg.Done(); mustExec(t, r, n, ``) }()
	}
	wg.Wait()
}

// TestBusyWhenALockOutlastsTheDeadline: a call waiting for a held lock gives up busy at its
// deadline (in a synctest bubble: the clock moves only when every goroutine waits).
func TestBusyWhenALockOutlastsTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := tooling.NewRegistry()
		release := make(chan struct{})
		r.Register(tooling.Tool{Name: "kv.hold", Meta: tooling.Meta{Resources: []string{"kv"}},
			Run: func(context.Context, tooling.Call) (any, error) { <-release; return nil, nil }})
		r.Register(tooling.Tool{Name: "kv.get", Meta: tooling.Meta{Resources: []string{"kv"}}, Run: run})
		done := make(chan *tooling.Result)
		go func() { res, _ := r.Execute(context.Background(), "kv.hold", nil); done <- res }()
		synctest.Wait()
		if n := len(r.Stats().Locks); n != 1 {
			t.Fatalf("%d locks held, want kv.hold's", n)
		}
		start := time.Now()
		res, err := r.Execute(context.Background(), "kv.get", nil, tooling.WithTimeout(50*time.Millisecond))
		if !errors.Is(err, codes.Busy) || res.Status != "denied" || !strings.Contains(res.Message, `"kv" (held by kv.hold`) {
			t.Fatalf("err %v message %q", err, res.Message)
		}
		if took := time.Since(start); took < 50*time.Millisecond || took > 60*time.Millisecond || res.Wait < 50*time.Millisecond {
			t.Fatalf("busy after %v, wait %v; want at the 50ms deadline", took, res.Wait)
		}
		close(release)
		if res := <-done; !res.OK() {
			t.Fatal(res.Message)
		}
		mustExec(t, r, "kv.get", ``)
	})
}

func TestRateLimits(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.once", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 1}},
		Input: raw(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`), Run: run})
	r.Register(tooling.Tool{Name: "t.free", Run: run})
	r.Register(tooling.Tool{Name: "api.a", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 2, Burst: 2, Key: "api"}}, Run: run})
	r.Register(tooling.Tool{Name: "api.b", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 2, Burst: 2, Key: "api"}}, Run: run})

	// A call refused by validation spends no token.
	if _, err := r.Execute(context.Background(), "t.once", raw(`{"n":0}`)); !errors.Is(err, codes.ValidationError) {
		t.Fatal(err)
	}
	mustExec(t, r, "t.once", `{}`)
	res, err := r.Execute(context.Background(), "t.once", raw(`{}`))
	if !errors.Is(err, codes.RateLimited) || res.Status != "denied" {
		t.Fatalf("second call: %v", err)
	}
	if res.RetryAfter < 55*time.Second || res.RetryAfter > 61*time.Second || !strings.Contains(res.Message, "retry in") {
		t.Fatalf("retry after %v, message %q", res.RetryAfter, res.Message)
	}
	// A shared key is one bucket for both tools.
	mustExec(t, r, "api.a", ``)
	mustExec(t, r, "api.b", ``)
	if _, err := r.Execute(context.Background(), "api.a", nil); !errors.Is(err, codes.RateLimited) {
		t.Fatalf("shared bucket: %v", err)
	}

	// Per-tool overrides narrow: a tool with no rate gets one.
	cfg := tooling.Settings{}
	cfg.Tools = map[string]tooling.Override{"t.free": {Rate: tooling.Rate{PerMinute: 1, Burst: 1}}}
	r.Configure(cfg)
	mustExec(t, r, "t.free", ``)
	if _, err := r.Execute(context.Background(), "t.free", nil); !errors.Is(err, codes.RateLimited) {
		t.Fatalf("override: %v", err)
	}
	var found bool
	for _, b := range r.Stats().Buckets {
		found = found || b.Key == "t.free" && b.Tokens < 1
	}
	if !found {
		t.Fatalf("buckets %+v", r.Stats().Buckets)
	}
}

// TestRateLimitHintNamesTheSource: the hint of a rate_limited call points
// at what set the limit: the tool's Meta, or the config that set or
// lowered it.
func TestRateLimitHintNamesTheSource(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.meta", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 1}}, Run: run})
	r.Register(tooling.Tool{Name: "t.conf", Run: run})
	r.Register(tooling.Tool{Name: "t.lowered", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 60, Burst: 5}}, Run: run})
	cfg := tooling.Settings{}
	cfg.Tools = map[string]tooling.Override{"t.conf": {Rate: tooling.Rate{PerMinute: 1, Burst: 1}}, "t.lowered": {Rate: tooling.Rate{PerMinute: 1, Burst: 1}}}
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ tool, want, not string }{
		{"t.meta", "raise the tool's rate in its Meta", "config, which"},
		{"t.conf", `raise rate_per_minute and burst of "t.conf" under tools in the config, which sets this limit`, "Meta"},
		{"t.lowered", `under tools in the config, which sets this limit (up to the tool's own`, "its Meta"},
	} {
		mustExec(t, r, tc.tool, ``)
		res, err := r.Execute(context.Background(), tc.tool, nil)
		if !errors.Is(err, codes.RateLimited) {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if !strings.Contains(res.Hint, tc.want) || strings.Contains(res.Hint, tc.not) {
			t.Errorf("%s: hint %q, want %q", tc.tool, res.Hint, tc.want)
		}
	}
}

func TestRateOverrideNeverWidens(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.slowrate", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 1, Burst: 1}}, Run: run})
	cfg := tooling.Settings{}
	cfg.Tools = map[string]tooling.Override{"t.slowrate": {Rate: tooling.Rate{PerMinute: 600, Burst: 50}}}
	r.Configure(cfg)
	mustExec(t, r, "t.slowrate", ``)
	if _, err := r.Execute(context.Background(), "t.slowrate", nil); !errors.Is(err, codes.RateLimited) {
		t.Fatalf("override widened the declared rate: %v", err)
	}
}

// TestConcurrentReadOnlyCallsRunTogether: n read-only calls all run at once. Each call waits
// inside the tool until all n have entered (a barrier), so the test passes however slowly the
// machine starts them, and a registry that held any call back would leave the barrier closed
// until the calls' deadline.
func TestConcurrentReadOnlyCallsRunTogether(t *testing.T) {
	const n = 100
	r := tooling.NewRegistry()
	var (
		o       overlap
		entered atomic.Int64
		all     = make(chan struct{})
	)
	r.Register(tooling.Tool{Name: "t.read", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Timeout: 30 * time.Second},
		Run: func(ctx context.Context, _ tooling.Call) (any, error) {
			o.enter()
			defer o.leave()
			if entered.Add(1) == n {
				close(all)
			}
			select {
			case <-all:
				return nil, nil
			case <-ctx.Done(): // the hang guard: the call's 30 s deadline
				return nil, fmt.Errorf("%d of %d calls entered: %w", entered.Load(), n, ctx.Err())
			}
		}})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.Execute(context.Background(), "t.read", nil); err != nil {
				t.Errorf("Execute: %v", err)
			}
		}()
	}
	wg.Wait()
	if o.most.Load() != n {
		t.Fatalf("at most %d of %d calls ran at once", o.most.Load(), n)
	}
	if s, _ := toolStats(r, "t.read"); s.Peak != n {
		t.Fatalf("peak running %d, want %d", s.Peak, n)
	}
}

func TestGlobalSlotsLimitConcurrency(t *testing.T) {
	r := tooling.NewRegistry()
	var o overlap
	// The first three calls wait for each other, so the three slots are all taken at once
	// however the machine schedules the callers.
	var entered atomic.Int64
	three := make(chan struct{})
	r.Register(tooling.Tool{Name: "t.read", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Timeout: 2 * time.Minute},
		Run: func(ctx context.Context, _ tooling.Call) (any, error) {
			o.enter()
			defer o.leave()
			switch entered.Add(1) {
			case 3:
				close(three)
			case 1, 2:
				select {
				case <-three:
				case <-ctx.Done(): // the hang guard: the call's 2 minute deadline
					return nil, fmt.Errorf("%d calls entered: %w", entered.Load(), ctx.Err())
				}
			}
			time.Sleep(2 * time.Millisecond)
			return nil, nil
		}})
	cfg := tooling.Settings{}
	cfg.MaxConcurrent = 3
	r.Configure(cfg)
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); mustExec(t, r, "t.read", ``) }()
	}
	wg.Wait()
	if m := o.most.Load(); m != 3 {
		t.Fatalf("%d calls at once, want 3", m)
	}
}

func TestStuckMainThread(t *testing.T) {
	r := tooling.NewRegistry()
	release, entered := make(chan struct{}), make(chan struct{})
	r.Register(tooling.Tool{Name: "t.hang", Meta: tooling.Meta{Concurrency: tooling.MainThread, Timeout: 30 * time.Second},
		Run: func(context.Context, tooling.Call) (any, error) { close(entered); <-release; return nil, nil }})
	r.Register(tooling.Tool{Name: "t.tick", Meta: tooling.Meta{Concurrency: tooling.MainThread, Timeout: 80 * time.Millisecond}, Run: run})

	// t.hang is given up once it runs on the main thread (however long its turn took to come),
	// and ignores that: the thread stays stuck in it.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-entered:
		case <-time.After(30 * time.Second): // a hang guard
		}
		cancel()
	}()
	res, err := r.Execute(ctx, "t.hang", nil)
	if !errors.Is(err, codes.Canceled) || !res.Abandoned {
		t.Fatalf("hang: %v abandoned=%v", err, res.Abandoned)
	}
	// The main thread is the process's, outside any synctest bubble: real time, with the bounds
	// a loaded machine keeps. t.hang holds the thread until release, so a tick that did not give
	// up at its own deadline would wait for the hang guard (30 s, and end timeout, not busy).
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		start := time.Now()
		res, err := r.Execute(ctx, "t.tick", nil)
		took := time.Since(start)
		cancel()
		if !errors.Is(err, codes.Busy) || !strings.Contains(res.Message, "main thread was busy with t.hang call "+res.CallID[:0]) {
			t.Fatalf("tick: %v (%s)", err, res.Message)
		}
		if took < 80*time.Millisecond || res.Timeout != 80*time.Millisecond {
			t.Fatalf("tick gave up after %v under a deadline of %v, want its own 80ms", took, res.Timeout)
		}
	}
	g := r.Stats()
	if !strings.HasPrefix(g.MainThread.Current, "t.hang call ") || g.MainThread.QueueDepth != 0 || g.Abandoned != 1 {
		t.Fatalf("main thread %+v abandoned %d", g.MainThread, g.Abandoned)
	}
	close(release)
	waitAbandoned(t, r)
	mustExec(t, r, "t.tick", ``)
}

func TestCancelingQueuedCallsReleasesEverything(t *testing.T) {
	r := tooling.NewRegistry()
	release := make(chan struct{})
	r.Register(tooling.Tool{Name: "kv.hold", Meta: tooling.Meta{Resources: []string{"kv", "log"}},
		Run: func(context.Context, tooling.Call) (any, error) { <-release; return nil, nil }})
	r.Register(tooling.Tool{Name: "kv.put", Meta: tooling.Meta{Resources: []string{"log", "kv"}, Rate: tooling.Rate{PerMinute: 1, Burst: 20}}, Run: run})
	r.Register(tooling.Tool{Name: "m.hold", Meta: tooling.Meta{Concurrency: tooling.MainThread},
		Run: func(context.Context, tooling.Call) (any, error) { <-release; return nil, nil }})
	r.Register(tooling.Tool{Name: "m.tick", Meta: tooling.Meta{Concurrency: tooling.MainThread}, Run: run})
	holders := make(chan *tooling.Result, 2)
	go func() { res, _ := r.Execute(context.Background(), "kv.hold", nil); holders <- res }()
	go func() { res, _ := r.Execute(context.Background(), "m.hold", nil); holders <- res }()
	waitFor(t, func() bool { g := r.Stats(); return len(g.Locks) == 2 && g.MainThread.Current != "" })

	ctx, cancel := context.WithCancel(context.Background())
	results := make(chan *tooling.Result, 20)
	for i := 0; i < 10; i++ {
		go func() { res, _ := r.Execute(ctx, "kv.put", nil); results <- res }()
		go func() { res, _ := r.Execute(ctx, "m.tick", nil); results <- res }()
	}
	waitFor(t, func() bool {
		g := r.Stats()
		waiters := 0
		for _, l := range g.Locks {
			waiters += len(l.Waiters)
		}
		return waiters >= 1 && g.MainThread.QueueDepth == 10
	})
	cancel()
	for i := 0; i < 20; i++ {
		if res := <-results; res.Code != codes.Canceled {
			t.Fatalf("queued call ended with %q: %s", res.Code, res.Message)
		}
	}
	g := r.Stats()
	for _, l := range g.Locks {
		if len(l.Waiters) != 0 {
			t.Fatalf("waiters left: %+v", g.Locks)
		}
	}
	if g.MainThread.QueueDepth != 0 || g.Slots.Waiting != 0 || g.Slots.Used != 2 {
		t.Fatalf("after cancel: %+v %+v", g.MainThread, g.Slots)
	}
	for _, b := range g.Buckets {
		if b.Key == "kv.put" && b.Tokens < 19 {
			t.Fatalf("canceled calls spent tokens: %+v", b)
		}
	}
	close(release)
	<-holders
	<-holders
	g = r.Stats()
	if len(g.Locks) != 0 || g.Slots.Used != 0 {
		t.Fatalf("held at the end: %+v %+v", g.Locks, g.Slots)
	}
	mustExec(t, r, "kv.put", ``)
}

// TestMixedLoad: 10,000 calls of every kind from 64 goroutines. Every call
// returns one result, begin and end events pair up, and at the end nothing
// is held, waiting or running.
func TestMixedLoad(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "mix.read", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run})
	r.Register(tooling.Tool{Name: "mix.excl", Meta: tooling.Meta{Resources: []string{"r1", "r2"}}, Run: run})
	r.Register(tooling.Tool{Name: "mix.excl2", Meta: tooling.Meta{Resources: []string{"r2"}}, Run: run})
	r.Register(tooling.Tool{Name: "mix.main", Meta: tooling.Meta{Concurrency: tooling.MainThread}, Run: run})
	r.Register(tooling.Tool{Name: "mix.rate", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Rate: tooling.Rate{PerMinute: 60, Burst: 5}}, Run: run})
	// mix.slow outlives its deadline however the machine schedules it: it
	// ends only when its context does.
	r.Register(tooling.Tool{Name: "mix.slow", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Timeout: 2 * time.Millisecond},
		Run: func(ctx context.Context, _ tooling.Call) (any, error) { <-ctx.Done(); return nil, ctx.Err() }})
	r.Register(tooling.Tool{Name: "mix.panic", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { panic("mixed") }})
	names := []string{"mix.read", "mix.excl", "mix.excl2", "mix.main", "mix.rate", "mix.slow", "mix.panic"}

	// The observer's queue holds 4096 events and drops the rest, by design. So that every
	// event arrives however the machine schedules the observer, a call starts only while
	// the events of the calls started so far lag at most lagLimit behind the observer
	// (each call has two); 64 goroutines then keep the lag under the queue's size.
	const lagLimit = 2048
	var issued, observed atomic.Int64 // calls started; events the observer received
	var mu sync.Mutex
	begins, ends := map[string]int{}, map[string]int{}
	remove := r.Audit(func(_ context.Context, ev tooling.Event) {
		observed.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if !ev.End {
			begins[ev.CallID]++
		} else {
			ends[ev.CallID]++
		}
	})
	const calls, goroutines = 10000, 64
	var results sync.Map
	var count atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; i < calls/goroutines+1 && count.Add(1) <= calls; i++ {
				for 2*issued.Load()-observed.Load() > lagLimit {
					time.Sleep(time.Millisecond) // the observer catches up
				}
				issued.Add(1)
				res, err := r.Execute(context.Background(), names[rng.IntN(len(names))], nil, tooling.WithTimeout(time.Second))
				if res == nil || (err == nil) != res.OK() {
					t.Errorf("result %+v err %v", res, err)
					return
				}
				if _, dup := results.LoadOrStore(res.CallID, res.Code); dup {
					t.Errorf("call id %s returned twice", res.CallID)
				}
			}
		}()
	}
	wg.Wait()
	waitAbandoned(t, r)
	remove()
	n := 0
	results.Range(func(_, _ any) bool { n++; return true })
	if n != calls {
		t.Fatalf("%d results for %d calls", n, calls)
	}
	if len(begins) != calls || len(ends) != calls {
		t.Fatalf("%d begins, %d ends", len(begins), len(ends))
	}
	for id, b := range begins {
		if b != 1 || ends[id] != 1 {
			t.Fatalf("call %s: %d begins, %d ends", id, b, ends[id])
		}
	}
	g := r.Stats()
	if len(g.Locks) != 0 || g.Slots.Used != 0 || g.Slots.Waiting != 0 || g.MainThread.QueueDepth != 0 || g.InFlight != 0 {
		t.Fatalf("governance not back to zero: %+v", g)
	}
	var seen = map[codes.Code]bool{}
	for _, ts := range g.Tools {
		if ts.InFlight != 0 || ts.Waiting != 0 {
			t.Fatalf("tool %s: %+v", ts.Tool, ts)
		}
		for c := range ts.Errors {
			seen[c] = true
		}
	}
	for _, c := range []codes.Code{codes.RateLimited, codes.Timeout, codes.Panic} {
		if !seen[c] {
			t.Errorf("no call ended with %s", c)
		}
	}
}

// TestMainThreadBusyNeverRuns: a main-thread call that ends busy never ran,
// however its deadline falls against the scheduler's hand-off.
func TestMainThreadBusyNeverRuns(t *testing.T) {
	r := tooling.NewRegistry()
	var ran sync.Map
	r.Register(tooling.Tool{Name: "t.mark", Meta: tooling.Meta{Concurrency: tooling.MainThread},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			ran.Store(c.ID, true)
			time.Sleep(20 * time.Microsecond)
			return nil, nil
		}})
	var wg sync.WaitGroup
	var busy atomic.Int64
	var busyIDs sync.Map
	stop := time.Now().Add(time.Second)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for time.Now().Before(stop) {
				d := time.Duration(1+rng.IntN(200)) * time.Microsecond
				res, _ := r.Execute(context.Background(), "t.mark", nil, tooling.WithTimeout(d))
				if res.Code == codes.Busy {
					busy.Add(1)
					busyIDs.Store(res.CallID, true)
				}
			}
		}()
	}
	wg.Wait()
	waitAbandoned(t, r)
	waitFor(t, func() bool { return r.Stats().MainThread.Current == "" })
	busyIDs.Range(func(id, _ any) bool {
		if _, did := ran.Load(id); did {
			t.Errorf("call %s was reported busy but ran", id)
		}
		return true
	})
	if s, _ := toolStats(r, "t.mark"); s.Waiting != 0 || s.InFlight != 0 {
		t.Fatalf("counters after the storm: %+v", s)
	}
	t.Logf("%d busy calls", busy.Load())
}

// TestParallelKeys: an Exclusive tool with Meta.Parallel 2 runs two calls
// at once on its key, never three, and a tool sharing the key shares the
// places.
func TestParallelKeys(t *testing.T) {
	reg := tooling.NewRegistry()
	var now, most atomic.Int32
	arrived := make(chan struct{}, 8)
	release := make(chan struct{})
	run := func(ctx context.Context, _ tooling.Call) (any, error) {
		n := now.Add(1)
		defer now.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		arrived <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return "ok", nil
	}
	meta := tooling.Meta{Concurrency: tooling.Exclusive, Resources: []string{"srv"}, Parallel: 2}
	reg.Register(tooling.Tool{Name: "p.one", Meta: meta, Run: run}, tooling.Tool{Name: "p.two", Meta: meta, Run: run})
	var wg sync.WaitGroup
	results := make([]*tooling.Result, 4)
	for i := range 4 {
		name := []string{"p.one", "p.two"}[i%2]
		wg.Go(func() { results[i], _ = reg.Execute(context.Background(), name, nil, tooling.WithTimeout(time.Minute)) })
	}
	<-arrived
	<-arrived // two run at once
	close(release)
	wg.Wait()
	for i, res := range results {
		if !res.OK() {
			t.Errorf("call %d: %s %s", i, res.Code, res.Message)
		}
	}
	if got := most.Load(); got != 2 {
		t.Errorf("at most %d calls at once, want 2", got)
	}
}
