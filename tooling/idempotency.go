package tooling

import "github.com/toolexplorer/toolexplorer/tooling/idempotency"

// SetIdempotencyStore makes s keep the outcomes of keyed calls from now
// on (nil: a new in-memory store). Calls holding a claim in the store they
// started with complete there.
func (r *Registry) SetIdempotencyStore(s idempotency.Store) {
	if s == nil {
		s = idempotency.NewMemory()
	}
	r.idem.Store(&s)
}
