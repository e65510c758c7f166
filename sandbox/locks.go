package sandbox

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Holder says who holds or waits for a lock, for [Locks.Stats]: typically a tool name and a call id.
type Holder struct {
	Name string
	ID   string
}

// LockStats describes one key that is held or waited for.
type LockStats struct {
	Key       string
	Holder    *Holder   // who holds the key; never nil
	HeldSince time.Time // when the holder got it
	Waiters   []Holder  // in the order they will be served
}

// Locks hands out keyed exclusive locks: two callers sharing a key never hold it at once, while
// callers with disjoint keys run side by side. A caller names all its keys in one [Locks.Acquire];
// they are taken one by one in sorted order, the same global order for everyone, so no set of
// callers can deadlock. Each key serves its waiters in FIFO order and hands itself over directly on
// release, so a newcomer never overtakes a waiter.
//
// State is kept only for keys that are held or waited for, so any number of distinct keys may be used
// over time. The zero Locks is ready to use. A Locks must not be copied after first use.
type Locks struct {
	mu   sync.Mutex
	keys map[string]*lockState
	free []*lockState // recycled states, to spare an allocation per uncontended key
}

// maxFreeLockStates bounds the recycled states kept by a Locks.
const maxFreeLockStates = 64

type lockState struct {
	holder  Holder
	since   time.Time
	waiters []*lockWaiter // FIFO
}

type lockWaiter struct {
	h       Holder
	ready   chan struct{} // closed when the key is handed over
	granted bool          // set with ready closed, under Locks.mu
}

// NewLocks returns an empty Locks; it is the same as new(Locks).
func NewLocks() *Locks { return &Locks{} }

// lease is one successful Acquire: the keys it holds and whether it has released them.
type lease struct {
	l     *Locks
	keys  []string
	small [2]string // backing store of keys for the common one- or two-key case
	done  atomic.Bool
}

func (ls *lease) release() {
	if ls.done.CompareAndSwap(false, true) {
		ls.l.unlock(ls.keys)
	}
}

// Acquire takes every key in keys (duplicates count once) for h, waiting as long as needed, and
// returns a func that releases them all. The keys are taken in sorted order, so callers naming
// overlapping sets in any order cannot deadlock. If ctx ends before all keys are held (or is already
// done), Acquire releases the keys it took, returns ctx.Err() and a nil release func. With no keys it
// returns at once. release is safe to call more than once and from any goroutine; only the first
// call has an effect. keys is not retained.
func (l *Locks) Acquire(ctx context.Context, keys []string, h Holder) (release func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ls := &lease{l: l}
	ls.keys = sortedKeys(ls.small[:0], keys)
	now := time.Now() // read once for the free keys, not once per key: the clock is not free
	for i, k := range ls.keys {
		waited, err := l.lock(ctx, k, h, now)
		if err != nil {
			l.unlock(ls.keys[:i])
			return nil, err
		}
		if waited {
			now = time.Now()
		}
	}
	return ls.release, nil
}

// sortedKeys appends keys to dst, sorted and without duplicates.
func sortedKeys(dst, keys []string) []string {
	switch len(keys) {
	case 0:
		return dst
	case 1:
		return append(dst, keys[0])
	case 2:
		a, b := keys[0], keys[1]
		switch {
		case a == b:
			return append(dst, a)
		case a > b:
			a, b = b, a
		}
		return append(dst, a, b)
	}
	dst = append(dst, keys...)
	slices.Sort(dst)
	return slices.Compact(dst)
}

// lock takes one key, waiting in its FIFO queue if it is held, and reports whether it waited. If
// the key is free, now is recorded as the time h got it.
func (l *Locks) lock(ctx context.Context, key string, h Holder, now time.Time) (waited bool, err error) {
	l.mu.Lock()
	st := l.keys[key]
	if st == nil {
		st = l.newState()
		st.holder, st.since = h, now
		if l.keys == nil {
			l.keys = make(map[string]*lockState)
		}
		l.keys[key] = st
		l.mu.Unlock()
		return false, nil
	}
	w := &lockWaiter{h: h, ready: make(chan struct{})}
	st.waiters = append(st.waiters, w)
	l.mu.Unlock()

	select {
	case <-w.ready:
		return true, nil
	case <-ctx.Done():
	}
	l.mu.Lock()
	if w.granted {
		// Handed over just as ctx ended: pass the key on as if it never came.
		var t time.Time
		l.unlockLocked(key, &t)
	} else {
		// While w waits the key has a holder, so st is still the key's state.
		if i := slices.Index(st.waiters, w); i >= 0 {
			st.waiters = slices.Delete(st.waiters, i, i+1)
		}
	}
	l.mu.Unlock()
	return true, ctx.Err()
}

func (l *Locks) newState() *lockState {
	if n := len(l.free); n > 0 {
		st := l.free[n-1]
		l.free = l.free[:n-1]
		return st
	}
	return &lockState{}
}

// unlock releases keys, handing each to its first waiter.
func (l *Locks) unlock(keys []string) {
	if len(keys) == 0 {
		return
	}
	var now time.Time
	l.mu.Lock()
	for _, k := range keys {
		l.unlockLocked(k, &now)
	}
	l.mu.Unlock()
}

// unlockLocked releases one held key: it goes to the first waiter, or its state is dropped. The
// clock is read into *now at the first hand-over only. l.mu must be held.
func (l *Locks) unlockLocked(key string, now *time.Time) {
	st := l.keys[key]
	if st == nil {
		panic("sandbox: Locks: release of a key that is not held: " + key)
	}
	if len(st.waiters) > 0 {
		w := st.waiters[0]
		st.waiters[0] = nil
		st.waiters = st.waiters[1:]
		if len(st.waiters) == 0 {
			st.waiters = nil // let go of the array; a busy queue reallocates as it grows
		}
		if now.IsZero() {
			*now = time.Now()
		}
		st.holder, st.since = w.h, *now
		w.granted = true
		close(w.ready)
		return
	}
	delete(l.keys, key)
	if len(l.free) < maxFreeLockStates {
		*st = lockState{}
		l.free = append(l.free, st)
	}
}

// Stats returns the keys held or waited for, sorted by key.
func (l *Locks) Stats() []LockStats {
	l.mu.Lock()
	out := make([]LockStats, 0, len(l.keys))
	for k, st := range l.keys {
		h := st.holder
		s := LockStats{Key: k, Holder: &h, HeldSince: st.since}
		if len(st.waiters) > 0 {
			s.Waiters = make([]Holder, len(st.waiters))
			for i, w := range st.waiters {
				s.Waiters[i] = w.h
			}
		}
		out = append(out, s)
	}
	l.mu.Unlock()
	slices.SortFunc(out, func(a, b LockStats) int { return cmp.Compare(a.Key, b.Key) })
	return out
}
