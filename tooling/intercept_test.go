package tooling_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// trace records what middleware saw, in order.
type trace struct {
	mu    sync.Mutex
	lines []string
}

func (tr *trace) add(format string, a ...any) {
	tr.mu.Lock()
	tr.lines = append(tr.lines, fmt.Sprintf(format, a...))
	tr.mu.Unlock()
}

func (tr *trace) String() string { return strings.Join(tr.lines, " | ") }

// named returns a middleware that records its name before and after the
// rest of the chain.
func named(tr *trace, name string) tooling.Middleware {
	return func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			tr.add("%s before %s", name, c.Tool)
			res, err := next(ctx, c)
			tr.add("%s after %s %q", name, c.Tool, res.Code)
			return res, err
		}
	}
}

func TestMiddlewareOrderAndWhatItSees(t *testing.T) {
	r := tooling.NewRegistry()
	tr := &trace{}
	r.Register(tooling.Tool{Name: "t.add", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Tags: []string{"math"}},
		Input: raw(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","default":2}},"required":["a"]}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			tr.add("run")
			return callargs.Int(c.Args, "a") + callargs.Int(c.Args, "b"), nil
		}})
	type key struct{}
	r.Use(named(tr, "outer"), func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			m := c.Meta()
			tr.add("inner sees %s origin=%s tenant=%s id=%s args=%v tags=%v", c.Tool, c.Origin, c.Principal.Tenant, c.ID, c.Args, m.Tags)
			return next(context.WithValue(ctx, key{}, "span"), c)
		}
	})
	r.Use(named(tr, "last"))
	res := mustExec(t, r, "t.add", `{"a":40}`, tooling.WithOrigin(tooling.OriginLLM), tooling.WithPrincipal(tooling.Principal{Tenant: "acme"}), tooling.WithCallID("c-1"))
	if string(res.Output) != "42" {
		t.Fatalf("output %s", res.Output)
	}
	want := `outer before t.add | inner sees t.add origin=llm tenant=acme id=c-1 args=map[a:40 b:2] tags=[math] | last before t.add | run | last after t.add "" | outer after t.add ""`
	if got := tr.String(); got != want {
		t.Fatalf("trace\n got %s\nwant %s", got, want)
	}

	// Calls refused before the middleware (not found, validation) do not reach it.
	tr.lines = nil
	if _, err := r.Execute(context.Background(), "t.add", raw(`{"a":"x"}`)); !errors.Is(err, codes.ValidationError) {
		t.Fatalf("validation: %v", err)
	}
	if _, err := r.Execute(context.Background(), "t.nope", nil); !errors.Is(err, codes.NotFound) {
		t.Fatalf("not found: %v", err)
	}
	if len(tr.lines) != 0 {
		t.Fatalf("middleware saw refused calls: %s", tr)
	}
}

func TestMiddlewareSeesTheOutcomeOfGovernance(t *testing.T) {
	r := codeRegistry(t)
	tr := &trace{}
	r.Use(named(tr, "mw"))
	for _, tool := range []string{"t.err", "t.panic", "t.bad_output"} {
		_, _ = r.Execute(context.Background(), tool, nil)
	}
	want := `mw before t.err | mw after t.err "tool_error" | mw before t.panic | mw after t.panic "panic" | mw before t.bad_output | mw after t.bad_output "output_invalid"`
	if got := tr.String(); got != want {
		t.Fatalf("trace\n got %s\nwant %s", got, want)
	}
}

func TestMiddlewareRefuses(t *testing.T) {
	ran := 0
	newReg := func(mw tooling.Middleware) *tooling.Registry {
		r := tooling.NewRegistry()
		r.Register(tooling.Tool{Name: "t.limited", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 1}},
			Run: func(context.Context, tooling.Call) (any, error) { ran++; return "ran", nil }})
		r.Use(mw)
		return r
	}
	refuse := func(err error) tooling.Middleware {
		return func(tooling.Handler) tooling.Handler {
			return func(context.Context, *tooling.Call) (*tooling.Result, error) { return nil, err }
		}
	}
	tests := []struct {
		name string
		err  error
		code codes.Code
		msg  string
		is   error
	}{
		{"own code", &tooling.Error{Code: "budget_exceeded", Message: "tenant acme spent its budget"}, "budget_exceeded", "tenant acme spent its budget", nil},
		{"a code of the registry", &tooling.Error{Code: codes.RateLimited, Message: "shared limit reached"}, codes.RateLimited, "shared limit reached", codes.RateLimited},
		{"a code alone", codes.RateLimited, codes.RateLimited, "rate_limited", codes.RateLimited},
		{"a wrapped code", fmt.Errorf("%w: tenant acme spent its budget", codes.RateLimited), codes.RateLimited, "rate_limited: tenant acme spent its budget", codes.RateLimited},
		{"plain error", errors.New("maintenance window"), codes.Refused, "maintenance window", codes.Refused},
		{"nothing", nil, codes.Refused, "a middleware returned neither a result nor an error", codes.Refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReg(refuse(tt.err))
			for range 2 { // a refusal takes no rate token: the second call is refused by the middleware too
				res, err := r.Execute(context.Background(), "t.limited", nil)
				if res.Code != tt.code || res.Message != tt.msg || res.Status != "denied" || res.Output != nil {
					t.Fatalf("code %q message %q status %q output %s", res.Code, res.Message, res.Status, res.Output)
				}
				var te *tooling.Error
				if !errors.As(err, &te) || te.Code != tt.code || (tt.is != nil && !errors.Is(err, tt.is)) {
					t.Fatalf("error %v", err)
				}
			}
			if ran != 0 {
				t.Fatalf("the tool ran %d times", ran)
			}
			if b := r.Stats().Buckets; len(b) != 0 && b[0].Tokens < 1 {
				t.Fatalf("a refused call took a rate token: %+v", b)
			}
		})
	}
}

// A middleware's next never returns a nil Result: when a middleware added
// later refuses the call, next returns the refusal as a Result with its
// code, so that a logging middleware can read res.Code.
func TestMiddlewareNextReturnsRefusalAsResult(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		code codes.Code
	}{
		{"own code", &tooling.Error{Code: "budget_exceeded", Message: "tenant acme spent its budget"}, "budget_exceeded"},
		{"plain error", errors.New("maintenance window"), codes.Refused},
		{"nothing", nil, codes.Refused},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := codeRegistry(t)
			tr := &trace{}
			r.Use(named(tr, "log"), func(tooling.Handler) tooling.Handler {
				return func(context.Context, *tooling.Call) (*tooling.Result, error) { return nil, tt.err }
			})
			res, err := r.Execute(context.Background(), "t.ok", raw(`{"n":1}`))
			if res.Code != tt.code || res.Status != "denied" || !errors.Is(err, tt.code) {
				t.Fatalf("code %q status %q err %v", res.Code, res.Status, err)
			}
			if want := fmt.Sprintf(`log before t.ok | log after t.ok %q`, tt.code); tr.String() != want {
				t.Fatalf("trace\n got %s\nwant %s", tr, want)
			}
		})
	}
}

func TestMiddlewareReplacesResult(t *testing.T) {
	r := tooling.NewRegistry()
	runs := 0
	r.Register(tooling.Tool{Name: "t.charge", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Idempotent: true},
		Input: raw(`{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			runs++
			return map[string]any{"charged": callargs.String(c.Args, "key"), "run": runs}, nil
		}})
	// An idempotent replay: the first result under a key is kept and replayed.
	var mu sync.Mutex
	seen := map[string]*tooling.Result{}
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			key := callargs.String(c.Args, "key")
			mu.Lock()
			prev := seen[key]
			mu.Unlock()
			if prev != nil {
				return prev, nil
			}
			res, err := next(ctx, c)
			if err == nil {
				mu.Lock()
				seen[key] = res
				mu.Unlock()
			}
			return res, err
		}
	})
	first := mustExec(t, r, "t.charge", `{"key":"k1"}`, tooling.WithCallID("first"))
	second := mustExec(t, r, "t.charge", `{"key":"k1"}`, tooling.WithCallID("second"))
	if runs != 1 || string(second.Output) != string(first.Output) || string(first.Output) != `{"charged":"k1","run":1}` {
		t.Fatalf("runs %d first %s second %s", runs, first.Output, second.Output)
	}
	if second.CallID != "second" || second.Status != "ok" || second.Run != 0 {
		t.Fatalf("the replay's own account: id %q status %q run %v", second.CallID, second.Status, second.Run)
	}
	last := second.Governance[len(second.Governance)-1]
	if last != (tooling.Decision{Step: "middleware", Detail: "result replaced"}) {
		t.Fatalf("governance %+v", second.Governance)
	}
	for _, d := range first.Governance {
		if d.Step == "middleware" {
			t.Fatalf("a result passed on is marked replaced: %+v", first.Governance)
		}
	}
	// A replaced result can carry a failure too.
	r2 := codeRegistry(t)
	r2.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			return &tooling.Result{Code: codes.ToolError, Message: "replayed failure"}, nil
		}
	})
	res, err := r2.Execute(context.Background(), "t.ok", raw(`{"n":1}`))
	if !errors.Is(err, codes.ToolError) || res.Message != "replayed failure" || res.Output != nil {
		t.Fatalf("replayed failure: %v %+v", err, res)
	}
}

func TestMiddlewarePanicKeepsHost(t *testing.T) {
	for _, when := range []string{"before", "after"} {
		t.Run(when, func(t *testing.T) {
			r := codeRegistry(t)
			r.Use(func(next tooling.Handler) tooling.Handler {
				return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
					if when == "after" {
						_, _ = next(ctx, c)
					}
					panic("middleware bug")
				}
			})
			res, err := r.Execute(context.Background(), "t.ok", raw(`{"n":1}`))
			if !errors.Is(err, codes.Panic) || !strings.Contains(res.Message, "a middleware panicked: middleware bug") ||
				!strings.Contains(res.Stack, "goroutine") || res.Output != nil {
				t.Fatalf("err %v message %q output %s", err, res.Message, res.Output)
			}
			// The slot taken for the run is back: the next call runs.
			if st := r.Stats().Slots; st.Used != 0 {
				t.Fatalf("slots in use after the call: %+v", st)
			}
		})
	}
}

func TestMiddlewareCallsNextOnce(t *testing.T) {
	r := codeRegistry(t)
	var second error
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			res, err := next(ctx, c)
			_, second = next(ctx, c)
			return res, err
		}
	})
	mustExec(t, r, "t.ok", `{"n":1}`)
	if !errors.Is(second, codes.Refused) {
		t.Fatalf("second next: %v", second)
	}
}

// A middleware's ctx reaches the tool and its deadline applies; the
// registry's deadline still bounds the call.
func TestMiddlewareContextReachesTool(t *testing.T) {
	r := tooling.NewRegistry()
	type key struct{}
	r.Register(tooling.Tool{Name: "t.ctx", Run: func(ctx context.Context, _ tooling.Call) (any, error) {
		return ctx.Value(key{}), nil
	}})
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			return next(context.WithValue(ctx, key{}, "span-7"), c)
		}
	})
	if res := mustExec(t, r, "t.ctx", ``); string(res.Output) != `"span-7"` {
		t.Fatalf("output %s", res.Output)
	}
}

// Observers get the call's context values, never its cancellation.
func TestObserverGetsCallContext(t *testing.T) {
	r := codeRegistry(t)
	type key struct{}
	got := make(chan string, 2)
	remove := r.Audit(func(ctx context.Context, ev tooling.Event) {
		v, _ := ctx.Value(key{}).(string)
		got <- fmt.Sprintf("end:%v %s %s %v", ev.End, v, ev.Principal.Tenant, ctx.Err())
	})
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), key{}, "trace-1"))
	_, _ = r.Execute(ctx, "t.ok", raw(`{"n":1}`), tooling.WithPrincipal(tooling.Principal{Tenant: "acme"}))
	cancel()
	remove()
	if b, e := <-got, <-got; b != "end:false trace-1 acme <nil>" || e != "end:true trace-1 acme <nil>" {
		t.Fatalf("begin %q end %q", b, e)
	}
}

// A config that disables a tool still refuses it before any middleware.
func TestMiddlewareAfterConfigChecks(t *testing.T) {
	r := codeRegistry(t)
	saw := false
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) { saw = true; return next(ctx, c) }
	})
	cfg := tooling.Settings{}
	cfg.Blacklist = []string{"t.ok"}
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background(), "t.ok", raw(`{"n":1}`)); !errors.Is(err, codes.Disabled) || saw {
		t.Fatalf("err %v, middleware saw it: %v", err, saw)
	}
	if _, err := r.Execute(context.Background(), "t.write", nil); !errors.Is(err, codes.ConsentRequired) || saw {
		t.Fatalf("err %v, middleware saw it: %v", err, saw)
	}
}
