package tooling

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// drain, which Main runs on its way out, waits for a slow observer to see
// every event queued for it, and gives up on a stuck one after its limit.
func TestDrainWaitsForSlowObserversWithinLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewRegistry()
		r.Register(Tool{Name: "t.ok", Run: func(context.Context, Call) (any, error) { return "ok", nil }})
		var seen atomic.Int64
		remove := r.Observe(func(context.Context, Event) {
			time.Sleep(100 * time.Millisecond) // slow: the calls end long before it has seen them
			seen.Add(1)
		})
		for range 10 {
			if _, err := r.Execute(context.Background(), "t.ok", nil); err != nil {
				t.Fatal(err)
			}
		}
		if !r.obs.drain(drainLimit) {
			t.Fatal("drain gave up on a slow observer")
		}
		if n := seen.Load(); n != 20 {
			t.Fatalf("the observer saw %d of 20 events", n)
		}
		// After drain, calls reach no observer, and remove does not block.
		if _, err := r.Execute(context.Background(), "t.ok", nil); err != nil {
			t.Fatal(err)
		}
		remove()
		if n := seen.Load(); n != 20 {
			t.Fatalf("the observer saw %d events, 20 before drain", n)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		r := NewRegistry()
		r.Register(Tool{Name: "t.ok", Run: func(context.Context, Call) (any, error) { return "ok", nil }})
		stuck := make(chan struct{})
		r.Observe(func(context.Context, Event) { <-stuck })
		if _, err := r.Execute(context.Background(), "t.ok", nil); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if r.obs.drain(drainLimit) {
			t.Fatal("drain says a stuck observer finished")
		}
		if waited := time.Since(start); waited != drainLimit {
			t.Fatalf("drain waited %v for a stuck observer, want %v", waited, drainLimit)
		}
		close(stuck)
	})
}
