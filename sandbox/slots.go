package sandbox

import (
	"context"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// maxSlots is the size of the semaphore behind every Slots. A limit of n is enforced by keeping
// maxSlots-n of its units as ballast that no caller can take; "unlimited" is simply no ballast.
// Limits above maxSlots are treated as unlimited.
const maxSlots = 1 << 40

// SlotStats is a snapshot of a [Slots].
type SlotStats struct {
	Limit   int // the limit set by NewSlots or Resize; 0 means unlimited
	Used    int // slots held now; may exceed Limit for a while after Resize lowered it
	Waiting int // callers blocked in Acquire
}

// Slots is a global concurrency limit: at most Limit callers hold a slot at once. Waiters are served
// in FIFO order (it is built on a [semaphore.Weighted]). The limit can be changed at any time with
// [Slots.Resize].
//
// The zero Slots has no limit and is ready to use. A Slots must not be copied after first use.
type Slots struct {
	once sync.Once
	sem  *semaphore.Weighted

	used    atomic.Int64
	waiting atomic.Int64

	mu      sync.Mutex   // guards the fields below, and orders Release against Resize
	limit   int          // as configured; <= 0 means unlimited
	ballast int64        // semaphore units held by the Slots itself
	debt    atomic.Int64 // units still to be moved to ballast; changed only under mu
}

// NewSlots returns a Slots that lets at most n callers hold a slot at once. With n <= 0 there is no
// limit: Acquire never waits, but Used is still counted.
func NewSlots(n int) *Slots {
	s := &Slots{}
	s.once.Do(func() { s.init(n) })
	return s
}

func (s *Slots) init(n int) {
	s.sem = semaphore.NewWeighted(maxSlots)
	s.limit = normLimit(n)
	s.ballast = maxSlots - effective(s.limit)
	if !s.sem.TryAcquire(s.ballast) {
		panic("sandbox: Slots: new semaphore refused its ballast")
	}
}

func (s *Slots) lazyInit() { s.once.Do(func() { s.init(0) }) }

func normLimit(n int) int {
	if n <= 0 || int64(n) >= maxSlots {
		return 0
	}
	return n
}

// effective is the number of semaphore units open to callers for a normalized limit.
func effective(limit int) int64 {
	if limit == 0 {
		return maxSlots
	}
	return int64(limit)
}

// Acquire takes a slot, waiting until one is free or ctx ends. If ctx ends first it returns
// ctx.Err() and holds nothing; if ctx is already done it fails even when a slot is free.
// Every successful Acquire must be matched by one Release.
func (s *Slots) Acquire(ctx context.Context) error {
	s.lazyInit()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if !s.sem.TryAcquire(1) {
			s.waiting.Add(1)
			err := s.sem.Acquire(ctx, 1)
			s.waiting.Add(-1)
			if err != nil {
				return err
			}
		}
		if s.keep() {
			s.used.Add(1)
			return nil
		}
	}
}

// TryAcquire takes a slot if one is free and nobody is waiting for one, without blocking. It
// reports whether it took one; if so, it must be matched by one Release.
func (s *Slots) TryAcquire() bool {
	s.lazyInit()
	for s.sem.TryAcquire(1) {
		if s.keep() {
			s.used.Add(1)
			return true
		}
	}
	return false
}

// keep is called with a unit just taken from the semaphore. While the limit has been lowered and
// not every unit it removed is back in the ballast, units can still come free without a Release (a
// waiter the semaphore served just as its ctx ended puts its unit back); such a unit goes to the
// ballast instead, and keep reports false so that the caller takes another one.
func (s *Slots) keep() bool {
	if s.debt.Load() == 0 {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.debt.Load() == 0 {
		return true
	}
	s.debt.Add(-1)
	s.ballast++
	return false
}

// Release gives back a slot taken by Acquire or TryAcquire, waking the first waiter if the limit
// allows. Release panics if no slot is held.
func (s *Slots) Release() {
	s.lazyInit()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.used.Add(-1) < 0 {
		s.used.Add(1)
		panic("sandbox: Slots.Release without a matching Acquire")
	}
	if s.debt.Load() > 0 {
		// The limit was lowered while this slot was held: keep the unit as ballast.
		s.debt.Add(-1)
		s.ballast++
		return
	}
	s.sem.Release(1)
}

// Resize sets a new limit (n <= 0: unlimited), for configuration reloads. It is safe to call
// concurrently with every other method. Slots already held are kept: after lowering the limit, Used
// may exceed it until enough slots are released, and no new slot is handed out until Used is below
// the new limit (meanwhile, a waiter may lose its place in line). Raising the limit wakes waiters at
// once.
func (s *Slots) Resize(n int) {
	s.lazyInit()
	s.mu.Lock()
	defer s.mu.Unlock()
	old := effective(s.limit)
	s.limit = normLimit(n)
	next := effective(s.limit)
	switch {
	case next > old:
		up := next - old
		if c := min(up, s.debt.Load()); c > 0 { // cancel a shrink not yet paid first
			s.debt.Add(-c)
			up -= c
		}
		if up > 0 {
			s.ballast -= up
			s.sem.Release(up)
		}
	case next < old:
		s.debt.Add(old - next)
		s.payDebt()
	}
}

// payDebt moves free units into the ballast, as many as it can without waiting. The semaphore does
// not say how many units are free, so it tries the whole debt and halves the attempt on failure.
// s.mu must be held.
func (s *Slots) payDebt() {
	for k := s.debt.Load(); k > 0; {
		if s.sem.TryAcquire(k) {
			s.ballast += k
			k = min(k, s.debt.Add(-k))
		} else {
			k /= 2
		}
	}
}

// Stats returns the limit, the slots held and the callers waiting.
func (s *Slots) Stats() SlotStats {
	s.lazyInit()
	s.mu.Lock()
	limit := s.limit
	s.mu.Unlock()
	return SlotStats{Limit: limit, Used: int(s.used.Load()), Waiting: int(s.waiting.Load())}
}
