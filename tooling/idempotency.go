package tooling

import (
	"context"
	"time"
)

// CodeIdempotencyConflict: the call's idempotency key was used before (or
// is in use now) by a call of another tool or with other arguments, or by
// a call with the same ones whose output was too large to keep
// (Settings.IdempotencyMaxBytes); the message names that call. Nothing ran.
const CodeIdempotencyConflict Code = "idempotency_conflict"

// IdempotencyStore keeps the outcomes of the calls made with an idempotency
// key (WithIdempotencyKey) to a tool that takes keys (Meta.IdempotencyKeys),
// so that a repeat of such a call returns the first one's outcome instead
// of running again. A registry uses an in-memory store of its own until
// SetIdempotencyStore gives it another: a durable one (package
// state/sqlite) survives a restart, a shared one serves several hosts.
//
// Keys arrive digested and scoped by the registry (one principal's key
// never meets another's); a digest says what a call does (its tool and
// arguments). The registry encodes outcomes; a store keeps them as bytes.
// Every method is safe for concurrent use, and a store shared by several
// processes keeps these promises across them.
type IdempotencyStore interface {
	// Claim claims key for a call whose tool and arguments digest to
	// digest, for at most lease (past it, a claim not completed is
	// abandoned, as by a host that died, and may be claimed again). It
	// returns:
	//   - nil when the caller now holds the claim: it runs the call and
	//     then calls Complete, whatever happens;
	//   - the record of key when a call with key has completed (its
	//     Outcome set; its Digest may differ from digest);
	//   - at once, the record of a claim held with another digest (Pending
	//     set), which the caller refuses as a conflict.
	// While a call with the same digest holds key, Claim waits until it
	// completes (returning its record), gives the claim up or its lease
	// ends (the caller then holds the claim), or ctx ends (ctx.Err()).
	Claim(ctx context.Context, key, digest string, lease time.Duration) (*IdempotencyRecord, error)
	// Complete ends the caller's claim on key: it keeps rec (Digest and
	// Outcome) for ttl, or, when rec is nil, gives the claim up and keeps
	// nothing, so that the next Claim of key claims it.
	Complete(ctx context.Context, key string, rec *IdempotencyRecord, ttl time.Duration) error
	// Get returns the record of key, claimed (Pending) or completed, or nil
	// when there is none or it expired. It neither waits nor claims.
	Get(ctx context.Context, key string) (*IdempotencyRecord, error)
}

// IdempotencyRecord is what an IdempotencyStore holds for one key.
type IdempotencyRecord struct {
	// Digest is the digest of the tool and arguments of the call that
	// claimed the key.
	Digest string
	// Pending is set while that call holds the claim and has not
	// completed; Outcome is then nil.
	Pending bool
	// Outcome is the call's outcome, encoded by the registry.
	Outcome []byte
	// Expires is when the claim's lease or the outcome's time to live
	// ends.
	Expires time.Time
}

// SetIdempotencyStore makes s keep the outcomes of keyed calls from now
// on (nil: a new in-memory store). Calls holding a claim in the store they
// started with complete there.
func (r *Registry) SetIdempotencyStore(s IdempotencyStore) {
	if s == nil {
		s = NewMemoryIdempotencyStore()
	}
	r.idem.Store(&s)
}
