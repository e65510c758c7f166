package sandbox

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// clock0 is an arbitrary start for the clocks of these tests.
var clock0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestBucketsTake(t *testing.T) {
	type step struct {
		at     time.Duration // since clock0
		rate   Rate
		refund bool // Refund instead of Take
		ok     bool
		retry  time.Duration // expected retryAfter when refused (within a microsecond)
		tokens float64       // if >= 0: the tokens Stats must show after the step (within 1e-6)
	}
	one := Rate{PerMinute: 1}
	take := func(at time.Duration, r Rate, ok bool, retry time.Duration) step {
		return step{at: at, rate: r, ok: ok, retry: retry, tokens: -1}
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"1/min", []step{
			take(0, one, true, 0),
			take(0, one, false, time.Minute),
			take(15*time.Second, one, false, 45*time.Second),
			take(time.Minute, one, true, 0),
			take(time.Minute, one, false, time.Minute),
		}},
		{"burst 2", []step{
			take(0, Rate{1, 2}, true, 0),
			take(0, Rate{1, 2}, true, 0),
			take(0, Rate{1, 2}, false, time.Minute),
			take(90*time.Second, Rate{1, 2}, true, 0), // 1.5 tokens back
			take(90*time.Second, Rate{1, 2}, false, 30*time.Second),
		}},
		{"burst 0 means 1", []step{
			take(0, Rate{60, 0}, true, 0),
			take(0, Rate{60, -4}, false, time.Second),
		}},
		{"refills up to burst", []step{
			take(0, Rate{60, 3}, true, 0),
			take(0, Rate{60, 3}, true, 0),
			take(0, Rate{60, 3}, true, 0),
			take(0, Rate{60, 3}, false, time.Second),
			{at: time.Hour, rate: Rate{60, 3}, ok: true, tokens: 2},
			take(time.Hour, Rate{60, 3}, true, 0),
			take(time.Hour, Rate{60, 3}, true, 0),
			take(time.Hour, Rate{60, 3}, false, time.Second),
		}},
		{"faster rate keeps tokens", []step{
			take(0, one, true, 0),
			take(0, Rate{PerMinute: 60}, false, time.Second), // remade empty, at the new rate
			take(time.Second, Rate{PerMinute: 60}, true, 0),
		}},
		{"smaller burst caps tokens", []step{
			{at: 0, rate: Rate{1, 5}, ok: true, tokens: 4},
			{at: 0, rate: Rate{1, 2}, ok: true, tokens: 1}, // 4 capped to 2, then one taken
			take(0, Rate{1, 2}, true, 0),
			take(0, Rate{1, 2}, false, time.Minute),
		}},
		{"larger burst does not add tokens", []step{
			take(0, Rate{1, 1}, true, 0),
			take(30*time.Second, Rate{1, 10}, false, 30*time.Second),
		}},
		{"unlimited in between drops the bucket", []step{
			take(0, one, true, 0),
			{at: 0, rate: Rate{}, ok: true, tokens: -2}, // -2: no bucket at all
			take(0, one, true, 0),                       // a new, full bucket
			take(0, one, false, time.Minute),
		}},
		{"refund restores a token", []step{
			take(0, Rate{1, 3}, true, 0),
			take(0, Rate{1, 3}, true, 0),
			{at: 10 * time.Second, refund: true, tokens: 2.0 + 1.0/6},
			take(10*time.Second, Rate{1, 3}, true, 0),
			take(10*time.Second, Rate{1, 3}, true, 0),
			take(10*time.Second, Rate{1, 3}, false, 50*time.Second),
		}},
		{"refund at the instant of the take", []step{
			take(0, one, true, 0),
			{at: 0, refund: true, tokens: 1},
			take(0, one, true, 0),
			take(0, one, false, time.Minute),
		}},
		{"refund never exceeds burst", []step{
			take(0, Rate{1, 2}, true, 0),
			{at: 0, refund: true, tokens: 2},
			{at: 0, refund: true, tokens: 2},
			take(0, Rate{1, 2}, true, 0),
			take(0, Rate{1, 2}, true, 0),
			take(0, Rate{1, 2}, false, time.Minute),
		}},
		{"refund of an unknown key", []step{
			{at: 0, refund: true, tokens: -2},
		}},
		{"odd rate", []step{
			take(0, Rate{PerMinute: 7}, true, 0),
			take(time.Second, Rate{PerMinute: 7}, false, time.Minute/7-time.Second),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuckets()
			for i, st := range tt.steps {
				now := clock0.Add(st.at)
				if st.refund {
					b.Refund("k", now)
				} else {
					ok, retry := b.Take("k", st.rate, now)
					if ok != st.ok {
						t.Fatalf("step %d: Take(%v) ok = %v, want %v", i, st.rate, ok, st.ok)
					}
					if ok && retry != 0 {
						t.Fatalf("step %d: retryAfter = %v with ok", i, retry)
					}
					if !ok && (retry <= 0 || (retry-st.retry).Abs() > time.Microsecond) {
						t.Fatalf("step %d: retryAfter = %v, want %v", i, retry, st.retry)
					}
				}
				stats := b.Stats(now)
				switch {
				case st.tokens == -2 && len(stats) != 0:
					t.Fatalf("step %d: Stats() = %+v, want none", i, stats)
				case st.tokens >= 0 && (len(stats) != 1 || math.Abs(stats[0].Tokens-st.tokens) > 1e-6):
					t.Fatalf("step %d: Stats() = %+v, want %v tokens", i, stats, st.tokens)
				}
			}
		})
	}
}

// TestBucketsRetryAfterIsExact checks, for awkward rates, that a token is there after exactly
// retryAfter and not noticeably before.
func TestBucketsRetryAfterIsExact(t *testing.T) {
	for _, r := range []Rate{{PerMinute: 7}, {PerMinute: 0.3}, {PerMinute: 1e6, Burst: 3}, {PerMinute: 59.99, Burst: 2}, {PerMinute: 1e-6}} {
		t.Run(r.String(), func(t *testing.T) {
			b := NewBuckets()
			now := clock0
			for range 5 {
				ok, retry := b.Take("k", r, now)
				for ok {
					ok, retry = b.Take("k", r, now)
				}
				if early := now.Add(retry - retry/1000 - time.Microsecond); retry > time.Millisecond {
					if ok, _ := b.Take("k", r, early); ok {
						t.Fatalf("a token came %v before retryAfter %v", retry/1000, retry)
					}
				}
				now = now.Add(retry)
				if ok, again := b.Take("k", r, now); !ok {
					t.Fatalf("no token after retryAfter %v; retry again after %v", retry, again)
				}
			}
		})
	}
}

func TestBucketsUnlimited(t *testing.T) {
	for _, r := range []Rate{{}, {PerMinute: 0, Burst: 5}, {PerMinute: -1}, {PerMinute: math.NaN()}, {PerMinute: math.Inf(1)}} {
		t.Run(fmt.Sprint(r.PerMinute), func(t *testing.T) {
			if !r.Unlimited() || r.String() != "unlimited" {
				t.Fatalf("%#v: Unlimited() = %v, String() = %q", r, r.Unlimited(), r.String())
			}
			var b Buckets
			for range 1000 {
				if ok, retry := b.Take("k", r, clock0); !ok || retry != 0 {
					t.Fatalf("Take = %v, %v; want true, 0", ok, retry)
				}
			}
			if st := b.Stats(clock0); len(st) != 0 {
				t.Fatalf("Stats() = %+v, want no bucket", st)
			}
		})
	}
}

func TestRateString(t *testing.T) {
	for r, want := range map[Rate]string{
		{PerMinute: 6, Burst: 2}: "6/min, burst 2",
		{PerMinute: 0.5}:         "0.5/min, burst 1",
		{Burst: 3}:               "unlimited",
	} {
		if got := r.String(); got != want {
			t.Errorf("%#v.String() = %q, want %q", r, got, want)
		}
	}
}

func TestBucketsManyKeys(t *testing.T) {
	const keys = 1000
	b := NewBuckets()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < keys; i += 8 {
				k := fmt.Sprintf("tool.%04d", i)
				r := Rate{PerMinute: float64(1 + i%3), Burst: 1 + i%2}
				for j := range r.Burst {
					if ok, _ := b.Take(k, r, clock0); !ok {
						t.Errorf("%s: take %d refused", k, j)
					}
				}
				if ok, retry := b.Take(k, r, clock0); ok || retry <= 0 {
					t.Errorf("%s: take past burst = %v, %v", k, ok, retry)
				}
			}
		})
	}
	wg.Wait()
	st := b.Stats(clock0)
	if len(st) != keys {
		t.Fatalf("Stats() has %d buckets, want %d", len(st), keys)
	}
	for i, s := range st {
		if want := fmt.Sprintf("tool.%04d", i); s.Key != want || s.Tokens != 0 {
			t.Fatalf("Stats()[%d] = %+v, want key %s with 0 tokens", i, s, want)
		}
	}
	if n := b.Prune(clock0.Add(10 * time.Second)); n != 0 {
		t.Fatalf("Prune after 10s dropped %d buckets, want 0 (none full yet)", n)
	}
	if n := b.Prune(clock0.Add(2 * time.Minute)); n != keys {
		t.Fatalf("Prune after 2min dropped %d buckets, want %d", n, keys)
	}
	if st := b.Stats(clock0); len(st) != 0 {
		t.Fatalf("Stats() after Prune has %d buckets", len(st))
	}
}

func TestBucketsConcurrentTakeOneKey(t *testing.T) {
	b := NewBuckets()
	r := Rate{PerMinute: 1, Burst: 10}
	var granted atomic.Int64
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 10 {
				if ok, _ := b.Take("k", r, clock0); ok {
					granted.Add(1)
				}
				b.Stats(clock0)
			}
		})
	}
	// Rate changes and unlimited takes race with the takers; they must not corrupt the bucket.
	wg.Go(func() {
		for range 100 {
			b.Take("other", Rate{}, clock0)
			b.Refund("other", clock0)
			b.Prune(clock0)
		}
	})
	wg.Wait()
	if got := granted.Load(); got != 10 {
		t.Fatalf("%d takes granted at one instant, want the burst of 10", got)
	}
}
