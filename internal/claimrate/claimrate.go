package claimrate

import (
	"context"
	"sync"
	"time"
)

// Note is what a keyed call's claim decided of its tool's shared rate.
type Note struct {
	// Registry and Tool are the call's: the registry (a
	// *tooling.Registry) and the tool's name.
	Registry any
	Tool     string

	mu        sync.Mutex
	decided   bool
	allowed   bool
	remaining int64
	retry     time.Duration
}

type noteKey struct{}

// With returns ctx carrying n.
func With(ctx context.Context, n *Note) context.Context { return context.WithValue(ctx, noteKey{}, n) }

// From returns the note ctx carries, nil when none.
func From(ctx context.Context) *Note {
	n, _ := ctx.Value(noteKey{}).(*Note)
	return n
}

// Decide notes that the claim took a token (allowed, remaining left) or
// found none (retry: how long until one).
func (n *Note) Decide(allowed bool, remaining int64, retry time.Duration) {
	n.mu.Lock()
	n.decided, n.allowed, n.remaining, n.retry = true, allowed, remaining, retry
	n.mu.Unlock()
}

// Take returns what the claim decided, once: ok is false when it decided
// nothing, or it was taken already.
func (n *Note) Take() (allowed bool, remaining int64, retry time.Duration, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.decided {
		return false, 0, 0, false
	}
	n.decided = false
	return n.allowed, n.remaining, n.retry, true
}
