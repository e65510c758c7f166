package sandbox

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rate is a token-bucket rate: PerMinute tokens are added per minute, up to Burst tokens at once.
//
// The zero Rate is unlimited. So is any PerMinute that is not a positive number (0, negative, NaN)
// and +Inf. This is the opposite of golang.org/x/time/rate, where rate.Limit(0) allows no events:
// the conversion happens only inside this package, once the unlimited case is out of the way.
// With a positive PerMinute, a Burst below 1 means 1.
type Rate struct {
	PerMinute float64 // tokens added per minute; <= 0 means unlimited
	Burst     int     // tokens the bucket holds at most; < 1 means 1
}

// Unlimited reports whether r puts no limit at all.
func (r Rate) Unlimited() bool {
	return !(r.PerMinute > 0) || math.IsInf(r.PerMinute, 1)
}

// norm returns r in canonical form: the zero Rate if unlimited, else a Burst of at least 1.
func (r Rate) norm() Rate {
	if r.Unlimited() {
		return Rate{}
	}
	r.Burst = max(r.Burst, 1)
	return r
}

// limit is r as a rate.Limit, in events per second; r must be limited.
func (r Rate) limit() rate.Limit { return rate.Limit(r.PerMinute / 60) }

// String returns "unlimited" or, for example, "6/min, burst 2".
func (r Rate) String() string {
	if r.Unlimited() {
		return "unlimited"
	}
	r = r.norm()
	return fmt.Sprintf("%g/min, burst %d", r.PerMinute, r.Burst)
}

// BucketStats describes one bucket of a [Buckets].
type BucketStats struct {
	Key    string
	Rate   Rate    // in canonical form (Burst at least 1)
	Tokens float64 // tokens available at the time given to Stats, from 0 to Rate.Burst
}

// Buckets keeps one token bucket per key (a tool name, a resource key), each made from the [Rate]
// given to [Buckets.Take] at its first use and remade when that Rate changes. Unlimited keys keep no
// bucket. Time is a parameter of every method, as in rate.Limiter.AllowN; pass time.Now() in
// production and any increasing times in tests. A time before the zero time.Time is not meaningful.
//
// The zero Buckets is empty and ready to use. A Buckets must not be copied after first use.
type Buckets struct {
	m sync.Map // key string → *bucket
}

type bucket struct {
	mu   sync.Mutex
	rate Rate // canonical, never unlimited
	lim  *rate.Limiter
	dead bool // removed from the map; takers must look the key up again
}

// NewBuckets returns an empty Buckets; it is the same as new(Buckets).
func NewBuckets() *Buckets { return &Buckets{} }

// Take takes one token from the bucket named key at time now. The bucket is made with rate r, full,
// at first use; if r differs from the rate it was made with, it is remade with r, keeping its tokens
// but no more than the new burst. With an unlimited r, Take always succeeds, and drops the bucket of
// key if there was one.
//
// When no token is available Take returns ok false and retryAfter, the time from now until the
// bucket holds a whole token again (always > 0); nothing is taken.
func (b *Buckets) Take(key string, r Rate, now time.Time) (ok bool, retryAfter time.Duration) {
	r = r.norm()
	if r.Unlimited() {
		b.drop(key)
		return true, 0
	}
	for {
		bk := b.load(key, r, now)
		bk.mu.Lock()
		if bk.dead {
			bk.mu.Unlock()
			continue
		}
		if bk.rate != r {
			bk.lim = newLimiter(r, bk.lim.TokensAt(now), now)
			bk.rate = r
		}
		ok = bk.lim.AllowN(now, 1)
		if !ok {
			retryAfter = untilToken(bk.lim, r, now)
		}
		bk.mu.Unlock()
		return ok, retryAfter
	}
}

// load returns the bucket of key, making a full one with r if there is none.
func (b *Buckets) load(key string, r Rate, now time.Time) *bucket {
	if v, ok := b.m.Load(key); ok {
		return v.(*bucket)
	}
	v, _ := b.m.LoadOrStore(key, &bucket{rate: r, lim: newLimiter(r, float64(r.Burst), now)})
	return v.(*bucket)
}

// drop removes the bucket of key, if any.
func (b *Buckets) drop(key string) {
	v, ok := b.m.Load(key)
	if !ok {
		return
	}
	bk := v.(*bucket)
	bk.mu.Lock()
	bk.dead = true
	b.m.CompareAndDelete(key, bk)
	bk.mu.Unlock()
}

// Refund gives one token back to the bucket of key at time now, never filling it beyond its burst:
// a call refused after taking its token (because it was busy, say) should not lose it. Refund does
// nothing when key has no bucket (an unlimited key, or one never taken).
//
// Refund does not use rate.Reservation.Cancel: a cancellation only restores the tokens of a
// reservation whose time to act is still ahead, whereas a refund comes after the token was used.
// The bucket is instead remade with its current tokens plus one.
func (b *Buckets) Refund(key string, now time.Time) {
	v, ok := b.m.Load(key)
	if !ok {
		return
	}
	bk := v.(*bucket)
	bk.mu.Lock()
	if !bk.dead {
		bk.lim = newLimiter(bk.rate, bk.lim.TokensAt(now)+1, now)
	}
	bk.mu.Unlock()
}

// Prune drops the buckets that are full at time now and returns how many it dropped. A full bucket
// behaves exactly like the new one Take would make, so pruning changes no decision; it only bounds
// the memory held for keys that are no longer used.
func (b *Buckets) Prune(now time.Time) int {
	n := 0
	b.m.Range(func(k, v any) bool {
		bk := v.(*bucket)
		bk.mu.Lock()
		if !bk.dead && bk.lim.TokensAt(now) >= float64(bk.rate.Burst) {
			bk.dead = true
			b.m.CompareAndDelete(k, bk)
			n++
		}
		bk.mu.Unlock()
		return true
	})
	return n
}

// Stats returns every bucket with its tokens at time now, sorted by key.
func (b *Buckets) Stats(now time.Time) []BucketStats {
	var out []BucketStats
	b.m.Range(func(k, v any) bool {
		bk := v.(*bucket)
		bk.mu.Lock()
		if !bk.dead {
			out = append(out, BucketStats{Key: k.(string), Rate: bk.rate, Tokens: bk.lim.TokensAt(now)})
		}
		bk.mu.Unlock()
		return true
	})
	slices.SortFunc(out, func(a, b BucketStats) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// newLimiter returns a limiter for r holding tokens (clamped to [0, burst]) at time now. A new
// rate.Limiter starts full; for fewer tokens it is emptied at a time back-dated so that by now it has
// refilled to tokens, never less: a whole token must not go missing by a float's width.
func newLimiter(r Rate, tokens float64, now time.Time) *rate.Limiter {
	lim, burst := r.limit(), r.Burst
	if !(tokens < float64(burst)) {
		return rate.NewLimiter(lim, burst)
	}
	tokens = max(tokens, 0)
	d := durationFor(tokens, lim)
	step := time.Nanosecond
	for range 64 {
		l := rate.NewLimiter(lim, burst)
		l.AllowN(now.Add(-d), burst)
		if l.TokensAt(now) >= tokens || d == math.MaxInt64 {
			return l
		}
		d = satAdd(d, step)
		step *= 2
	}
	return rate.NewLimiter(lim, burst) // unreachable in practice: 64 doublings cover any float error
}

// untilToken returns how long from now until lim, which lacks a token at now, holds a whole one.
func untilToken(lim *rate.Limiter, r Rate, now time.Time) time.Duration {
	d := max(durationFor(1-lim.TokensAt(now), r.limit()), time.Nanosecond)
	for step := time.Nanosecond; d < math.MaxInt64 && lim.TokensAt(now.Add(d)) < 1; step *= 2 {
		d = satAdd(d, step)
	}
	return d
}

// durationFor returns the time lim takes to add tokens, rounded to the nanosecond and saturating at
// math.MaxInt64. Callers check the result against the limiter and add what rounding took away.
func durationFor(tokens float64, lim rate.Limit) time.Duration {
	ns := math.Round(tokens / float64(lim) * float64(time.Second))
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

func satAdd(a, b time.Duration) time.Duration {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
