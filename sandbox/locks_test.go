package sandbox

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// keyCount returns how many keys l keeps state for.
func (l *Locks) keyCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.keys)
}

func mustAcquire(t testing.TB, l *Locks, keys []string, h Holder) func() {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	release, err := l.Acquire(ctx, keys, h)
	if err != nil {
		t.Fatalf("Acquire(%q, %v) = %v", keys, h, err)
	}
	return release
}

func TestLocksExclusive(t *testing.T) {
	tests := []struct {
		name string
		keys func(g int) []string // the keys goroutine g takes; all share "k"
	}{
		{"one key", func(int) []string { return []string{"k"} }},
		{"shared key among others", func(g int) []string { return []string{fmt.Sprint("own", g), "k"} }},
		{"duplicates", func(int) []string { return []string{"k", "k", "k"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const goroutines, total = 32, 1000
			l := NewLocks()
			var in maxTracker
			var tickets, done atomic.Int64
			var wg sync.WaitGroup
			for g := range goroutines {
				wg.Go(func() {
					keys := tt.keys(g)
					h := Holder{Name: "test.exclusive", ID: fmt.Sprint(g)}
					for tickets.Add(1) <= total {
						release := mustAcquire(t, l, keys, h)
						in.enter()
						runtime.Gosched()
						in.leave()
						done.Add(1)
						release()
					}
				})
			}
			wg.Wait()
			if got := in.max.Load(); got != 1 {
				t.Errorf("at most %d holders of one key at once, want 1", got)
			}
			if got := done.Load(); got != total {
				t.Errorf("%d acquisitions, want %d", got, total)
			}
			if n := l.keyCount(); n != 0 {
				t.Errorf("%d keys kept after all releases, want 0", n)
			}
		})
	}
}

func TestLocksDisjointKeysOverlap(t *testing.T) {
	tests := []struct {
		name string
		a, b []string
	}{
		{"single keys", []string{"a"}, []string{"b"}},
		{"set and single", []string{"a", "b"}, []string{"c"}},
		{"interleaved sets", []string{"a", "c", "e"}, []string{"f", "d", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLocks()
			// Each holder waits inside for the other: both must be inside at once to finish.
			var inside sync.WaitGroup
			inside.Add(2)
			bothIn := make(chan struct{})
			go func() { inside.Wait(); close(bothIn) }()
			var wg sync.WaitGroup
			for i, keys := range [][]string{tt.a, tt.b} {
				wg.Go(func() {
					release := mustAcquire(t, l, keys, Holder{Name: "test.overlap", ID: fmt.Sprint(i)})
					defer release()
					inside.Done()
					select {
					case <-bothIn:
					case <-time.After(10 * time.Second):
						t.Errorf("holder of %q never saw the other inside", keys)
					}
				})
			}
			wg.Wait()
			if n := l.keyCount(); n != 0 {
				t.Errorf("%d keys kept, want 0", n)
			}
		})
	}
}

func TestLocksNoDeadlock(t *testing.T) {
	tests := []struct {
		name string
		sets [][]string
	}{
		{"ab ba", [][]string{{"a", "b"}, {"b", "a"}}},
		{"rotation of three", [][]string{{"a", "b", "c"}, {"b", "c", "a"}, {"c", "a", "b"}}},
		{"overlapping pairs", [][]string{{"a", "b"}, {"b", "c"}, {"c", "a"}, {"a", "c"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLocks()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			for i, keys := range tt.sets {
				for range 2 {
					wg.Go(func() {
						for range 1000 {
							release, err := l.Acquire(ctx, keys, Holder{Name: "test.deadlock", ID: fmt.Sprint(i)})
							if err != nil {
								t.Errorf("Acquire(%q): %v (deadlock?)", keys, err)
								return
							}
							runtime.Gosched()
							release()
						}
					})
				}
			}
			wg.Wait()
			if n := l.keyCount(); n != 0 {
				t.Errorf("%d keys kept, want 0", n)
			}
		})
	}
}

func TestLocksCancelReleasesTakenKeys(t *testing.T) {
	x := Holder{Name: "tool.x", ID: "1"}
	c := Holder{Name: "tool.c", ID: "2"}
	tests := []struct {
		name    string
		held    []string // held by x throughout
		want    []string // what c asks for
		blocked string   // the key c is stuck on
		free    []string // keys c took and must give back
		stop    bool     // cancel once c waits; else let the deadline pass
		wantErr error
	}{
		{"cancel on second key", []string{"b"}, []string{"b", "a"}, "b", []string{"a"}, true, context.Canceled},
		{"cancel on third key", []string{"z"}, []string{"z", "m", "a"}, "z", []string{"a", "m"}, true, context.Canceled},
		{"deadline on third key", []string{"z"}, []string{"z", "m", "a"}, "z", []string{"a", "m"}, false, context.DeadlineExceeded},
		{"cancel on first key", []string{"a"}, []string{"a", "b"}, "a", nil, true, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLocks()
			releaseX := mustAcquire(t, l, tt.held, x)
			defer releaseX()

			ctx, cancel := context.WithCancel(context.Background())
			if !tt.stop {
				ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
			}
			defer cancel()
			errc := make(chan error)
			go func() {
				release, err := l.Acquire(ctx, tt.want, c)
				if release != nil {
					t.Error("Acquire failed but returned a release func")
				}
				errc <- err
			}()
			if tt.stop {
				// (With a deadline, c may give up before this could look: only the end is checked.)
				awaitCond(t, "c waiting on "+tt.blocked, func() bool {
					for _, s := range l.Stats() {
						if s.Key == tt.blocked && slices.Equal(s.Waiters, []Holder{c}) {
							return true
						}
					}
					return false
				})
				for _, s := range l.Stats() {
					if slices.Contains(tt.free, s.Key) && *s.Holder != c {
						t.Errorf("while c waits, %q is held by %v, want c", s.Key, *s.Holder)
					}
				}
				cancel()
			}
			if err := <-errc; !errors.Is(err, tt.wantErr) {
				t.Fatalf("Acquire = %v, want %v", err, tt.wantErr)
			}
			// c's keys are free at once: nothing but x's keys remain, and another caller takes them.
			var got []string
			for _, s := range l.Stats() {
				got = append(got, s.Key)
				if len(s.Waiters) != 0 {
					t.Errorf("%q still has waiters %v", s.Key, s.Waiters)
				}
			}
			if !slices.Equal(got, tt.held) {
				t.Errorf("keys held after the failed Acquire = %q, want %q", got, tt.held)
			}
			if len(tt.free) > 0 {
				release := mustAcquire(t, l, tt.free, Holder{Name: "tool.d", ID: "3"})
				release()
			}
		})
	}

	t.Run("already done", func(t *testing.T) {
		l := NewLocks()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		release, err := l.Acquire(ctx, []string{"a"}, c)
		if !errors.Is(err, context.Canceled) || release != nil {
			t.Fatalf("Acquire(done ctx) = %v, %v; want nil, context.Canceled", release != nil, err)
		}
		if n := l.keyCount(); n != 0 {
			t.Fatalf("%d keys kept, want 0", n)
		}
	})
}

// TestLocksCancelRacesHandOver cancels waiters just as the key is handed to them: whichever wins,
// nothing may stay locked.
func TestLocksCancelRacesHandOver(t *testing.T) {
	l := NewLocks()
	for i := range 300 {
		release := mustAcquire(t, l, []string{"k"}, Holder{Name: "holder"})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error)
		go func() {
			r, err := l.Acquire(ctx, []string{"j", "k"}, Holder{Name: "waiter"})
			if err == nil {
				r()
			}
			errc <- err
		}()
		awaitCond(t, "a waiter", func() bool { st := l.Stats(); return len(st) == 2 && len(st[1].Waiters) == 1 })
		first, second := cancel, release
		if i%2 == 1 {
			first, second = second, first
		}
		var wg sync.WaitGroup
		wg.Go(first)
		second()
		wg.Wait()
		if err := <-errc; err != nil && !errors.Is(err, context.Canceled) {
			t.Fatal(err)
		}
		if st := l.Stats(); len(st) != 0 {
			t.Fatalf("round %d: keys left locked: %+v", i, st)
		}
	}
}

func TestLocksStatsAndFIFO(t *testing.T) {
	l := NewLocks()
	x := Holder{Name: "tool.x", ID: "1"}
	waiters := []Holder{{"tool.y", "2"}, {"tool.z", "3"}, {"tool.y", "4"}}

	before := time.Now()
	releaseX := mustAcquire(t, l, []string{"k", "other"}, x)
	order := make(chan Holder, len(waiters))
	proceed := make(chan struct{})
	var wg sync.WaitGroup
	for i, h := range waiters {
		wg.Go(func() {
			release := mustAcquire(t, l, []string{"k"}, h)
			order <- h
			<-proceed
			release()
		})
		// Queue them one at a time so that their order is known.
		awaitCond(t, fmt.Sprint(i+1, " waiters"), func() bool {
			st := l.Stats()
			return len(st) == 2 && len(st[0].Waiters) == i+1
		})
	}

	st := l.Stats()
	if len(st) != 2 || st[0].Key != "k" || st[1].Key != "other" {
		t.Fatalf("Stats() keys = %+v, want k and other", st)
	}
	if *st[0].Holder != x || !slices.Equal(st[0].Waiters, waiters) {
		t.Fatalf("Stats()[k] = holder %v waiters %v, want %v and %v", *st[0].Holder, st[0].Waiters, x, waiters)
	}
	if st[0].HeldSince.Before(before) || st[0].HeldSince.After(time.Now()) {
		t.Fatalf("HeldSince = %v, not within the test", st[0].HeldSince)
	}
	if *st[1].Holder != x || st[1].Waiters != nil {
		t.Fatalf("Stats()[other] = %+v, want held by x with no waiters", st[1])
	}

	released := time.Now()
	releaseX()
	for i, want := range waiters {
		if got := <-order; got != want {
			t.Fatalf("grant %d went to %v, want %v (FIFO)", i, got, want)
		}
		st := l.Stats()
		if len(st) != 1 || *st[0].Holder != want || !slices.Equal(st[0].Waiters, waiters[i+1:]) {
			t.Fatalf("Stats() while %v holds = %+v", want, st)
		}
		if st[0].HeldSince.Before(released) {
			t.Fatalf("%v holds since %v, before it was handed the key at %v", want, st[0].HeldSince, released)
		}
		proceed <- struct{}{}
	}
	wg.Wait()
	if st := l.Stats(); len(st) != 0 {
		t.Fatalf("Stats() after all releases = %+v, want empty", st)
	}
	if n := l.keyCount(); n != 0 {
		t.Fatalf("%d keys kept, want 0", n)
	}
}

func TestLocksReleaseIdempotent(t *testing.T) {
	l := NewLocks()
	a, b := Holder{Name: "a"}, Holder{Name: "b"}
	releaseA := mustAcquire(t, l, []string{"k"}, a)
	releaseA()
	releaseB := mustAcquire(t, l, []string{"k"}, b)
	releaseA() // must not release b's hold
	if st := l.Stats(); len(st) != 1 || *st[0].Holder != b {
		t.Fatalf("after a second release by a, Stats() = %+v, want k held by b", st)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(releaseB)
	}
	wg.Wait()
	if n := l.keyCount(); n != 0 {
		t.Fatalf("%d keys kept, want 0", n)
	}
}

func TestLocksNoKeysAndZeroValue(t *testing.T) {
	var l Locks
	release := mustAcquire(t, &l, nil, Holder{})
	release()
	release = mustAcquire(t, &l, []string{"b", "a", "b", "a", "c"}, Holder{Name: "z"})
	var keys []string
	for _, s := range l.Stats() {
		keys = append(keys, s.Key)
	}
	if want := []string{"a", "b", "c"}; !slices.Equal(keys, want) {
		t.Fatalf("held keys = %q, want %q", keys, want)
	}
	release()
	if n := l.keyCount(); n != 0 {
		t.Fatalf("%d keys kept, want 0", n)
	}
}

func TestLocksStateShrinks(t *testing.T) {
	l := NewLocks()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				keys := []string{fmt.Sprint("k", g, "-", i), fmt.Sprint("shared", i%4)}
				release := mustAcquire(t, l, keys, Holder{Name: "test.shrink"})
				release()
			}
		})
	}
	wg.Wait()
	l.mu.Lock()
	keys, free := len(l.keys), len(l.free)
	l.mu.Unlock()
	if keys != 0 || free > maxFreeLockStates {
		t.Fatalf("after 16,000 distinct keys: %d keys kept (want 0), %d free states (want <= %d)",
			keys, free, maxFreeLockStates)
	}
}

// TestLocksGrantedAfterCancel hands a key to a waiter whose ctx has just ended, before it could
// leave the queue: the waiter must fail and pass the key on to the next waiter.
func TestLocksGrantedAfterCancel(t *testing.T) {
	l := NewLocks()
	x, c, d := Holder{Name: "x"}, Holder{Name: "c"}, Holder{Name: "d"}
	mustAcquire(t, l, []string{"k"}, x) // released by hand below
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error)
	go func() {
		r, err := l.Acquire(ctx, []string{"k"}, c)
		if err == nil {
			r()
		}
		errc <- err
	}()
	awaitCond(t, "c waiting", func() bool { st := l.Stats(); return len(st) == 1 && len(st[0].Waiters) == 1 })
	dc := make(chan func())
	go func() { dc <- mustAcquire(t, l, []string{"k"}, d) }()
	awaitCond(t, "d waiting", func() bool { st := l.Stats(); return len(st) == 1 && len(st[0].Waiters) == 2 })

	// Hold the lock so that c, woken by its ctx, cannot leave the queue; give it time to get there
	// (if it does not, it sees both channels ready and may take the key: also correct).
	l.mu.Lock()
	cancel()
	time.Sleep(5 * time.Millisecond)
	var now time.Time // x releases k by hand, under the lock already held
	l.unlockLocked("k", &now)
	l.mu.Unlock()

	if err := <-errc; err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	releaseD := <-dc
	if st := l.Stats(); len(st) != 1 || *st[0].Holder != d || len(st[0].Waiters) != 0 {
		t.Fatalf("Stats() = %+v, want k held by d alone", st)
	}
	releaseD()
	if n := l.keyCount(); n != 0 {
		t.Fatalf("%d keys kept, want 0", n)
	}
}
