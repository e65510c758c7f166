package state

import (
	"context"
	"strconv"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/batch"
)

// decideScript makes every decision of a call in one run, all or none.
// KEYS has one key per decision; ARGV[1] is the callers' clock in µs (of
// the principals' buckets), ARGV[2] a letter per decision, then the
// arguments of each, in order:
//
//   - c: claim KEYS[i] with ARGV value for ARGV ms (the idempotency key),
//     SET NX first, deleted again when a later decision refuses;
//   - g: take a token from the GCRA bucket KEYS[i] (burst, rate, period in
//     seconds), as redis_rate's allowN does, on Redis's clock;
//   - t: take a token from the bucket KEYS[i] (tokens a second, burst), on
//     the callers' clock (the principals' limits);
//   - a: add n to the counter KEYS[i], bounded by bound (0: none), kept
//     until the unix ms given or longer (the budgets).
//
// It returns {0, value, ms left} when the claimed key holds a value
// (nothing else is decided), {2, i, x} when decision i refuses (x: µs to
// wait for a token, or the counter as it is), leaving every key as it
// was, else {1,
// x...}, one x per decision: tokens left in a GCRA bucket, a counter after
// the addition, else 0. A key met twice is decided as it stands after the
// first.
//
// The GCRA is that of github.com/go-redis/redis_rate (BSD-2-Clause), so
// that its buckets are those Limiter.Allow takes from.
var decideScript = redis.NewScript(`
local kinds, now_us = ARGV[2], tonumber(ARGV[1])
local a, seen, vals, w1, w2, w3 = 3, {}, {}, {}, {}, {}
local claimed, gnow
local function refuse(i, x)
  if claimed then redis.call('DEL', claimed) end
  return {2, i, x}
end
for i = 1, #kinds do
  local k, key = string.byte(kinds, i), KEYS[i]
  if k == 99 then -- c
    if not redis.call('SET', key, ARGV[a], 'NX', 'PX', ARGV[a+1]) then
      return {0, redis.call('GET', key), redis.call('PTTL', key)}
    end
    claimed = key
    vals[i] = 0
    a = a + 2
  elseif k == 103 then -- g
    local burst, rate, period = tonumber(ARGV[a]), tonumber(ARGV[a+1]), tonumber(ARGV[a+2])
    a = a + 3
    if not gnow then
      local t = redis.call('TIME')
      gnow = (t[1] - 1483228800) + (t[2] / 1000000)
    end
    local emission_interval = period / rate
    local tat = seen[key]
    if tat == nil then tat = tonumber(redis.call('GET', key)) or gnow end
    if tat < gnow then tat = gnow end
    local new_tat = tat + emission_interval
    local diff = gnow - (new_tat - emission_interval * burst)
    if diff < 0 then return refuse(i, math.ceil(-diff * 1000000)) end
    seen[key] = new_tat
    w1[i], w2[i] = new_tat, math.ceil(new_tat - gnow)
    vals[i] = math.floor(diff / emission_interval)
  elseif k == 116 then -- t
    local rate, burst = tonumber(ARGV[a]), tonumber(ARGV[a+1])
    a = a + 2
    local tokens, last = seen[key], w2[key]
    if tokens == nil then
      local v = redis.call('HMGET', key, 't', 'l')
      tokens, last = tonumber(v[1]), tonumber(v[2])
      if tokens == nil or last == nil then tokens, last = burst, now_us end
    end
    if now_us > last then tokens, last = tokens + (now_us - last) / 1e6 * rate, now_us end
    if tokens > burst then tokens = burst end
    if tokens < 1 then return refuse(i, math.ceil((1 - tokens) / rate * 1000000)) end
    tokens = tokens - 1
    seen[key], w2[key] = tokens, last
    w1[i], w2[i], w3[i] = tokens, last, math.ceil((burst - tokens) / rate * 1000) + 60000
    vals[i] = 0
  else -- a
    local n, bound, at = tonumber(ARGV[a]), tonumber(ARGV[a+1]), tonumber(ARGV[a+2])
    a = a + 3
    local c = seen[key]
    if c == nil then c = tonumber(redis.call('GET', key) or '0') end
    if bound > 0 and n >= 0 and (c >= bound or c + n > bound) then return refuse(i, c) end
    seen[key] = c + n
    w1[i], w2[i] = n, at
    vals[i] = c + n
  end
end
for i = 1, #kinds do
  local k, key = string.byte(kinds, i), KEYS[i]
  if k == 103 then
    if w2[i] > 0 then redis.call('SET', key, w1[i], 'EX', w2[i]) end
  elseif k == 116 then
    redis.call('HSET', key, 't', string.format('%.17g', w1[i]), 'l', string.format('%.0f', w2[i]))
    redis.call('PEXPIRE', key, w3[i])
  elseif k == 97 then
    vals[i] = redis.call('INCRBY', key, w1[i])
    if redis.call('PEXPIRETIME', key) < w2[i] then redis.call('PEXPIREAT', key, w2[i]) end
  end
end
return {1, unpack(vals)}
`)

// What a call's middleware plan to ask of Redis (internal/batch): the
// token of a tool's shared rate (Limits), the tokens of the principals'
// limits and the counters of their budgets (Counts).
type (
	rateSpec struct {
		bucket string // tooling.Rate.Key
		key    string // on Redis
		limit  redis_rate.Limit
	}
	takeSpec struct {
		keys      []string // as policy names them
		perSecond []float64
		burst     []int
		now       time.Time
	}
	addSpec struct {
		keys         []string // as policy names them
		ns, bounds   []int64
		expires      []time.Time
		expireAtMsec []int64 // on Redis: when each counter may be forgotten
	}
)

// What Redis decided of each.
type (
	rateOutcome struct {
		spent     bool // the token was taken; else none was, as another decision refused the call
		allowed   bool
		remaining int64
		retry     time.Duration
	}
	takeOutcome struct {
		refused int // -1: none
		retry   time.Duration
	}
	addOutcome struct {
		counts  []int64
		refused int // -1: none
	}
)

// claimSpec is the claim of an idempotency key.
type claimSpec struct {
	key   string // on Redis
	value string
	lease time.Duration
}

// decided is what decide found of a claim.
type decided struct {
	held    []any // the value the key holds and its ms left: nothing was decided
	claimed bool
}

// Plans reports whether the decisions of a call go in one round trip, as
// they do except on a cluster, where their keys may be on several nodes.
// Package policy asks it of its Store (internal/batch's Planner).
func (r *Redis) Plans(*batch.Batch) bool { return !r.cluster }

// settle makes the decisions of b's that r has not made yet, in one
// round trip: what each found, or the error of the round trip, is its.
func (r *Redis) settle(ctx context.Context, b *batch.Batch) {
	if items := b.Undecided(r); len(items) > 0 {
		_, _ = r.decide(ctx, nil, items)
	}
}

// decide makes the claim (nil: none) and the decisions items in one round
// trip, all or none. When the claimed key holds a value, it decides
// nothing (decided.held). Otherwise each item is decided: what Redis found,
// or the round trip's error.
func (r *Redis) decide(ctx context.Context, claim *claimSpec, items []*batch.Item) (decided, error) {
	n := len(items)
	if claim != nil {
		n++
	}
	keys := make([]string, 0, n+4)
	kinds := make([]byte, 0, n+4)
	args := make([]any, 2, 2+3*(n+4))
	var now time.Time
	if claim != nil {
		keys, kinds = append(keys, claim.key), append(kinds, 'c')
		args = append(args, claim.value, max(claim.lease.Milliseconds(), 1))
	}
	for _, it := range items {
		switch s := it.Spec.(type) {
		case *rateSpec:
			keys, kinds = append(keys, s.key), append(kinds, 'g')
			args = append(args, s.limit.Burst, s.limit.Rate, s.limit.Period.Seconds())
		case *takeSpec:
			if now.IsZero() {
				now = s.now
			}
			for i, k := range s.keys {
				keys, kinds = append(keys, r.countKey(k)), append(kinds, 't')
				args = append(args, s.perSecond[i], s.burst[i])
			}
		case *addSpec:
			for i, k := range s.keys {
				keys, kinds = append(keys, r.countKey(k)), append(kinds, 'a')
				args = append(args, s.ns[i], s.bounds[i], s.expireAtMsec[i])
			}
		}
	}
	if now.IsZero() {
		now = time.Now()
	}
	args[0], args[1] = now.UnixMicro(), kinds
	var reply []any
	err := r.call(ctx, func(ctx context.Context) (err error) {
		reply, err = decideScript.Run(ctx, r.rdb, keys, args...).Slice()
		return err
	})
	if err != nil {
		for _, it := range items {
			it.Decided, it.Err = true, err
		}
		return decided{}, err
	}
	status, _ := reply[0].(int64)
	if status == 0 {
		return decided{held: reply[1:]}, nil
	}
	// The decisions of each item are at 1+j in Redis's reply: j counts
	// them, the claim first.
	j := 0
	if claim != nil {
		j = 1
	}
	refusedAt, x := -1, int64(0)
	if status == 2 {
		i, _ := reply[1].(int64)
		refusedAt, x = int(i)-1, int64Of(reply[2])
	}
	val := func(j int) int64 {
		if status != 1 || 1+j >= len(reply) {
			return 0
		}
		return int64Of(reply[1+j])
	}
	for _, it := range items {
		it.Decided = true
		switch s := it.Spec.(type) {
		case *rateSpec:
			o := rateOutcome{spent: status == 1, allowed: j != refusedAt, remaining: val(j)}
			if j == refusedAt {
				o.retry = max(time.Duration(x)*time.Microsecond, time.Millisecond)
			}
			it.Outcome = o
			j++
		case *takeSpec:
			o := takeOutcome{refused: -1}
			if refusedAt >= j && refusedAt < j+len(s.keys) {
				o.refused, o.retry = refusedAt-j, max(time.Duration(x)*time.Microsecond, time.Nanosecond)
			}
			it.Outcome = o
			j += len(s.keys)
		case *addSpec:
			o := addOutcome{counts: make([]int64, len(s.keys)), refused: -1}
			for i := range s.keys {
				o.counts[i] = val(j + i)
			}
			if refusedAt >= j && refusedAt < j+len(s.keys) {
				o.refused = refusedAt - j
				o.counts[o.refused] = x
			}
			it.Outcome = o
			j += len(s.keys)
		}
	}
	return decided{claimed: claim != nil && status == 1}, nil
}

// int64Of is a number of Redis's reply.
func int64Of(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}
