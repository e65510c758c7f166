package tooling_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
	"github.com/toolexplorer/toolexplorer/tooling/tooltest"
)

func TestMemoryIdempotencyStore(t *testing.T) {
	tooltest.TestIdempotencyStore(t, func(*testing.T) idempotency.Store { return idempotency.NewMemory() })
}

// keyedTool registers demo.pay, a tool that takes idempotency keys and
// counts its runs; before returns, run blocks on it (nil: no blocking).
func keyedTool(t *testing.T, r *tooling.Registry, runs *atomic.Int64, before func()) {
	t.Helper()
	if err := r.Add(tooling.Tool{
		Name:  "demo.pay",
		Input: json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer"},"fail":{"type":"boolean"}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			n := runs.Add(1)
			if before != nil {
				before()
			}
			if callargs.Bool(c.Args, "fail") {
				return nil, errors.New("card declined")
			}
			return map[string]any{"paid": callargs.Int(c.Args, "amount"), "run": n}, nil
		},
	}); err != nil {
		t.Fatal(err)
	}
}

func TestIdempotencyReplaysTheFirstOutcome(t *testing.T) {
	r := tooling.NewRegistry()
	var runs atomic.Int64
	keyedTool(t, r, &runs, nil)
	first := mustExec(t, r, "demo.pay", `{"amount":5}`, tooling.WithIdempotencyKey("k1"))
	if first.Replayed || runs.Load() != 1 {
		t.Fatalf("first call: replayed %v, runs %d; want a run", first.Replayed, runs.Load())
	}
	// The same arguments, in another order with defaults spelled the same.
	again, err := r.Execute(t.Context(), "demo.pay", raw(` { "amount" : 5 }`), tooling.WithIdempotencyKey("k1"))
	if err != nil {
		t.Fatalf("repeat: %v", err)
	}
	if !again.Replayed || runs.Load() != 1 {
		t.Fatalf("repeat: replayed %v, runs %d; want a replay and still one run", again.Replayed, runs.Load())
	}
	if string(again.Output) != string(first.Output) || again.CallID == first.CallID || again.Status != "ok" {
		t.Fatalf("repeat = %s (call %s, status %s), want the output %s of call %s under a call id of its own", again.Output, again.CallID, again.Status, first.Output, first.CallID)
	}
	if !hasIdemDecision(again, "idempotency", first.CallID) {
		t.Fatalf("repeat's governance %+v does not name call %s", again.Governance, first.CallID)
	}
	// Another key runs again.
	if res := mustExec(t, r, "demo.pay", `{"amount":5}`, tooling.WithIdempotencyKey("k2")); res.Replayed || runs.Load() != 2 {
		t.Fatalf("another key: replayed %v, runs %d; want a run", res.Replayed, runs.Load())
	}
	// No key runs every time.
	mustExec(t, r, "demo.pay", `{"amount":5}`)
	mustExec(t, r, "demo.pay", `{"amount":5}`)
	if runs.Load() != 4 {
		t.Fatalf("runs = %d, want 4: calls without a key always run", runs.Load())
	}
}

func hasIdemDecision(res *tooling.Result, step, contains string) bool {
	for _, d := range res.Governance {
		if d.Step == step && strings.Contains(d.Detail, contains) {
			return true
		}
	}
	return false
}

func TestIdempotencyConflict(t *testing.T) {
	r := tooling.NewRegistry()
	var runs atomic.Int64
	keyedTool(t, r, &runs, nil)
	if err := r.Add(tooling.Tool{Name: "demo.refund", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true}, Run: run}); err != nil {
		t.Fatal(err)
	}
	first := mustExec(t, r, "demo.pay", `{"amount":5}`, tooling.WithIdempotencyKey("k"))
	for _, c := range []struct{ tool, args string }{{"demo.pay", `{"amount":6}`}, {"demo.refund", `{}`}} {
		res, err := r.Execute(t.Context(), c.tool, raw(c.args), tooling.WithIdempotencyKey("k"))
		if !errors.Is(err, codes.IdempotencyConflict) || res.Status != "denied" || res.Replayed {
			t.Fatalf("%s %s with a used key: %v (status %s, replayed %v), want idempotency_conflict, denied", c.tool, c.args, err, res.Status, res.Replayed)
		}
		if !strings.Contains(res.Message, first.CallID) {
			t.Errorf("conflict message %q does not name call %s", res.Message, first.CallID)
		}
	}
	if runs.Load() != 1 {
		t.Fatalf("runs = %d, want 1", runs.Load())
	}
	// Another principal's key of the same spelling is another key.
	res := mustExec(t, r, "demo.pay", `{"amount":6}`, tooling.WithIdempotencyKey("k"), tooling.WithPrincipal(tooling.Principal{Subject: "bob"}))
	if res.Replayed || runs.Load() != 2 {
		t.Fatalf("bob's key k: replayed %v, runs %d; want a run of its own", res.Replayed, runs.Load())
	}
}

// TestIdempotencyOneRunAmongConcurrentCalls: 100 calls with one key at
// once run the tool exactly once; the others wait and replay it.
func TestIdempotencyOneRunAmongConcurrentCalls(t *testing.T) {
	r := tooling.NewRegistry()
	var runs atomic.Int64
	release := make(chan struct{})
	keyedTool(t, r, &runs, func() { <-release })
	const n = 100
	start := make(chan struct{})
	results := make(chan *tooling.Result, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			<-start
			res, err := r.Execute(t.Context(), "demo.pay", raw(`{"amount":7}`), tooling.WithIdempotencyKey("once"))
			if err != nil {
				t.Errorf("call: %v", err)
			}
			results <- res
		})
	}
	close(start)
	// Hold the run until it has started, so that the other calls find it
	// running or done; then let it finish.
	for runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	close(results)
	replayed := 0
	var out string
	for res := range results {
		if res.Replayed {
			replayed++
		}
		if out == "" {
			out = string(res.Output)
		} else if string(res.Output) != out {
			t.Fatalf("outputs differ: %s and %s", out, res.Output)
		}
	}
	if runs.Load() != 1 || replayed != n-1 {
		t.Fatalf("runs %d, replayed %d; want 1 run and %d replays", runs.Load(), replayed, n-1)
	}
}

// waitingStore tells when a second Claim starts.
type waitingStore struct {
	idempotency.Store
	claims  atomic.Int64
	waiting chan struct{}
}

func (s *waitingStore) Claim(ctx context.Context, key, digest string, lease time.Duration) (*idempotency.Record, error) {
	if s.claims.Add(1) == 2 {
		close(s.waiting)
	}
	return s.Store.Claim(ctx, key, digest, lease)
}

// TestIdempotencyRepeatWaitsForTheRunningCall: a repeat made while the
// first call runs waits for it and replays its outcome; a repeat with other
// arguments is refused at once; a waiting repeat whose caller gives up is
// canceled, and nothing runs.
func TestIdempotencyRepeatWaitsForTheRunningCall(t *testing.T) {
	r := tooling.NewRegistry()
	st := &waitingStore{Store: idempotency.NewMemory(), waiting: make(chan struct{})}
	r.SetIdempotencyStore(st)
	var runs atomic.Int64
	running, release := make(chan struct{}), make(chan struct{})
	keyedTool(t, r, &runs, func() { close(running); <-release })
	firstDone := make(chan *tooling.Result)
	go func() {
		res, _ := r.Execute(t.Context(), "demo.pay", raw(`{"amount":1}`), tooling.WithIdempotencyKey("k"))
		firstDone <- res
	}()
	<-running
	repeatDone := make(chan *tooling.Result)
	go func() {
		res, _ := r.Execute(t.Context(), "demo.pay", raw(`{"amount":1}`), tooling.WithIdempotencyKey("k"))
		repeatDone <- res
	}()
	select {
	case <-st.waiting:
	case res := <-repeatDone:
		t.Fatalf("the repeat returned while the first call ran: %s %s (replayed %v)", res.Code, res.Message, res.Replayed)
	}
	// While the first runs: other arguments conflict at once, a canceled
	// wait ends canceled.
	if _, err := r.Execute(t.Context(), "demo.pay", raw(`{"amount":2}`), tooling.WithIdempotencyKey("k")); !errors.Is(err, codes.IdempotencyConflict) {
		t.Fatalf("other arguments while the first runs: %v, want idempotency_conflict", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if res, err := r.Execute(ctx, "demo.pay", raw(`{"amount":1}`), tooling.WithIdempotencyKey("k")); !errors.Is(err, codes.Canceled) || res.Status != "denied" {
		t.Fatalf("a canceled repeat: %v (%s), want canceled, denied", err, res.Status)
	}
	close(release)
	first, repeat := <-firstDone, <-repeatDone
	if first.Replayed || !repeat.Replayed || string(first.Output) != string(repeat.Output) || runs.Load() != 1 {
		t.Fatalf("first (replayed %v) %s, repeat (replayed %v) %s, runs %d; want one run, replayed once", first.Replayed, first.Output, repeat.Replayed, repeat.Output, runs.Load())
	}
}

// TestIdempotencyKeepsToolErrorsNotRefusals: a tool error is kept and
// replayed; a refusal after the key was claimed (here by middleware) is
// not, so the repeat runs.
func TestIdempotencyKeepsToolErrorsNotRefusals(t *testing.T) {
	r := tooling.NewRegistry()
	var runs atomic.Int64
	keyedTool(t, r, &runs, nil)
	var refuse atomic.Bool
	refuse.Store(true)
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if refuse.Swap(false) {
				return nil, codes.RateLimited
			}
			return next(ctx, c)
		}
	})
	if _, err := r.Execute(t.Context(), "demo.pay", raw(`{"amount":3}`), tooling.WithIdempotencyKey("r")); !errors.Is(err, codes.RateLimited) {
		t.Fatalf("first call: %v, want rate_limited from the middleware", err)
	}
	res := mustExec(t, r, "demo.pay", `{"amount":3}`, tooling.WithIdempotencyKey("r"))
	if res.Replayed || runs.Load() != 1 {
		t.Fatalf("after a refusal: replayed %v, runs %d; want a run (refusals are not kept)", res.Replayed, runs.Load())
	}

	for i := range 2 {
		res, err := r.Execute(t.Context(), "demo.pay", raw(`{"fail":true}`), tooling.WithIdempotencyKey("e"))
		if !errors.Is(err, codes.ToolError) || res.Status != "error" || res.Replayed != (i == 1) || !strings.Contains(res.Message, "card declined") {
			t.Fatalf("call %d with a failing key: %v (status %s, replayed %v), want tool_error, error, replayed on the repeat", i, err, res.Status, res.Replayed)
		}
	}
	if runs.Load() != 2 {
		t.Fatalf("runs = %d, want 2: the tool error is replayed", runs.Load())
	}
}

// TestIdempotencyKeyDigestedInEvents: audit hooks see a digest of the key,
// never the key, and the replay.
func TestIdempotencyKeyDigestedInEvents(t *testing.T) {
	r := tooling.NewRegistry()
	var runs atomic.Int64
	keyedTool(t, r, &runs, nil)
	var mu sync.Mutex
	var evs []tooling.Event
	r.Audit(func(_ context.Context, ev tooling.Event) { mu.Lock(); evs = append(evs, ev); mu.Unlock() })
	const key = "secret-key-123"
	mustExec(t, r, "demo.pay", `{}`, tooling.WithIdempotencyKey(key))
	mustExec(t, r, "demo.pay", `{}`, tooling.WithIdempotencyKey(key))
	mustExec(t, r, "demo.pay", `{}`)
	mu.Lock()
	defer mu.Unlock()
	if len(evs) != 6 {
		t.Fatalf("%d events, want 6", len(evs))
	}
	sum := evs[0].IdempotencySHA256
	if len(sum) != 64 || strings.Contains(sum, key) {
		t.Fatalf("key digest %q, want a hex sha256 that is not the key", sum)
	}
	for i, ev := range evs[:4] {
		if ev.IdempotencySHA256 != sum {
			t.Fatalf("event %d digest %q, want %q", i, ev.IdempotencySHA256, sum)
		}
	}
	if evs[1].Replayed || !evs[3].Replayed || evs[5].IdempotencySHA256 != "" {
		t.Fatalf("events %+v: want the second call's end replayed, and no digest without a key", evs)
	}
}

// TestIdempotencyByteCap: an outcome over the byte cap is kept without its
// output; the first call says so, and the repeat is refused, naming the
// call that ran and how it ended: it neither runs again nor passes for a
// success without the output.
func TestIdempotencyByteCap(t *testing.T) {
	r := tooling.NewRegistry()
	if _, err := r.Configure(tooling.Settings{IdempotencyMaxBytes: 512}); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int64
	if err := r.Add(tooling.Tool{
		Name:  "demo.export",
		Input: json.RawMessage(`{"type":"object","properties":{"size":{"type":"integer"}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			runs.Add(1)
			var a struct{ Size int }
			if err := c.Decode(&a); err != nil {
				return nil, err
			}
			return strings.Repeat("x", a.Size), nil
		},
	}); err != nil {
		t.Fatal(err)
	}
	first := mustExec(t, r, "demo.export", `{"size":1000}`, tooling.WithIdempotencyKey("big"))
	if len(first.Output) < 1000 || !hasIdemDecision(first, "idempotency", "repeat with this key is refused") {
		t.Fatalf("first call over the cap: output of %d bytes, governance %+v; want its output and a word that it was not kept", len(first.Output), first.Governance)
	}
	res, err := r.Execute(t.Context(), "demo.export", raw(`{"size":1000}`), tooling.WithIdempotencyKey("big"))
	if res.Code != codes.IdempotencyConflict || !errors.Is(err, codes.IdempotencyConflict) || res.Status != "denied" || res.Replayed || res.Output != nil || runs.Load() != 1 {
		t.Fatalf("repeat of an outcome over the cap: code %q (%v), status %s, replayed %v, output %s, runs %d; want idempotency_conflict, nothing run",
			res.Code, err, res.Status, res.Replayed, res.Output, runs.Load())
	}
	for _, part := range []string{first.CallID, "ran", ", ok)", "max_bytes", "did not run again"} {
		if !strings.Contains(res.Message, part) {
			t.Errorf("message %q: want %q in it", res.Message, part)
		}
	}
	// A small outcome under the same cap is still replayed.
	small := mustExec(t, r, "demo.export", `{"size":10}`, tooling.WithIdempotencyKey("small"))
	if again := mustExec(t, r, "demo.export", `{"size":10}`, tooling.WithIdempotencyKey("small")); !again.Replayed || string(again.Output) != string(small.Output) || runs.Load() != 2 {
		t.Fatalf("a small outcome: %+v, %d runs; want it replayed", again, runs.Load())
	}
}
