package policy

import (
	"context"
	"sync"
	"time"
)

// Store keeps the counts behind Limits and Budgets: token buckets and
// counters, each named by a key the caller builds. NewMemoryStore keeps them
// in this process; a store that several processes share (Redis) makes
// limits and budgets hold across them. Its methods take standard types
// only, so that a package implements it without importing policy. A Store
// is safe for concurrent use; an error from it refuses the call (limits
// and budgets fail closed).
type Store interface {
	// Take takes one token from the bucket named key, which holds at most
	// burst tokens and gains perSecond tokens a second; a bucket not seen
	// before is full. It returns 0 when it took a token, else how long
	// until one is there, taking nothing. perSecond > 0 and burst >= 1.
	Take(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (retry time.Duration, err error)
	// Add adds n to the counter named key, unless bound > 0 and the
	// counter is at bound already or n > 0 would take it past bound. It
	// returns the count after (when it did not add: as it is) and whether
	// it added. A counter not seen before is 0; the store may forget it
	// after expires. n < 0 gives back what an earlier Add added.
	Add(ctx context.Context, key string, n, bound int64, expires time.Time) (count int64, added bool, err error)
}

// MemoryStore is a Store in this process's memory: what limits and budgets
// count in one process. Counters and full buckets are forgotten once they
// no longer matter.
type MemoryStore struct {
	now func() time.Time

	mu       sync.Mutex
	counters map[string]*memCounter
	buckets  map[string]*memBucket
	sweepAt  int // sweep when counters and buckets grow past this many
}

type memCounter struct {
	n       int64
	expires time.Time
}

type memBucket struct {
	tokens    float64
	last      time.Time
	perSecond float64
	burst     int
}

// NewMemoryStore returns an empty MemoryStore. now is the clock it forgets
// expired counters by (nil: time.Now).
func NewMemoryStore(now func() time.Time) *MemoryStore {
	if now == nil {
		now = time.Now
	}
	return &MemoryStore{now: now, counters: map[string]*memCounter{}, buckets: map[string]*memBucket{}, sweepAt: 1024}
}

// Take implements Store.
func (m *MemoryStore) Take(_ context.Context, key string, perSecond float64, burst int, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.buckets[key]
	if b == nil {
		m.sweep()
		b = &memBucket{tokens: float64(burst), last: now}
		m.buckets[key] = b
	}
	b.perSecond, b.burst = perSecond, burst
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return 0, nil
	}
	retry := time.Duration((1 - b.tokens) / perSecond * float64(time.Second))
	if retry <= 0 {
		retry = time.Nanosecond
	}
	return retry, nil
}

func (b *memBucket) refill(now time.Time) {
	if now.After(b.last) {
		b.tokens += now.Sub(b.last).Seconds() * b.perSecond
		b.last = now
	}
	if b.tokens > float64(b.burst) {
		b.tokens = float64(b.burst)
	}
}

// Add implements Store.
func (m *MemoryStore) Add(_ context.Context, key string, n, bound int64, expires time.Time) (int64, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.counters[key]
	if c == nil {
		m.sweep()
		c = &memCounter{}
		m.counters[key] = c
	}
	if expires.After(c.expires) {
		c.expires = expires
	}
	if bound > 0 && n >= 0 && (c.n >= bound || c.n+n > bound) {
		return c.n, false, nil
	}
	c.n += n
	return c.n, true, nil
}

// sweep forgets expired counters and full buckets once there are many.
func (m *MemoryStore) sweep() {
	if len(m.counters)+len(m.buckets) < m.sweepAt {
		return
	}
	now := m.now()
	for k, c := range m.counters {
		if now.After(c.expires) {
			delete(m.counters, k)
		}
	}
	for k, b := range m.buckets {
		b.refill(now)
		if b.tokens >= float64(b.burst) {
			delete(m.buckets, k)
		}
	}
	m.sweepAt = max(1024, 2*(len(m.counters)+len(m.buckets)))
}

var _ Store = (*MemoryStore)(nil)
