package policy

import (
	"context"
	"strings"
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

// BatchStore is a Store that makes all the decisions of a call in one
// exchange: one round trip to a shared store, however many limits or
// budgets apply. Limits and Budgets use it when their store has it, and
// otherwise decide one by one.
type BatchStore interface {
	Store
	// TakeAll takes one token from each bucket keys[i] (perSecond[i],
	// burst[i], as Take), in order, stopping at the first that has none:
	// it returns that bucket's index and how long until it has a token
	// (the buckets before it keep the token taken), or -1 and 0 when it
	// took one from each.
	TakeAll(ctx context.Context, keys []string, perSecond []float64, burst []int, now time.Time) (refused int, retry time.Duration, err error)
	// AddAll adds ns[i] to each counter keys[i], bounded by bounds[i] and
	// kept until expires[i] as Add does, all or none: when one counter
	// would not add, none does and it returns that counter's index, else
	// -1. counts are the counts after (when refused: as they are).
	AddAll(ctx context.Context, keys []string, ns, bounds []int64, expires []time.Time) (counts []int64, refused int, err error)
}

// keyOf is the key of a count of tenant's (Store): the tenant, a NUL
// byte, then parts joined by NUL bytes.
func keyOf(tenant string, parts ...string) string {
	return tenant + "\x00" + strings.Join(parts, "\x00")
}

// takeAll takes a token from each bucket, in one exchange when s is a
// BatchStore.
func takeAll(ctx context.Context, s Store, keys []string, perSecond []float64, burst []int, now time.Time) (int, time.Duration, error) {
	if b, ok := s.(BatchStore); ok {
		return b.TakeAll(ctx, keys, perSecond, burst, now)
	}
	for i, k := range keys {
		retry, err := s.Take(ctx, k, perSecond[i], burst[i], now)
		if err != nil || retry > 0 {
			return i, retry, err
		}
	}
	return -1, 0, nil
}

// addAll adds to every counter or none, in one exchange when s is a
// BatchStore; otherwise one by one, giving back what it added when a
// counter refuses.
func addAll(ctx context.Context, s Store, keys []string, ns, bounds []int64, expires []time.Time) ([]int64, int, error) {
	if b, ok := s.(BatchStore); ok {
		return b.AddAll(ctx, keys, ns, bounds, expires)
	}
	counts := make([]int64, len(keys))
	for i, k := range keys {
		n, ok, err := s.Add(ctx, k, ns[i], bounds[i], expires[i])
		counts[i] = n
		if err == nil && ok {
			continue
		}
		for j := range i {
			if ns[j] != 0 {
				// Best effort: what cannot be given back stays counted.
				_, _, _ = s.Add(context.WithoutCancel(ctx), keys[j], -ns[j], 0, expires[j])
			}
		}
		if err != nil {
			return nil, i, err
		}
		return counts, i, nil
	}
	return counts, -1, nil
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

// Peek is Take without taking: 0 when the bucket named key has a token
// now, else how long until it has one. A bucket not seen before is full.
func (m *MemoryStore) Peek(_ context.Context, key string, perSecond float64, burst int, now time.Time) (time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.buckets[key]
	if b == nil {
		return 0, nil
	}
	tokens := b.tokens
	if now.After(b.last) {
		tokens += now.Sub(b.last).Seconds() * perSecond
	}
	if tokens >= 1 {
		return 0, nil
	}
	retry := time.Duration((1 - tokens) / perSecond * float64(time.Second))
	return max(retry, time.Nanosecond), nil
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

// TakeAll implements BatchStore.
func (m *MemoryStore) TakeAll(ctx context.Context, keys []string, perSecond []float64, burst []int, now time.Time) (int, time.Duration, error) {
	for i, k := range keys {
		if retry, _ := m.Take(ctx, k, perSecond[i], burst[i], now); retry > 0 {
			return i, retry, nil
		}
	}
	return -1, 0, nil
}

// AddAll implements BatchStore: all or none, under one lock.
func (m *MemoryStore) AddAll(ctx context.Context, keys []string, ns, bounds []int64, expires []time.Time) ([]int64, int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	counts := make([]int64, len(keys))
	for i, k := range keys {
		var n int64
		if c := m.counters[k]; c != nil {
			n = c.n
		}
		counts[i] = n
		if bounds[i] > 0 && ns[i] >= 0 && (n >= bounds[i] || n+ns[i] > bounds[i]) {
			return counts, i, nil
		}
	}
	for i, k := range keys {
		c := m.counters[k]
		if c == nil {
			m.sweep()
			c = &memCounter{}
			m.counters[k] = c
		}
		if expires[i].After(c.expires) {
			c.expires = expires[i]
		}
		c.n += ns[i]
		counts[i] = c.n
	}
	return counts, -1, nil
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

var _ BatchStore = (*MemoryStore)(nil)
