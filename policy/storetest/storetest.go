package storetest

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Store is policy.Store, repeated so that this package needs no import.
type Store interface {
	Take(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (retry time.Duration, err error)
	Add(ctx context.Context, key string, n, bound int64, expires time.Time) (count int64, added bool, err error)
}

// BatchStore is policy.BatchStore, repeated so that this package needs no
// import.
type BatchStore interface {
	Store
	TakeAll(ctx context.Context, keys []string, perSecond []float64, burst []int, now time.Time) (refused int, retry time.Duration, err error)
	AddAll(ctx context.Context, keys []string, ns, bounds []int64, expires []time.Time) (counts []int64, refused int, err error)
}

// Run checks the store newStore returns against policy.Store's contract:
// buckets start full, refill at their rate and answer how long to wait;
// counters add up to their bound and never past it, also when 64
// goroutines add at once; keys are separate. A store that is also a
// BatchStore is checked as one too: TakeAll stops at the first empty
// bucket, AddAll adds to all counters or none, also concurrently. Each subtest gets a new
// store; keys carry the test's name so that a shared server may hold
// them all.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	later := now.Add(time.Hour)
	key := func(t *testing.T, k string) string { return t.Name() + "\x00" + k }

	t.Run("BucketStartsFullAndRefills", func(t *testing.T) {
		s := newStore(t)
		k := key(t, "b")
		for i := range 3 {
			if retry, err := s.Take(ctx, k, 1, 3, now); err != nil || retry != 0 {
				t.Fatalf("take %d of a burst of 3: retry %v, err %v", i+1, retry, err)
			}
		}
		retry, err := s.Take(ctx, k, 1, 3, now)
		if err != nil || retry <= 0 || retry > time.Second {
			t.Fatalf("the 4th take at once: retry %v, err %v; want a wait of at most 1s", retry, err)
		}
		if retry, err := s.Take(ctx, k, 1, 3, now.Add(time.Second)); err != nil || retry != 0 {
			t.Fatalf("a second later: retry %v, err %v", retry, err)
		}
		if retry, err := s.Take(ctx, key(t, "other"), 1, 3, now); err != nil || retry != 0 {
			t.Fatalf("another key has its own bucket: retry %v, err %v", retry, err)
		}
	})
	t.Run("CounterStopsAtBound", func(t *testing.T) {
		s := newStore(t)
		k := key(t, "c")
		for i := int64(1); i <= 2; i++ {
			if n, ok, err := s.Add(ctx, k, 1, 2, later); err != nil || !ok || n != i {
				t.Fatalf("add %d: count %d, added %v, err %v", i, n, ok, err)
			}
		}
		if n, ok, err := s.Add(ctx, k, 1, 2, later); err != nil || ok || n != 2 {
			t.Fatalf("past the bound: count %d, added %v, err %v; want 2, false", n, ok, err)
		}
		if n, ok, err := s.Add(ctx, k, 0, 2, later); err != nil || ok || n != 2 {
			t.Fatalf("at the bound, adding nothing: count %d, added %v, err %v; want 2, false", n, ok, err)
		}
		if n, ok, err := s.Add(ctx, k, -1, 0, later); err != nil || !ok || n != 1 {
			t.Fatalf("giving one back: count %d, added %v, err %v", n, ok, err)
		}
		if n, ok, err := s.Add(ctx, k, 5, 0, later); err != nil || !ok || n != 6 {
			t.Fatalf("no bound: count %d, added %v, err %v", n, ok, err)
		}
		if n, ok, err := s.Add(ctx, key(t, "d"), 3, 2, later); err != nil || ok || n != 0 {
			t.Fatalf("more than the bound at once: count %d, added %v, err %v; want 0, false", n, ok, err)
		}
	})
	t.Run("CounterNeverPastBoundConcurrently", func(t *testing.T) {
		s := newStore(t)
		k := key(t, "c")
		var wg sync.WaitGroup
		var mu sync.Mutex
		added := 0
		start := make(chan struct{})
		for range 64 {
			wg.Go(func() {
				<-start
				_, ok, err := s.Add(ctx, k, 1, 10, later)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					added++
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		if n, _, err := s.Add(ctx, k, 0, 0, later); err != nil || added != 10 || n != 10 {
			t.Fatalf("64 adds against a bound of 10: %d added, count %d, err %v", added, n, err)
		}
	})
	t.Run("Batch", func(t *testing.T) {
		s, ok := newStore(t).(BatchStore)
		if !ok {
			return
		}
		ks := func(names ...string) []string {
			out := make([]string, len(names))
			for i, n := range names {
				out[i] = key(t, n)
			}
			return out
		}
		if refused, retry, err := s.TakeAll(ctx, ks("x", "y"), []float64{1, 1}, []int{1, 1}, now); err != nil || refused != -1 || retry != 0 {
			t.Fatalf("TakeAll of two full buckets: refused %d, retry %v, err %v", refused, retry, err)
		}
		if refused, retry, err := s.TakeAll(ctx, ks("z", "y"), []float64{1, 1}, []int{1, 1}, now); err != nil || refused != 1 || retry <= 0 || retry > time.Second {
			t.Fatalf("TakeAll with the second bucket empty: refused %d, retry %v, err %v; want 1 and a wait of at most 1s", refused, retry, err)
		}
		if retry, err := s.Take(ctx, key(t, "z"), 1, 1, now); err != nil || retry <= 0 {
			t.Fatalf("the first bucket before the refusing one keeps its token taken: retry %v, err %v", retry, err)
		}
		exp := []time.Time{later, later}
		if counts, refused, err := s.AddAll(ctx, ks("a", "b"), []int64{1, 1}, []int64{2, 1}, exp); err != nil || refused != -1 || counts[0] != 1 || counts[1] != 1 {
			t.Fatalf("AddAll within bounds: counts %v, refused %d, err %v", counts, refused, err)
		}
		if counts, refused, err := s.AddAll(ctx, ks("a", "b"), []int64{1, 1}, []int64{2, 1}, exp); err != nil || refused != 1 || counts[1] != 1 {
			t.Fatalf("AddAll with b at its bound: counts %v, refused %d, err %v; want refused 1", counts, refused, err)
		}
		if n, _, err := s.Add(ctx, key(t, "a"), 0, 0, later); err != nil || n != 1 {
			t.Fatalf("a refused AddAll added nothing: a is %d, err %v; want 1", n, err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		added := 0
		start := make(chan struct{})
		for range 64 {
			wg.Go(func() {
				<-start
				_, refused, err := s.AddAll(ctx, ks("c1", "c2"), []int64{1, 2}, []int64{10, 40}, exp)
				if err != nil {
					t.Error(err)
				}
				if refused == -1 {
					mu.Lock()
					added++
					mu.Unlock()
				}
			})
		}
		close(start)
		wg.Wait()
		c1, _, _ := s.Add(ctx, key(t, "c1"), 0, 0, later)
		c2, _, _ := s.Add(ctx, key(t, "c2"), 0, 0, later)
		if added != 10 || c1 != 10 || c2 != 20 {
			t.Fatalf("64 AddAlls against bounds of 10 and 40 (adding 1 and 2): %d added, counts %d and %d; want 10, 10, 20", added, c1, c2)
		}
	})
}
