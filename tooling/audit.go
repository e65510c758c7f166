package tooling

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/internal/toolstates"
)

// audits are the registry's audit hooks (Audit).
type audits struct {
	mu       sync.Mutex
	list     atomic.Pointer[[]*auditHook]
	panicked atomic.Int64
}

type auditHook struct{ f func(context.Context, Event) }

// Audit adds f, which sees the begin and the end Event of every call that
// starts from now on, refusals included (not found, disabled, origin,
// policy, validation, consent, middleware), synchronously: in the caller's
// goroutine, the begin before anything is decided and the end before
// Execute returns. Nothing is dropped, which is what an audit trail, a
// budget or a metric that must not lose a call needs; what may lag (a
// slow sink) queues events itself and returns at once. f gets the call's ctx without its
// cancellation. Every call waits for f, so f must be quick and must not
// call the registry; a panic in f is recovered and counted
// (in Stats' EventsPanicked), and the call goes on. remove stops f for calls
// that start afterwards.
func (r *Registry) Audit(f func(ctx context.Context, ev Event)) (remove func()) {
	return r.audit.add(f)
}

// add adds f to the hooks and returns the function that removes it.
func (a *audits) add(f func(ctx context.Context, ev Event)) (remove func()) {
	h := &auditHook{f}
	a.mu.Lock()
	var next []*auditHook
	if old := a.list.Load(); old != nil {
		next = append(next, *old...)
	}
	next = append(next, h)
	a.list.Store(&next)
	a.mu.Unlock()
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		cur := *a.list.Load()
		kept := make([]*auditHook, 0, len(cur))
		for _, x := range cur {
			if x != h {
				kept = append(kept, x)
			}
		}
		a.list.Store(&kept)
	}
}

func init() {
	toolstates.Follow = func(reg any, f func(context.Context)) func() {
		return reg.(*Registry).states.add(func(ctx context.Context, _ Event) { f(ctx) })
	}
}

// snapshot is the hooks a call reports to, nil for none.
func (a *audits) snapshot() []*auditHook {
	if l := a.list.Load(); l != nil {
		return *l
	}
	return nil
}

// report gives ev to every hook of list, counting their panics in
// panicked.
func report(ctx context.Context, list []*auditHook, ev *Event, panicked *atomic.Int64) {
	for _, h := range list {
		reportOne(ctx, h, ev, panicked)
	}
}

func reportOne(ctx context.Context, h *auditHook, ev *Event, panicked *atomic.Int64) {
	defer func() {
		if recover() != nil {
			panicked.Add(1)
		}
	}()
	h.f(ctx, *ev)
}
