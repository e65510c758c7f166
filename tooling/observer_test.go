package tooling_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

type recorder struct {
	mu     sync.Mutex
	events []tooling.Event
}

func (r *recorder) Observe(_ context.Context, ev tooling.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

func TestObserverSeesBeginAndEndWithDigestsOnly(t *testing.T) {
	r := codeRegistry(t)
	rec := &recorder{}
	remove := r.Observe(rec.Observe)
	args := `{"n":42}`
	mustExec(t, r, "t.ok", args, tooling.WithOrigin(tooling.OriginUI))
	_, _ = r.Execute(context.Background(), "t.nope", nil)
	_, _ = r.Execute(context.Background(), "t.panic", nil)
	remove()

	if len(rec.events) != 6 {
		t.Fatalf("%d events, want 6: %+v", len(rec.events), rec.events)
	}
	begin, end := rec.events[0], rec.events[1]
	sum := sha256.Sum256([]byte(args))
	if begin.End || !end.End || begin.CallID != end.CallID || begin.CallID == "" {
		t.Fatalf("begin %+v end %+v", begin, end)
	}
	if begin.Tool != "t.ok" || begin.Origin != tooling.OriginUI || begin.ArgsSHA256 != hex.EncodeToString(sum[:]) || begin.ArgsSize != len(args) {
		t.Fatalf("begin %+v", begin)
	}
	out := sha256.Sum256([]byte(`{"n":42}`))
	if end.Status != "ok" || end.OutputSHA256 != hex.EncodeToString(out[:]) || end.OutputSize != 8 {
		t.Fatalf("end %+v", end)
	}
	if rec.events[3].Code != tooling.CodeNotFound || rec.events[5].Code != tooling.CodePanic {
		t.Fatalf("codes %q %q", rec.events[3].Code, rec.events[5].Code)
	}
	// Removed observers hear nothing more.
	mustExec(t, r, "t.ok", args)
	if len(rec.events) != 6 {
		t.Fatal("removed observer still observes")
	}
}

func TestPanickingObserverDoesNotBreakCalls(t *testing.T) {
	r := codeRegistry(t)
	remove := r.Observe(func(context.Context, tooling.Event) { panic("observer bug") })
	rec := &recorder{}
	removeRec := r.Observe(rec.Observe)
	for i := 0; i < 5; i++ {
		mustExec(t, r, "t.ok", `{"n":1}`)
	}
	remove()
	removeRec()
	if got := r.Stats().EventsPanicked; got != 10 {
		t.Errorf("panicked %d, want 10", got)
	}
	if len(rec.events) != 10 {
		t.Errorf("healthy observer got %d events, want 10", len(rec.events))
	}
}

func TestBlockingObserverDoesNotStallCalls(t *testing.T) {
	r := codeRegistry(t)
	release := make(chan struct{})
	var once sync.Once
	unblock := func() { once.Do(func() { close(release) }) }
	// The observer blocks until the calls are done, or the hang guard: calls that waited for it
	// could only end once the guard has released it, which the test then sees (no timing is
	// measured, so a loaded machine does not make calls look stalled).
	guard := time.AfterFunc(2*time.Minute, unblock)
	defer guard.Stop()
	remove := r.Observe(func(context.Context, tooling.Event) { <-release })
	calls := 4096 // as many calls as the queue holds events: twice as many events as it holds
	for i := 0; i < calls; i++ {
		mustExec(t, r, "t.ok", `{"n":1}`)
	}
	select {
	case <-release:
		t.Fatal("calls stalled behind a blocked observer: they ended only after the hang guard released it")
	default:
	}
	if d := r.Stats().EventsDropped; d < int64(calls)/2 {
		t.Errorf("dropped %d, want about %d", d, calls)
	}
	unblock()
	remove()
}

func TestEventsNameTheToolAsRegistered(t *testing.T) {
	r := codeRegistry(t)
	rec := &recorder{}
	remove := r.Observe(rec.Observe)
	mustExec(t, r, "t__ok", `{"n":1}`)
	remove()
	if len(rec.events) != 2 || rec.events[0].Tool != "t.ok" || rec.events[1].Tool != "t.ok" {
		t.Fatalf("events %+v", rec.events)
	}
}
