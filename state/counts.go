package state

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/batch"
)

// CountStore is the store of counts behind the principals' limits and
// budgets: policy.Store, repeated here so that this package need not
// import policy. Counts is one, on Redis.
type CountStore interface {
	Take(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (retry time.Duration, err error)
	Add(ctx context.Context, key string, n, bound int64, expires time.Time) (count int64, added bool, err error)
}

// batchStore is policy.BatchStore.
type batchStore interface {
	CountStore
	TakeAll(ctx context.Context, keys []string, perSecond []float64, burst []int, now time.Time) (refused int, retry time.Duration, err error)
	AddAll(ctx context.Context, keys []string, ns, bounds []int64, expires []time.Time) (counts []int64, refused int, err error)
}

// Counts keeps the counts of the principals' limits and budgets (a
// policy.Store and policy.BatchStore) on Redis, so that they hold across
// every process that uses the same server and prefix. All the limits and
// budgets a call meets are decided in one script, with the call's other
// decisions on this Redis (its claim, its tool's token), all or none: one
// round trip, however many apply. Called outside a call (or on a cluster),
// TakeAll and AddAll make a round trip each.
//
// A key's tenant (the part before its first NUL byte) becomes a hash tag,
// {prefix:tenant}, so that a Redis Cluster keeps a tenant's counts on one
// node and the scripts, which touch one tenant's keys, run there. Buckets
// and counters are decided on the callers' clocks (the time each call
// passes): keep the replicas' clocks in step (NTP).
//
// When Redis does not answer within the deadline of a decision, Counts
// fails, naming Redis (the call is refused with code unavailable), or, with
// FailOpen, decides on local, the process's own store, with a warning.
type Counts struct {
	*Redis
	local CountStore
}

// Counts returns the store of counts on r's server; local is the store
// its decisions fall back on (FailOpen), a policy.MemoryStore.
func (r *Redis) Counts(local CountStore) *Counts { return &Counts{Redis: r, local: local} }

// countKey is key on Redis: {prefix:tenant}:rest, the NUL bytes as ":".
func (r *Redis) countKey(key string) string {
	tenant, rest, _ := strings.Cut(key, "\x00")
	return "{" + r.prefix + ":" + tenant + "}:" + strings.ReplaceAll(rest, "\x00", ":")
}

// takeScript takes a token from each bucket KEYS[i] (ARGV[2i] tokens a
// second, ARGV[2i+1] at most), at ARGV[1] µs, stopping at the first that
// has none: it returns {i, seconds to wait} for it, or {0, "0"}. A bucket
// is a hash of its tokens and the time they were counted, forgotten once
// it would be full again.
var takeScript = redis.NewScript(`
local now = tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  local rate, burst = tonumber(ARGV[2*i]), tonumber(ARGV[2*i+1])
  local v = redis.call('HMGET', key, 't', 'l')
  local tokens, last = tonumber(v[1]), tonumber(v[2])
  if tokens == nil or last == nil then tokens, last = burst, now end
  if now > last then tokens, last = tokens + (now - last) / 1e6 * rate, now end
  if tokens > burst then tokens = burst end
  if tokens < 1 then return {i, string.format('%.9f', (1 - tokens) / rate)} end
  tokens = tokens - 1
  redis.call('HSET', key, 't', string.format('%.17g', tokens), 'l', string.format('%.0f', last))
  redis.call('PEXPIRE', key, math.ceil((burst - tokens) / rate * 1000) + 60000)
end
return {0, '0'}
`)

// peekScript is takeScript for one bucket, KEYS[1], without taking: it
// returns the seconds to wait until it has a token, "0" when it has one
// now. It writes nothing.
var peekScript = redis.NewScript(`#!lua flags=no-writes
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local v = redis.call('HMGET', KEYS[1], 't', 'l')
local tokens, last = tonumber(v[1]), tonumber(v[2])
if tokens == nil or last == nil then return '0' end
if now > last then tokens = tokens + (now - last) / 1e6 * rate end
if tokens > burst then tokens = burst end
if tokens >= 1 then return '0' end
return string.format('%.9f', (1 - tokens) / rate)
`)

// addScript adds ARGV[3i-2] to each counter KEYS[i], bounded by
// ARGV[3i-1] (0: none), kept until ARGV[3i] (unix ms) or longer, all or
// none: it returns {0, counts after...} or {i, counts as they are...} for
// the first counter that would pass its bound.
var addScript = redis.NewScript(`
local counts = {}
for i, key in ipairs(KEYS) do counts[i] = tonumber(redis.call('GET', key) or '0') end
for i, c in ipairs(counts) do
  local n, bound = tonumber(ARGV[3*i-2]), tonumber(ARGV[3*i-1])
  if bound > 0 and n >= 0 and (c >= bound or c + n > bound) then
    return {i, unpack(counts)}
  end
end
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('INCRBY', key, ARGV[3*i-2])
  local at = tonumber(ARGV[3*i])
  if redis.call('PEXPIRETIME', key) < at then redis.call('PEXPIREAT', key, at) end
end
return {0, unpack(counts)}
`)

// keepFor is how long past its window's end, on this process's clock, a
// counter stays: room for clocks out of step.
const keepFor = time.Minute

// Take implements policy.Store.
func (s *Counts) Take(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (time.Duration, error) {
	_, retry, err := s.TakeAll(ctx, []string{key}, []float64{perSecond}, []int{burst}, now)
	return retry, err
}

// Add implements policy.Store.
func (s *Counts) Add(ctx context.Context, key string, n, bound int64, expires time.Time) (int64, bool, error) {
	counts, refused, err := s.AddAll(ctx, []string{key}, []int64{n}, []int64{bound}, []time.Time{expires})
	if err != nil {
		return 0, false, err
	}
	return counts[0], refused < 0, nil
}

// Peek is Take without taking, as policy's Limits ask it when they only
// explain a call: 0 when the bucket named key has a token now, else how
// long until it has one. It writes nothing on Redis. When Redis does not
// answer in time, it fails, naming Redis, or, with FailOpen, asks the local
// store, as Take would.
func (s *Counts) Peek(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (time.Duration, error) {
	var secs string
	err := s.call(ctx, func(ctx context.Context) (err error) {
		secs, err = peekScript.Run(ctx, s.rdb, []string{s.countKey(key)}, now.UnixMicro(), perSecond, burst).Text()
		return err
	})
	if err != nil {
		p, ok := s.local.(interface {
			Peek(ctx context.Context, key string, perSecond float64, burst int, now time.Time) (time.Duration, error)
		})
		if ok && s.fallback(ctx, "limits", err) {
			return p.Peek(ctx, key, perSecond, burst, now)
		}
		return 0, err
	}
	wait, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return 0, fmt.Errorf("state: a bucket on Redis answered %q: %v", secs, err)
	}
	if wait <= 0 {
		return 0, nil
	}
	return max(time.Duration(wait*float64(time.Second)), time.Nanosecond), nil
}

// TakeAll implements policy.BatchStore, in one round trip: the call's
// other decisions on this Redis go in it too (internal/batch).
func (s *Counts) TakeAll(ctx context.Context, keys []string, perSecond []float64, burst []int, now time.Time) (int, time.Duration, error) {
	if b := batch.From(ctx); b != nil && !s.cluster {
		if b.Planning() {
			b.Add(s.Redis, &takeSpec{keys: keys, perSecond: perSecond, burst: burst, now: now})
			return -1, 0, nil
		}
		it := b.Take(s.Redis, func(spec any) bool { t, ok := spec.(*takeSpec); return ok && slices.Equal(t.keys, keys) })
		if it != nil {
			if !it.Decided {
				s.settle(ctx, b)
			}
			if it.Err != nil {
				if s.fallback(ctx, "limits", it.Err) {
					return takeAllLocal(ctx, s.local, keys, perSecond, burst, now)
				}
				return 0, 0, it.Err
			}
			o := it.Outcome.(takeOutcome)
			return o.refused, o.retry, nil
		}
	}
	rkeys := make([]string, len(keys))
	args := make([]any, 0, 1+2*len(keys))
	args = append(args, now.UnixMicro())
	for i, k := range keys {
		rkeys[i] = s.countKey(k)
		args = append(args, perSecond[i], burst[i])
	}
	var reply []any
	err := s.call(ctx, func(ctx context.Context) (err error) {
		reply, err = takeScript.Run(ctx, s.rdb, rkeys, args...).Slice()
		return err
	})
	if err != nil {
		if s.fallback(ctx, "limits", err) {
			return takeAllLocal(ctx, s.local, keys, perSecond, burst, now)
		}
		return 0, 0, err
	}
	i, _ := reply[0].(int64)
	if i == 0 {
		return -1, 0, nil
	}
	secs, _ := reply[1].(string)
	wait, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("state: a bucket on Redis answered %q: %v", secs, err)
	}
	return int(i - 1), max(time.Duration(wait*float64(time.Second)), time.Nanosecond), nil
}

// AddAll implements policy.BatchStore, all or none, in one round trip:
// the call's other decisions on this Redis go in it too (internal/batch).
func (s *Counts) AddAll(ctx context.Context, keys []string, ns, bounds []int64, expires []time.Time) ([]int64, int, error) {
	if b := batch.From(ctx); b != nil && !s.cluster {
		if b.Planning() {
			b.Add(s.Redis, &addSpec{keys: keys, ns: ns, bounds: bounds, expires: expires, expireAtMsec: keepUntil(expires)})
			return make([]int64, len(keys)), -1, nil
		}
		it := b.Take(s.Redis, func(spec any) bool {
			a, ok := spec.(*addSpec)
			return ok && slices.Equal(a.keys, keys) && slices.Equal(a.ns, ns)
		})
		if it != nil {
			if !it.Decided {
				s.settle(ctx, b)
			}
			if it.Err != nil {
				if s.fallback(ctx, "budgets", it.Err) {
					return addAllLocal(ctx, s.local, keys, ns, bounds, expires)
				}
				return nil, 0, it.Err
			}
			o := it.Outcome.(addOutcome)
			return o.counts, o.refused, nil
		}
	}
	rkeys := make([]string, len(keys))
	args := make([]any, 0, 3*len(keys))
	for i, k := range keys {
		rkeys[i] = s.countKey(k)
	}
	for i, at := range keepUntil(expires) {
		args = append(args, ns[i], bounds[i], at)
	}
	var reply []any
	err := s.call(ctx, func(ctx context.Context) (err error) {
		reply, err = addScript.Run(ctx, s.rdb, rkeys, args...).Slice()
		return err
	})
	if err != nil {
		if s.fallback(ctx, "budgets", err) {
			return addAllLocal(ctx, s.local, keys, ns, bounds, expires)
		}
		return nil, 0, err
	}
	counts := make([]int64, len(keys))
	for i := range counts {
		counts[i], _ = reply[i+1].(int64)
	}
	i, _ := reply[0].(int64)
	return counts, int(i - 1), nil
}

// keepUntil is when, in unix ms, each counter that expires may be
// forgotten on Redis: keepFor past the end of its window, and not before
// keepFor from now.
func keepUntil(expires []time.Time) []int64 {
	floor := time.Now()
	out := make([]int64, len(expires))
	for i, at := range expires {
		if at.Before(floor) {
			at = floor
		}
		out[i] = at.Add(keepFor).UnixMilli()
	}
	return out
}

// fallback reports whether a decision Redis did not give falls back to the
// local store, warning that it does.
func (s *Counts) fallback(ctx context.Context, what string, err error) bool {
	if !s.open || ctx.Err() != nil || s.local == nil {
		return false
	}
	s.warn(fmt.Sprintf("state: %s were decided in this process only (%v)", what, err))
	return true
}

func takeAllLocal(ctx context.Context, s CountStore, keys []string, perSecond []float64, burst []int, now time.Time) (int, time.Duration, error) {
	if b, ok := s.(batchStore); ok {
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

func addAllLocal(ctx context.Context, s CountStore, keys []string, ns, bounds []int64, expires []time.Time) ([]int64, int, error) {
	if b, ok := s.(batchStore); ok {
		return b.AddAll(ctx, keys, ns, bounds, expires)
	}
	counts := make([]int64, len(keys))
	for i, k := range keys {
		n, ok, err := s.Add(ctx, k, ns[i], bounds[i], expires[i])
		if err != nil {
			return nil, i, err
		}
		counts[i] = n
		if !ok {
			for j := range i {
				_, _, _ = s.Add(ctx, keys[j], -ns[j], 0, expires[j])
			}
			return counts, i, nil
		}
	}
	return counts, -1, nil
}

var _ batchStore = (*Counts)(nil)
