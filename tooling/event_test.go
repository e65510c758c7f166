package tooling_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
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
	remove := r.Audit(rec.Observe)
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
	if rec.events[3].Code != codes.NotFound || rec.events[5].Code != codes.Panic {
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
	remove := r.Audit(func(context.Context, tooling.Event) { panic("observer bug") })
	rec := &recorder{}
	removeRec := r.Audit(rec.Observe)
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

func TestEventsNameTheToolAsRegistered(t *testing.T) {
	r := codeRegistry(t)
	rec := &recorder{}
	remove := r.Audit(rec.Observe)
	mustExec(t, r, "t__ok", `{"n":1}`)
	remove()
	if len(rec.events) != 2 || rec.events[0].Tool != "t.ok" || rec.events[1].Tool != "t.ok" {
		t.Fatalf("events %+v", rec.events)
	}
}
