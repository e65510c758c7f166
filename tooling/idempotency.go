package tooling

import "github.com/toolexplorer/toolexplorer/tooling/idempotency"

// CodeIdempotencyConflict: the call's idempotency key was used before (or
// is in use now) by a call of another tool or with other arguments, or by
// a call with the same ones whose output was too large to keep
// (Settings.IdempotencyMaxBytes); the message names that call. Nothing ran.
const CodeIdempotencyConflict Code = "idempotency_conflict"

// SetIdempotencyStore makes s keep the outcomes of keyed calls from now
// on (nil: a new in-memory store). Calls holding a claim in the store they
// started with complete there.
func (r *Registry) SetIdempotencyStore(s idempotency.Store) {
	if s == nil {
		s = idempotency.NewMemory()
	}
	r.idem.Store(&s)
}
