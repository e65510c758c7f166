package tooling

import (
	"time"

	"github.com/toolexplorer/toolexplorer/sandbox"
)

// GovernanceStats is a live picture of governance, cheap enough to read ten
// times a second: the global slots, every resource lock held or waited for,
// the main thread, every rate bucket, and the registry's counters (Stats).
//
// The snapshots of slots, locks, main thread and buckets are those of the
// primitives of package sandbox, as they are.
type GovernanceStats struct {
	Time       time.Time               `json:"time"`
	Slots      sandbox.SlotStats       `json:"slots"`
	Locks      []sandbox.LockStats     `json:"locks"`
	MainThread sandbox.MainThreadStats `json:"main_thread"`
	Buckets    []sandbox.BucketStats   `json:"buckets"`
	Stats
}

// Governance returns the live governance picture now.
func (r *Registry) Governance() GovernanceStats {
	now := time.Now()
	return GovernanceStats{
		Time:       now,
		Slots:      r.slots.Stats(),
		Locks:      r.locks.Stats(),
		MainThread: r.mainThread().Stats(),
		Buckets:    r.buckets.Stats(now),
		Stats:      r.Stats(),
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
