package tooling

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"
)

// Event is what observers see of a call: who, what, how it ended, and
// digests and sizes of the arguments and output, never their content.
type Event struct {
	End       bool // false for the event a call begins with, true for its end
	Time      time.Time
	CallID    string
	Tool      string
	Version   string // the tool's Meta.Version; "" when unversioned or not found
	Origin    Origin
	Principal Principal
	// IdempotencySHA256 is the hex SHA-256 of the call's idempotency key
	// (WithIdempotencyKey), never the key; "" when it has none.
	IdempotencySHA256 string
	ArgsSHA256        string // hex; of the arguments as sent
	ArgsSize          int
	OutputSHA256      string // end only, when there is output
	OutputSize        int
	Status            string // end only: as Result.Status
	Code              Code   // end only
	Wait, Run         time.Duration
	// State is set on the event of a change of a tool's state (SetState,
	// or Configure), to its new state: such an event is no call (no
	// CallID; End set), its Principal is who changed it, and Detail holds
	// its "reason" and "replacement".
	State State
	// Replayed: end only, as Result.Replayed.
	Replayed bool
	// Detail is what the tool said of the call for the audit trail
	// (Call.SetDetail), end only; nil when it said nothing. Never content.
	Detail map[string]string
	// Governance is the call's decisions (Result.Governance), end only:
	// the policy that allowed it, consent, rate, deadline, locks, the
	// confinement profile's hash (step "confine", "profile HASH"), and what
	// the tool and middleware decided (a retry, a shadow call).
	Governance []Decision
}

// observerQueue is how many events an observer may lag behind (4096)
// before further events to it are dropped.
const observerQueue = 4096

type observers struct {
	mu       sync.Mutex
	list     atomic.Pointer[[]*observerRunner]
	dropped  atomic.Int64
	panicked atomic.Int64
}

type observerRunner struct {
	o      func(context.Context, Event)
	mu     sync.RWMutex
	closed bool
	ch     chan observed
	done   chan struct{}
}

// observed is an event on its way to an observer, with its call's context.
type observed struct {
	ctx context.Context
	ev  Event
}

// Observe adds the observer o; every call that starts from now on sends it
// a begin and an end event (a call already running when o is added sends it
// neither). remove stops it after it has seen every event sent before
// remove, so it waits for o to finish them: an observer that blocks forever
// blocks remove too.
//
// Each observer has its own goroutine and queue: one that blocks only
// delays itself (its queue fills, then its events are dropped and counted
// in Stats), and one that panics loses that event only. An observer may lag
// 4096 events behind before its events are dropped. ctx holds the values of
// the call's context (a trace span, a request id), so that an observer can
// join the caller's trace; it is never canceled, since events arrive after
// the fact.
func (r *Registry) Observe(o func(ctx context.Context, ev Event)) (remove func()) {
	run := &observerRunner{o: o, ch: make(chan observed, observerQueue), done: make(chan struct{})}
	go run.loop(&r.obs)
	r.obs.mu.Lock()
	old := r.obs.list.Load()
	var next []*observerRunner
	if old != nil {
		next = append(next, *old...)
	}
	next = append(next, run)
	r.obs.list.Store(&next)
	r.obs.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.obs.mu.Lock()
			cur := *r.obs.list.Load()
			kept := make([]*observerRunner, 0, len(cur))
			for _, x := range cur {
				if x != run {
					kept = append(kept, x)
				}
			}
			r.obs.list.Store(&kept)
			r.obs.mu.Unlock()
			run.close()
			<-run.done
		})
	}
}

// close stops run taking events; those queued are still delivered.
func (run *observerRunner) close() {
	run.mu.Lock()
	if !run.closed {
		run.closed = true
		close(run.ch)
	}
	run.mu.Unlock()
}

// drainLimit bounds how long Main waits for observers on its way out.
const drainLimit = 3 * time.Second

// drain removes every observer and waits until each has seen the events
// queued for it, or until limit has passed: an observer stuck on an event
// is left behind. Events sent after drain reach no observer. It reports
// whether every observer finished.
func (o *observers) drain(limit time.Duration) bool {
	o.mu.Lock()
	list := o.snapshot()
	o.list.Store(&[]*observerRunner{})
	o.mu.Unlock()
	for _, run := range list {
		run.close()
	}
	t := time.NewTimer(limit)
	defer t.Stop()
	for _, run := range list {
		select {
		case <-run.done:
		case <-t.C:
			return false
		}
	}
	return true
}

func (run *observerRunner) loop(obs *observers) {
	defer close(run.done)
	for x := range run.ch {
		run.deliver(x, obs)
	}
}

func (run *observerRunner) deliver(x observed, obs *observers) {
	defer func() {
		if recover() != nil {
			obs.panicked.Add(1)
		}
	}()
	run.o(x.ctx, x.ev)
}

// snapshot returns the observers now; nil when there are none.
func (o *observers) snapshot() []*observerRunner {
	l := o.list.Load()
	if l == nil {
		return nil
	}
	return *l
}

// emit sends ev to each observer of list that has not been removed,
// dropping it for those whose queue is full.
func emit(ctx context.Context, list []*observerRunner, o *observers, ev Event) {
	for _, run := range list {
		run.mu.RLock()
		if !run.closed {
			select {
			case run.ch <- observed{ctx, ev}:
			default:
				o.dropped.Add(1)
			}
		}
		run.mu.RUnlock()
	}
}

func digest(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
