package idempotency

import (
	"context"
	"time"
)

// Store keeps the outcomes of the calls made with an idempotency
// key (tooling.WithIdempotencyKey) to a tool that takes keys (tooling.Meta.IdempotencyKeys),
// so that a repeat of such a call returns the first one's outcome instead
// of running again. A registry uses an in-memory store of its own until
// tooling.Registry.SetIdempotencyStore gives it another: a durable one (package
// state/sqlite) survives a restart, a shared one serves several hosts.
//
// Keys arrive digested and scoped by the registry (one principal's key
// never meets another's); a digest says what a call does (its tool and
// arguments). The registry encodes outcomes; a store keeps them as bytes.
// Every method is safe for concurrent use, and a store shared by several
// processes keeps these promises across them.
type Store interface {
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
	Claim(ctx context.Context, key, digest string, lease time.Duration) (*Record, error)
	// Complete ends the caller's claim on key: it keeps rec (Digest and
	// Outcome) for ttl, or, when rec is nil, gives the claim up and keeps
	// nothing, so that the next Claim of key claims it.
	Complete(ctx context.Context, key string, rec *Record, ttl time.Duration) error
	// Get returns the record of key, claimed (Pending) or completed, or nil
	// when there is none or it expired. It neither waits nor claims.
	Get(ctx context.Context, key string) (*Record, error)
}

// Record is what a Store holds for one key.
type Record struct {
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
