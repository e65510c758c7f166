package tooling_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// An audit hook sees the begin and end of every call, refusals included,
// before Execute returns, and never loses one, however many calls run at
// once.
func TestAuditSeesEveryCall(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(
		tooling.Tool{Name: "t.ok", Input: raw(`{"type":"object","properties":{"n":{"type":"integer"}}}`),
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run:  func(context.Context, tooling.Call) (any, error) { return "fine", nil }},
		tooling.Tool{Name: "t.write", Meta: tooling.Meta{Concurrency: tooling.Exclusive, Effects: tooling.EffectWrite},
			Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }},
		tooling.Tool{Name: "t.app", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Origins: []tooling.Origin{tooling.OriginApp}},
			Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }},
	)
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if c.Args["n"] != nil && fmt.Sprint(c.Args["n"]) == "13" {
				return nil, &tooling.Error{Code: "budget_exceeded", Message: "no more"}
			}
			return next(ctx, c)
		}
	})
	var mu sync.Mutex
	var got []string
	remove := r.Audit(func(_ context.Context, ev tooling.Event) {
		mu.Lock()
		defer mu.Unlock()
		if ev.End {
			got = append(got, fmt.Sprintf("end %s %s %s %s", ev.CallID, ev.Tool, ev.Code, ev.Principal))
		} else {
			got = append(got, fmt.Sprintf("begin %s %s", ev.CallID, ev.Tool))
		}
	})
	alice := tooling.WithPrincipal(tooling.Principal{Subject: "alice"})
	for i, c := range []struct {
		tool, args string
		opts       []tooling.Option
		code       codes.Code
	}{
		{"t.ok", `{"n":1}`, nil, codes.OK},
		{"t.missing", ``, nil, codes.NotFound},
		{"t.ok", `{"n":"x"}`, nil, codes.ValidationError},
		{"t.write", ``, nil, codes.ConsentRequired},
		{"t.app", ``, []tooling.Option{tooling.WithOrigin(tooling.OriginLLM)}, codes.OriginDenied},
		{"t.ok", `{"n":13}`, nil, "budget_exceeded"},
	} {
		id := fmt.Sprintf("c%d", i)
		res, _ := r.Execute(context.Background(), c.tool, raw(c.args), append(c.opts, alice, tooling.WithCallID(id))...)
		if res.Code != c.code {
			t.Fatalf("%s: code %q, want %q", c.tool, res.Code, c.code)
		}
		mu.Lock()
		n := len(got)
		last := got[n-1]
		first := got[n-2]
		mu.Unlock()
		// Synchronous: both events are in before Execute returns.
		if first != "begin "+id+" "+res.Tool || last != fmt.Sprintf("end %s %s %s alice", id, res.Tool, c.code) {
			t.Errorf("%s: events %q, %q", c.tool, first, last)
		}
	}
	remove()
	mu.Lock()
	got = nil
	mu.Unlock()
	const calls = 200
	var wg sync.WaitGroup
	remove = r.Audit(func(context.Context, tooling.Event) { mu.Lock(); got = append(got, ""); mu.Unlock() })
	defer remove()
	for range calls {
		wg.Go(func() { _, _ = r.Execute(context.Background(), "t.ok", nil) })
	}
	wg.Wait()
	if len(got) != 2*calls {
		t.Fatalf("%d events for %d calls, want %d: an audit hook never drops", len(got), calls, 2*calls)
	}
}

// A hook that panics loses nothing of the call, and is counted.
func TestAuditPanicIsCounted(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "fine", nil }})
	var ends int
	r.Audit(func(context.Context, tooling.Event) { panic("broken hook") })
	r.Audit(func(_ context.Context, ev tooling.Event) {
		if ev.End {
			ends++
		}
	})
	res, err := r.Execute(context.Background(), "t.ok", nil)
	if err != nil || string(res.Output) != `"fine"` || ends != 1 {
		t.Fatalf("%v %s ends %d", err, res.Output, ends)
	}
	if n := r.Stats().EventsPanicked; n != 2 {
		t.Fatalf("EventsPanicked %d, want 2 (begin and end)", n)
	}
}

// A middleware's Decide and SetDetail reach the call's Result and its end
// Event, beside the tool's own.
func TestMiddlewareNotes(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			c.Decide("tool", "said so")
			c.SetDetail("backend", "tool's")
			return "fine", nil
		}})
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			c.Decide("budget", "3 of 10 calls left")
			c.SetDetail("budget", "tenant acme")
			c.SetDetail("backend", "middleware's")
			if c.Principal.Subject == "mallory" {
				return nil, errors.New("not today")
			}
			return next(ctx, c)
		}
	})
	var end tooling.Event
	r.Audit(func(_ context.Context, ev tooling.Event) {
		if ev.End {
			end = ev
		}
	})
	res, _ := r.Execute(context.Background(), "t.ok", nil)
	if !hasDecision(res, "budget", "3 of 10 calls left") || !hasDecision(res, "tool", "said so") {
		t.Errorf("governance %+v", res.Governance)
	}
	if end.Detail["budget"] != "tenant acme" || end.Detail["backend"] != "tool's" {
		t.Errorf("detail %v", end.Detail)
	}
	res, _ = r.Execute(context.Background(), "t.ok", nil, tooling.WithPrincipal(tooling.Principal{Subject: "mallory"}))
	if res.Code != codes.Refused || !hasDecision(res, "budget", "3 of 10 calls left") || end.Detail["budget"] != "tenant acme" {
		t.Errorf("refused by middleware: %q %+v %v", res.Code, res.Governance, end.Detail)
	}
	if strings.Contains(fmt.Sprint(res.Governance), "said so") {
		t.Errorf("the tool did not run, yet: %+v", res.Governance)
	}
}

// The audit hook learns the tool's version, the digest of the idempotency
// key (never the key) and, at the end, the call's governance decisions.
func TestAuditCarriesVersionIdempotencyAndGovernance(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.v", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Version: "1.2.3"},
		Run: func(context.Context, tooling.Call) (any, error) { return "fine", nil }})
	var mu sync.Mutex
	var got []tooling.Event
	defer r.Audit(func(_ context.Context, ev tooling.Event) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	})()
	if _, err := r.Execute(context.Background(), "t.v", nil, tooling.WithIdempotencyKey("order-7")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background(), "t.v", nil); err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("got %d events, want 4", len(got))
	}
	want := sha256Hex("order-7")
	for i, ev := range got[:2] {
		if ev.Version != "1.2.3" || ev.IdempotencySHA256 != want {
			t.Errorf("event %d: version %q idempotency %q, want 1.2.3 and %s", i, ev.Version, ev.IdempotencySHA256, want)
		}
	}
	if got[2].IdempotencySHA256 != "" {
		t.Errorf("a call without a key has idempotency digest %q", got[2].IdempotencySHA256)
	}
	if got[0].Governance != nil || len(got[1].Governance) == 0 || got[1].Governance[0].Step == "" {
		t.Errorf("governance: begin %v, end %v; want none at the begin and the decisions at the end", got[0].Governance, got[1].Governance)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
