package tooling

import (
	"time"

	"github.com/toolexplorer/toolexplorer/sandbox"
)

// Stats is a live picture of a registry's governance, cheap enough to read
// ten times a second: the global slots, every resource lock held or waited
// for, the main thread, every rate bucket, and the counters of the calls
// and of every tool called so far.
//
// The snapshots of slots, locks, main thread and buckets are those of the
// primitives of package sandbox, as they are.
type Stats struct {
	Time       time.Time               `json:"time"`
	Slots      sandbox.SlotStats       `json:"slots"`
	Locks      []sandbox.LockStats     `json:"locks"`
	MainThread sandbox.MainThreadStats `json:"main_thread"`
	Buckets    []sandbox.BucketStats   `json:"buckets"`
	Tools      []ToolStats             `json:"tools"`     // every tool called so far, sorted by name
	InFlight   int64                   `json:"in_flight"` // calls between begin and end
	Abandoned  int64                   `json:"abandoned"` // tool goroutines still running after their call returned timeout or canceled
	// EventsPanicked counts events given to an Audit hook that panicked.
	EventsPanicked int64 `json:"events_panicked"`
}

// Stats returns the live picture now.
func (r *Registry) Stats() Stats {
	now := time.Now()
	return Stats{
		Time:           now,
		Slots:          r.slots.Stats(),
		Locks:          r.locks.Stats(),
		MainThread:     r.mainThread().Stats(),
		Buckets:        r.buckets.Stats(now),
		Tools:          r.toolStats(),
		InFlight:       r.inFlight.Load(),
		Abandoned:      r.abandoned.Load(),
		EventsPanicked: r.audit.panicked.Load(),
	}
}

// OnMainThread reports whether the calling goroutine runs on the
// main-thread scheduler's loop: true inside the Run of a MainThread tool.
func (c Call) OnMainThread() bool {
	if c.reg != nil {
		return c.reg.mainThread().IsMainThread()
	}
	return sandbox.IsMainThread()
}
