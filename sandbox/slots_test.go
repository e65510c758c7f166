package sandbox

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// awaitCond waits until cond holds, failing the test after a generous deadline. It is for states
// that no channel announces, such as a goroutine being blocked inside Acquire.
func awaitCond(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		runtime.Gosched()
		time.Sleep(50 * time.Microsecond)
	}
}

// maxTracker counts callers inside a section and remembers the most seen at once.
type maxTracker struct{ cur, max atomic.Int64 }

func (m *maxTracker) enter() {
	n := m.cur.Add(1)
	for {
		old := m.max.Load()
		if n <= old || m.max.CompareAndSwap(old, n) {
			return
		}
	}
}

func (m *maxTracker) leave() { m.cur.Add(-1) }

func TestSlotsLimitRespected(t *testing.T) {
	for _, n := range []int{1, 2, 5, 16} {
		t.Run("n="+strconv.Itoa(n), func(t *testing.T) {
			s := NewSlots(n)
			var in maxTracker
			var wg sync.WaitGroup
			for range 64 {
				wg.Go(func() {
					for range 50 {
						if err := s.Acquire(context.Background()); err != nil {
							t.Error(err)
							return
						}
						in.enter()
						runtime.Gosched()
						in.leave()
						s.Release()
					}
				})
			}
			wg.Wait()
			if got := in.max.Load(); got > int64(n) || got < 1 {
				t.Errorf("max in flight = %d, want 1..%d", got, n)
			}
			if got, want := s.Stats(), (SlotStats{Limit: n}); got != want {
				t.Errorf("Stats() = %+v, want %+v", got, want)
			}
		})
	}
}

func TestSlotsAcquireCanceled(t *testing.T) {
	tests := []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		stop bool // cancel once the caller waits; else let the deadline pass
		want error
	}{
		{"cancel", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, true, context.Canceled},
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}, false, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSlots(1)
			if !s.TryAcquire() {
				t.Fatal("TryAcquire on a free Slots failed")
			}
			ctx, cancel := tt.ctx()
			defer cancel()
			errc := make(chan error)
			go func() { errc <- s.Acquire(ctx) }()
			if tt.stop {
				awaitCond(t, "one waiter", func() bool { return s.Stats().Waiting == 1 })
				cancel()
			}
			if err := <-errc; !errors.Is(err, tt.want) {
				t.Fatalf("Acquire = %v, want %v", err, tt.want)
			}
			if got, want := s.Stats(), (SlotStats{Limit: 1, Used: 1}); got != want {
				t.Fatalf("Stats() after cancel = %+v, want %+v", got, want)
			}
			s.Release()
			if !s.TryAcquire() {
				t.Fatal("the canceled Acquire kept the slot")
			}
		})
	}

	t.Run("already done", func(t *testing.T) {
		s := NewSlots(1)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.Acquire(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("Acquire(done ctx) = %v, want context.Canceled", err)
		}
		if got := s.Stats().Used; got != 0 {
			t.Fatalf("Used = %d after a failed Acquire", got)
		}
	})
}

// tryN calls TryAcquire until it fails (at most limit times) and returns how many succeeded.
func tryN(s *Slots, limit int) int {
	n := 0
	for n < limit && s.TryAcquire() {
		n++
	}
	return n
}

func TestSlotsResize(t *testing.T) {
	type step struct {
		acquire int // TryAcquire until refused, at most this many; expect exactly got
		got     int
		release int
		resize  *int
	}
	size := func(n int) *int { return &n }
	tests := []struct {
		name  string
		n     int
		steps []step
		want  SlotStats
	}{
		{"grow", 2, []step{
			{acquire: 5, got: 2}, {resize: size(4)}, {acquire: 5, got: 2},
		}, SlotStats{Limit: 4, Used: 4}},
		{"shrink below used", 4, []step{
			{acquire: 4, got: 4}, {resize: size(2)}, {acquire: 1, got: 0},
			{release: 2}, {acquire: 1, got: 0}, // used 2 of 2
			{release: 1}, {acquire: 3, got: 1}, // used 1, one more fits
		}, SlotStats{Limit: 2, Used: 2}},
		{"shrink then grow before paid", 4, []step{
			{acquire: 4, got: 4}, {resize: size(2)}, {resize: size(5)}, {acquire: 3, got: 1},
		}, SlotStats{Limit: 5, Used: 5}},
		{"shrink with free slots", 8, []step{
			{acquire: 3, got: 3}, {resize: size(5)}, {acquire: 9, got: 2},
		}, SlotStats{Limit: 5, Used: 5}},
		{"to unlimited and back", 2, []step{
			{acquire: 2, got: 2}, {resize: size(0)}, {acquire: 100, got: 100},
			{resize: size(3)}, {acquire: 1, got: 0}, {release: 100}, {acquire: 5, got: 1},
		}, SlotStats{Limit: 3, Used: 3}},
		{"from unlimited", 0, []step{
			{acquire: 10, got: 10}, {resize: size(4)}, {release: 7}, {acquire: 5, got: 1},
		}, SlotStats{Limit: 4, Used: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSlots(tt.n)
			for i, st := range tt.steps {
				switch {
				case st.resize != nil:
					s.Resize(*st.resize)
				case st.release > 0:
					for range st.release {
						s.Release()
					}
				default:
					if got := tryN(s, st.acquire); got != st.got {
						t.Fatalf("step %d: %d TryAcquire succeeded, want %d (stats %+v)", i, got, st.got, s.Stats())
					}
				}
			}
			if got := s.Stats(); got != tt.want {
				t.Fatalf("Stats() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSlotsResizeWakesWaiters(t *testing.T) {
	s := NewSlots(1)
	s.TryAcquire()
	errc := make(chan error, 2)
	for range 2 {
		go func() { errc <- s.Acquire(context.Background()) }()
	}
	awaitCond(t, "two waiters", func() bool { return s.Stats().Waiting == 2 })
	s.Resize(3)
	for range 2 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if got, want := s.Stats(), (SlotStats{Limit: 3, Used: 3}); got != want {
		t.Fatalf("Stats() = %+v, want %+v", got, want)
	}
}

// TestSlotsResizeConcurrent resizes while callers come, go and give up, then checks that the
// accounting still yields exactly the final limit.
func TestSlotsResizeConcurrent(t *testing.T) {
	s := NewSlots(2)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				// Short deadlines make waiters give up just as they are served.
				actx, stop := context.WithTimeout(ctx, time.Duration(i%50)*time.Microsecond)
				if s.Acquire(actx) == nil {
					runtime.Gosched()
					s.Release()
				}
				stop()
			}
		})
	}
	for i := range 2000 {
		s.Resize([]int{1, 4, 0, 2, 3}[i%5])
	}
	cancel()
	wg.Wait()
	s.Resize(3)
	if got := tryN(s, 10); got != 3 {
		t.Fatalf("after concurrent resizes, %d slots free, want 3", got)
	}
	if got, want := s.Stats(), (SlotStats{Limit: 3, Used: 3}); got != want {
		t.Fatalf("Stats() = %+v, want %+v", got, want)
	}
}

func TestSlotsUnlimited(t *testing.T) {
	tests := []struct {
		name string
		s    *Slots
	}{
		{"NewSlots(0)", NewSlots(0)},
		{"NewSlots(-3)", NewSlots(-3)},
		{"zero value", new(Slots)},
		{"huge", NewSlots(maxSlots + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for range 1000 {
				if err := tt.s.Acquire(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if got, want := tt.s.Stats(), (SlotStats{Used: 1000}); got != want {
				t.Fatalf("Stats() = %+v, want %+v", got, want)
			}
			for range 1000 {
				tt.s.Release()
			}
			if got := tt.s.Stats().Used; got != 0 {
				t.Fatalf("Used = %d after releasing all", got)
			}
		})
	}
}

func TestSlotsReleaseWithoutAcquirePanics(t *testing.T) {
	s := NewSlots(1)
	defer func() {
		if recover() == nil {
			t.Fatal("Release without Acquire did not panic")
		}
		if got := s.Stats().Used; got != 0 {
			t.Fatalf("Used = %d after the panic, want 0", got)
		}
	}()
	s.Release()
}
