package tooling_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// denyBob is an Authorizer that refuses bob everything.
type denyBob struct{}

func (denyBob) Visible(tooling.Principal, tooling.Origin, *tooling.Tool) bool { return true }
func (denyBob) Allow(_ context.Context, c *tooling.Call) error {
	if c.Principal.Subject == "bob" {
		return errors.New("rule no-bob")
	}
	return nil
}

// explainRegistry has a tool for every refusal of the preflight.
func explainRegistry(t *testing.T, runs *atomic.Int64) *tooling.Registry {
	r := tooling.NewRegistry()
	count := func(context.Context, tooling.Call) (any, error) { runs.Add(1); return "ran", nil }
	r.Register(
		tooling.Tool{Name: "x.ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: count,
			Input: raw(`{"type":"object","properties":{"n":{"type":"integer"}},"additionalProperties":false}`)},
		tooling.Tool{Name: "x.paused", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: count},
		tooling.Tool{Name: "x.off", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: count},
		tooling.Tool{Name: "x.llm", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Origins: []tooling.Origin{tooling.OriginLLM}}, Run: count},
		tooling.Tool{Name: "x.down", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: count,
			Available: func(context.Context, tooling.Call) error { return errors.New("the backend is down") }},
		tooling.Tool{Name: "x.write", Meta: tooling.Meta{Effects: tooling.EffectWrite}, Run: count},
		tooling.Tool{Name: "x.rated", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Rate: tooling.Rate{PerMinute: 0.001, Burst: 1}}, Run: count},
		tooling.Tool{Name: "x.keyed", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, IdempotencyKeys: true}, Run: count,
			Input: raw(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
	)
	if _, err := r.Configure(tooling.Settings{Tools: map[string]tooling.Override{"x.off": {Disabled: true}}}); err != nil {
		t.Fatal(err)
	}
	if err := r.SetState(t.Context(), "x.paused", tooling.StatePaused, "upgrade", ""); err != nil {
		t.Fatal(err)
	}
	r.SetAuthorizer(denyBob{})
	return r
}

// TestExplainAgreesWithExecute: for calls meeting every step, Explain's
// verdict is the code ExecuteTool then returns, and Explain changes
// nothing: no run, no counter, no token, no key.
func TestExplainAgreesWithExecute(t *testing.T) {
	var runs atomic.Int64
	r := explainRegistry(t, &runs)
	bob := tooling.WithPrincipal(tooling.Principal{Subject: "bob"})
	cases := []struct {
		tool, args string
		opts       []tooling.Option
		want       codes.Code
	}{
		{"x.nope", `{}`, nil, codes.NotFound},
		{"x.paused", `{}`, nil, codes.Paused},
		{"x.off", `{}`, nil, codes.Disabled},
		{"x.llm", `{}`, nil, codes.OriginDenied},
		{"x.llm", `{}`, []tooling.Option{tooling.WithOrigin(tooling.OriginLLM)}, codes.OK},
		{"x.down", `{}`, nil, codes.Unavailable},
		{"x.ok", `{"n":"one"}`, nil, codes.ValidationError},
		{"x.ok", `{"m":1}`, nil, codes.ValidationError},
		{"x.ok", `{"n":1}`, []tooling.Option{bob}, codes.Forbidden},
		{"x.ok", `{"n":1}`, nil, codes.OK},
		{"x.write", `{}`, nil, codes.ConsentRequired},
		{"x.write", `{}`, []tooling.Option{tooling.WithConsent()}, codes.OK},
		{"x.rated", `{}`, nil, codes.OK},
		{"x.rated", `{}`, nil, codes.RateLimited},
		{"x.keyed", `{"n":1}`, []tooling.Option{tooling.WithIdempotencyKey("a")}, codes.OK},
		{"x.keyed", `{"n":1}`, []tooling.Option{tooling.WithIdempotencyKey("a")}, codes.OK}, // replayed
		{"x.keyed", `{"n":2}`, []tooling.Option{tooling.WithIdempotencyKey("a")}, codes.IdempotencyConflict},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d %s %s", i, c.tool, c.want), func(t *testing.T) {
			before, tokens := runs.Load(), tokensOf(r)
			ex, exErr := r.Explain(t.Context(), c.tool, raw(c.args), c.opts...)
			if runs.Load() != before {
				t.Fatalf("Explain ran the tool")
			}
			if after := tokensOf(r); after < tokens-0.5 {
				t.Fatalf("Explain spent a token: %v, then %v", tokens, after)
			}
			res, _ := r.Execute(t.Context(), c.tool, raw(c.args), c.opts...)
			if ex.Code != c.want || res.Code != c.want {
				t.Fatalf("Explain %q, Execute %q, want %q\nexplain: %+v", ex.Code, res.Code, c.want, ex.Governance)
			}
			if (exErr == nil) != (ex.Code == codes.OK) || !errors.Is(exErr, ex.Code) && ex.Code != codes.OK {
				t.Fatalf("Explain's error %v does not mirror its code %q", exErr, ex.Code)
			}
			last := ex.Governance[len(ex.Governance)-1]
			switch {
			case res.Replayed:
				if !strings.HasPrefix(lastWith(ex, "idempotency"), "would replay") {
					t.Fatalf("a replay explained as %+v", ex.Governance)
				}
			case c.want != codes.OK && !strings.HasPrefix(last.Detail, "would refuse ("+string(c.want)+")"):
				t.Fatalf("last step %+v, want the refusal", last)
			}
		})
	}
	if s, ok := toolStats(r, "x.ok"); !ok || s.Calls != 4 {
		t.Fatalf("x.ok counted %d calls, want the 4 executed ones only", s.Calls)
	}
}

func lastWith(res *tooling.Result, step string) string {
	d := ""
	for _, g := range res.Governance {
		if g.Step == step {
			d = g.Detail
		}
	}
	return d
}

// TestExplainSteps: a call that would run lists every step of the
// preflight as would pass, and a lock held now as would wait.
func TestExplainSteps(t *testing.T) {
	r := tooling.NewRegistry()
	started, release := make(chan struct{}), make(chan struct{})
	r.Register(tooling.Tool{Name: "x.excl", Meta: tooling.Meta{Resources: []string{"db"}}, Run: func(ctx context.Context, c tooling.Call) (any, error) {
		if callargs.Bool(c.Args, "hold") {
			close(started)
			<-release
		}
		return nil, nil
	}, Input: raw(`{"type":"object","properties":{"hold":{"type":"boolean"}}}`)})
	res, err := r.Explain(t.Context(), "x.excl", nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, g := range res.Governance {
		steps = append(steps, g.Step)
		if !strings.HasPrefix(g.Detail, "would pass") {
			t.Errorf("step %s: %q, want would pass", g.Step, g.Detail)
		}
	}
	if got, want := strings.Join(steps, ","), "look-up,state,enabled,origin,availability,validation,policy,consent,rate,timeout,slot,lock"; got != want {
		t.Fatalf("steps %s, want %s", got, want)
	}
	done := make(chan struct{})
	go func() { defer close(done); r.Execute(t.Context(), "x.excl", raw(`{"hold":true}`)) }()
	<-started
	res, _ = r.Explain(t.Context(), "x.excl", nil)
	if d := lastWith(res, "lock"); !strings.HasPrefix(d, `would wait: "db" held by`) {
		t.Fatalf("lock step %q while another call holds db", d)
	}
	close(release)
	<-done
}

// tokensOf sums the tokens of r's buckets.
func tokensOf(r *tooling.Registry) float64 {
	sum := 0.0
	for _, b := range r.Stats().Buckets {
		sum += b.Tokens
	}
	return sum
}

// TestExplainConsultsOnlyDeclaredMiddleware: Explain runs a call through
// the middleware that declared it honours the dry-run flag, with the flag
// set, and passes over the rest, which never see the call; a refusal by
// middleware is the "middleware" step's.
func TestExplainConsultsOnlyDeclaredMiddleware(t *testing.T) {
	var runs, plain, declared, dry atomic.Int64
	r := explainRegistry(t, &runs)
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			plain.Add(1)
			return next(ctx, c)
		}
	})
	r.Use(func(next tooling.Handler) tooling.Handler {
		dryrun.Declare(next)
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if dryrun.Declaring(ctx) {
				return nil, nil
			}
			declared.Add(1)
			if dryrun.Is(ctx) {
				dry.Add(1)
				if c.Principal.Subject == "carol" {
					return nil, &tooling.Error{Code: "quota", Message: "carol has no quota"}
				}
				c.Decide("quota", "would pass: quota left")
			}
			return next(ctx, c)
		}
	})
	res, err := r.Explain(t.Context(), "x.ok", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Governance {
		got = append(got, d.Step+": "+d.Detail)
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "middleware: not consulted: 1 middleware cannot say") || !strings.Contains(all, "quota: would pass: quota left\nrate: would pass") {
		t.Fatalf("steps:\n%s", all)
	}
	if plain.Load() != 0 || declared.Load() != 1 || dry.Load() != 1 {
		t.Fatalf("explain: plain middleware saw %d calls, declared %d (%d dry)", plain.Load(), declared.Load(), dry.Load())
	}
	res, err = r.Explain(t.Context(), "x.ok", nil, tooling.WithPrincipal(tooling.Principal{Subject: "carol"}))
	if res.Code != "quota" || err == nil || res.Governance[len(res.Governance)-1] != (tooling.Decision{Step: "middleware", Detail: "would refuse (quota): carol has no quota"}) {
		t.Fatalf("refused by middleware: %q %v", res.Code, res.Governance)
	}
	if _, err := r.Execute(t.Context(), "x.ok", nil); err != nil {
		t.Fatal(err)
	}
	if plain.Load() != 1 || declared.Load() != 3 || dry.Load() != 2 || runs.Load() != 1 {
		t.Fatalf("execute: plain middleware saw %d calls, declared %d (%d dry), runs %d", plain.Load(), declared.Load(), dry.Load(), runs.Load())
	}
}
