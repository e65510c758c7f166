package policy_test

import (
	"context"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestPlanningSpendsNothingInProcess: a middleware that plans what it
// asks of a shared store (as package state's do) and holds the limits and
// budgets (as the command line's holds the config's) passes each call
// through them first, asking nothing; limits and budgets whose counts are
// in this process's memory then pass the call on without taking a token
// or counting it, so a call is counted once, when it runs.
func TestPlanningSpendsNothingInProcess(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }})
	ls, err := policy.NewLimits([]policy.Limit{{Name: "searchers", Tools: []string{"shop.*"}, PerMinute: 1, Burst: 2}})
	if err != nil {
		t.Fatal(err)
	}
	bs, err := policy.NewBudgets([]policy.Budget{{Name: "calls", Tools: []string{"shop.*"}, Window: time.Hour, Calls: 3}})
	if err != nil {
		t.Fatal(err)
	}
	inner := []tooling.Middleware{ls.Middleware(), bs.Middleware()}
	r.Use(func(next tooling.Handler) tooling.Handler {
		dryrun.DeclarePlan(next)
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if dryrun.Declaring(ctx) {
				return nil, nil
			}
			h := next
			for i := len(inner) - 1; i >= 0; i-- {
				h = inner[i](h)
			}
			return h(ctx, c)
		}
	})
	exec := func(who string) *tooling.Result {
		res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: who, Tenant: "acme"}))
		return res
	}
	for i := range 2 {
		if res := exec("alice"); res.Code != codes.OK {
			t.Fatalf("alice's call %d of a burst of 2: %s %q; the planning took a token", i+1, res.Code, res.Message)
		}
	}
	if res := exec("alice"); res.Code != codes.RateLimited {
		t.Fatalf("alice's third call: %s %q; want rate_limited", res.Code, res.Message)
	}
	// Bob's budget of 3 calls: his limit lets 2 through, then refuses;
	// the budget counted the 2, not 4.
	for range 2 {
		exec("bob")
	}
	left, err := bs.Left(context.Background(), tooling.Principal{Subject: "bob", Tenant: "acme"}, "shop.search")
	if err != nil || len(left) != 1 || left[0].Counts[0].Used != 2 {
		t.Fatalf("bob's budget: %+v, %v; want 2 calls used", left, err)
	}
}
