package state

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cenkalti/backoff/v5"
	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/internal/batch"
	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
)

// Idempotency is a idempotency.Store on Redis, shared by every
// process that uses the same server and prefix: a key runs once across
// them.
//
// A claim is one SET NX with the lease as its time to live, so the claim
// of a host that died ends with its lease; the outcome replaces the claim
// by a compare-and-set script, only while the claim is still the caller's.
// A call that finds the key claimed for the same call polls it, backing
// off up to a fifth of a second, until the outcome is there, the claim is
// given up or its lease ends.
//
// When Redis does not answer within the deadline of a decision, Claim and
// Get fail, naming Redis (the registry refuses the call with code
// unavailable), or, with FailOpen, use this process's own records, with a
// warning. Complete stores an outcome without the caller waiting for it:
// the claim holds the key on Redis until the outcome replaces it, so a
// repeat elsewhere waits for it, and a repeat in this process is answered
// from memory meanwhile. It tries again, backing off, until the claim's
// lease ends: an outcome Redis did not keep would let a repeat of the call
// run again. Flush, before the process ends, waits for the outcomes on
// their way.
type Idempotency struct {
	*Redis
	local idempotency.Store

	mu      sync.Mutex
	claims  map[string]claim    // the claims this process holds on Redis, by key
	storing map[string]*storing // the outcomes being stored on Redis, by key
	stores  sync.WaitGroup      // the goroutines storing them
}

// storing is an outcome on its way to Redis: done is closed once it is
// there, or given up on.
type storing struct {
	rec  idempotency.Record
	done chan struct{}
}

type claim struct {
	value string    // the pending value set by Claim: "P:" token ":" digest
	until time.Time // when its lease ends
}

// Idempotency returns the idempotency store on r's server.
func (r *Redis) Idempotency() *Idempotency {
	return &Idempotency{Redis: r, local: idempotency.NewMemory(), claims: map[string]claim{}, storing: map[string]*storing{}}
}

// Flush waits until the outcomes Complete handed over are on Redis (or
// given up on, their claims' leases passed), or ctx ends. Call it before a
// process ends, so that no outcome it ran is lost; then close the client.
func (s *Idempotency) Flush(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.stores.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// stored returns a copy of the outcome of key on its way to Redis, nil
// when there is none.
func (s *Idempotency) stored(key string) *idempotency.Record {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.storing[key]; st != nil {
		rec := st.rec
		return &rec
	}
	return nil
}

// Values kept under a key: a claim, "P:" token ":" digest, or an outcome,
// "C:" len(digest) ":" digest outcome.

// claimScript claims KEYS[1] with ARGV[1] for ARGV[2] ms, or returns what
// it holds and for how long.
var claimScript = redis.NewScript(`
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return {1} end
return {0, redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}
`)

// completeScript replaces the claim ARGV[1] of KEYS[1] by ARGV[2] kept
// for ARGV[3] ms, or, when ARGV[2] is empty, deletes it; a key that
// expired is set too. It returns 0 when KEYS[1] holds another value (the
// claim was lost).
var completeScript = redis.NewScript(`
local v = redis.call('GET', KEYS[1])
if v and v ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  if v then redis.call('DEL', KEYS[1]) end
  return 1
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`)

// getScript returns what KEYS[1] holds and for how long.
var getScript = redis.NewScript(`return {redis.call('GET', KEYS[1]), redis.call('PTTL', KEYS[1])}`)

func (s *Idempotency) idemKey(key string) string { return s.key("idem", key) }

// claimTokens makes the tokens that tell this process's claims from any
// other's: a random prefix drawn once, and a count.
var claimTokens struct {
	prefix string
	n      atomic.Uint64
}

func init() {
	var b [12]byte
	_, _ = rand.Read(b[:])
	claimTokens.prefix = hex.EncodeToString(b[:])
}

// claimToken is a token of a claim of this process's, never the same
// twice, made without asking the system for randomness on each claim.
func claimToken() string {
	return claimTokens.prefix + strconv.FormatUint(claimTokens.n.Add(1), 36)
}

// Claim implements idempotency.Store. A key whose outcome this process is
// storing is answered with it, at once.
func (s *Idempotency) Claim(ctx context.Context, key, digest string, lease time.Duration) (*idempotency.Record, error) {
	if rec := s.stored(key); rec != nil {
		return rec, nil
	}
	mine := "P:" + claimToken() + ":" + digest
	wait := backoff.ExponentialBackOff{InitialInterval: 2 * time.Millisecond, RandomizationFactor: 0.3, Multiplier: 1.6, MaxInterval: 200 * time.Millisecond}
	// The other decisions the call asks of this Redis (internal/batch)
	// are made with the claim, in one script.
	b := batch.From(ctx)
	for {
		var items []*batch.Item
		if !s.cluster {
			items = b.Undecided(s.Redis)
		}
		var (
			reply []any
			d     decided
			err   error
		)
		if len(items) > 0 {
			d, err = s.decide(ctx, &claimSpec{key: s.idemKey(key), value: mine, lease: lease}, items)
		} else {
			err = s.call(ctx, func(ctx context.Context) (err error) {
				reply, err = claimScript.Run(ctx, s.rdb, []string{s.idemKey(key)}, mine, max(lease.Milliseconds(), 1)).Slice()
				return err
			})
			if err == nil {
				if n, _ := reply[0].(int64); n == 1 {
					d.claimed = true
				} else {
					d.held = reply[1:]
				}
			}
		}
		if err != nil {
			if s.open && ctx.Err() == nil {
				s.warn(fmt.Sprintf("state: an idempotency key was claimed in this process only (%v): a repeat on another replica may run again", err))
				return s.local.Claim(ctx, key, digest, lease)
			}
			return nil, err
		}
		if d.held == nil {
			// Claimed, or another decision of the call refused it, and
			// nothing was claimed: the middleware that asked refuses the
			// call, and its Complete gives up a claim this process never
			// held.
			if d.claimed {
				s.mu.Lock()
				s.claims[key] = claim{value: mine, until: time.Now().Add(lease)}
				s.mu.Unlock()
			}
			return nil, nil
		}
		rec, err := recordOf(d.held)
		if err != nil {
			return nil, err
		}
		if rec == nil { // expired since the SET
			continue
		}
		if !rec.Pending || rec.Digest != digest {
			return rec, nil
		}
		t := time.NewTimer(min(wait.NextBackOff(), time.Until(rec.Expires)+time.Millisecond))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
	}
}

// Complete implements idempotency.Store. It stores an outcome on Redis
// without waiting: the claim stays on Redis until the outcome replaces it,
// so a repeat on another replica waits for it, and one in this process
// (Claim, Get) is answered with it at once. A failure to store it is told
// to Options.Warn (or, with FailOpen, the outcome is kept in this process).
// Flush waits for the outcomes on their way.
func (s *Idempotency) Complete(ctx context.Context, key string, rec *idempotency.Record, ttl time.Duration) error {
	s.mu.Lock()
	c, onRedis := s.claims[key]
	delete(s.claims, key)
	if !onRedis || rec == nil {
		s.mu.Unlock()
		if !onRedis {
			// A claim this process took in its own records (FailOpen), or none.
			return s.local.Complete(ctx, key, rec, ttl)
		}
		return s.complete(ctx, key, c, nil, ttl)
	}
	st := &storing{rec: idempotency.Record{Digest: rec.Digest, Outcome: append([]byte(nil), rec.Outcome...), Expires: time.Now().Add(ttl)},
		done: make(chan struct{})}
	s.storing[key] = st
	s.stores.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.stores.Done()
		if err := s.complete(context.WithoutCancel(ctx), key, c, &st.rec, ttl); err != nil {
			s.warn(fmt.Sprintf("state: an outcome was not kept (%v): a repeat of the call may run again", err))
		}
		s.mu.Lock()
		if s.storing[key] == st {
			delete(s.storing, key)
		}
		s.mu.Unlock()
		close(st.done)
	}()
	return nil
}

// complete replaces the claim c of key by rec on Redis (nil: deletes it),
// trying again, backing off, until the claim's lease ends.
func (s *Idempotency) complete(ctx context.Context, key string, c claim, rec *idempotency.Record, ttl time.Duration) error {
	value := ""
	if rec != nil {
		value = "C:" + strconv.Itoa(len(rec.Digest)) + ":" + rec.Digest + string(rec.Outcome)
	}
	try := func() (bool, error) {
		var kept int64
		err := s.call(ctx, func(ctx context.Context) (err error) {
			kept, err = completeScript.Run(ctx, s.rdb, []string{s.idemKey(key)}, c.value, value, max(ttl.Milliseconds(), 1)).Int64()
			return err
		})
		var unavailable *unavailableError
		if err != nil && !errors.As(err, &unavailable) {
			return false, backoff.Permanent(err)
		}
		return kept == 1, err
	}
	kept, err := backoff.Retry(ctx, try, backoff.WithBackOff(&backoff.ExponentialBackOff{InitialInterval: 10 * time.Millisecond,
		RandomizationFactor: 0.3, Multiplier: 2, MaxInterval: time.Second}), backoff.WithMaxElapsedTime(max(time.Until(c.until), s.timeout)))
	switch {
	case err != nil && rec != nil && s.open:
		s.warn(fmt.Sprintf("state: an outcome was kept in this process only (%v): a repeat on another replica may run again", err))
		return s.local.Complete(ctx, key, rec, ttl)
	case err != nil:
		return err
	case !kept && rec != nil:
		return errors.New("state: the claim of the idempotency key ended (its lease passed) before the call completed: another call may have claimed it")
	}
	return nil
}

// Get implements idempotency.Store.
func (s *Idempotency) Get(ctx context.Context, key string) (*idempotency.Record, error) {
	if rec := s.stored(key); rec != nil {
		return rec, nil
	}
	var reply []any
	err := s.call(ctx, func(ctx context.Context) (err error) {
		reply, err = getScript.Run(ctx, s.rdb, []string{s.idemKey(key)}).Slice()
		return err
	})
	if err != nil {
		if s.open && ctx.Err() == nil {
			return s.local.Get(ctx, key)
		}
		return nil, err
	}
	return recordOf(reply)
}

// recordOf reads a value and its time to live in ms, as the scripts
// return them; nil when there is none.
func recordOf(reply []any) (*idempotency.Record, error) {
	if len(reply) < 2 || reply[0] == nil {
		return nil, nil
	}
	v, _ := reply[0].(string)
	pttl, _ := reply[1].(int64)
	if pttl < 0 { // none, or kept forever: neither is set by this store
		pttl = 0
	}
	expires := time.Now().Add(time.Duration(pttl) * time.Millisecond)
	switch {
	case strings.HasPrefix(v, "P:"):
		_, digest, ok := strings.Cut(v[2:], ":")
		if ok {
			return &idempotency.Record{Digest: digest, Pending: true, Expires: expires}, nil
		}
	case strings.HasPrefix(v, "C:"):
		n, rest, ok := strings.Cut(v[2:], ":")
		size, err := strconv.Atoi(n)
		if ok && err == nil && size >= 0 && size <= len(rest) {
			return &idempotency.Record{Digest: rest[:size], Outcome: []byte(rest[size:]), Expires: expires}, nil
		}
	}
	return nil, fmt.Errorf("state: an idempotency record on Redis cannot be read (%.20q...)", v)
}

var _ idempotency.Store = (*Idempotency)(nil)
