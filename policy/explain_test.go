package policy_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// detail is the Detail of res's decision at step, "" when there is none.
func detail(res *tooling.Result, step string) string {
	for _, d := range res.Governance {
		if d.Step == step {
			return d.Detail
		}
	}
	return ""
}

// Explain says what the limit of a principal would decide and takes no
// token: explained any number of times, the call that follows still has
// its token, and once it is spent Explain says the next would be refused.
func TestExplainLimitTakesNoToken(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	r, ran := limitRegistry(t, []policy.Limit{{Name: "searchers", Tools: []string{"shop.*"}, PerMinute: 1, Burst: 1}}, policy.WithClock(c.now))
	alice := tooling.WithPrincipal(tooling.Principal{Subject: "alice"})
	for range 3 {
		res, err := r.Explain(context.Background(), "shop.search", nil, alice)
		if err != nil || !res.OK() {
			t.Fatalf("explain with a token in the bucket: %v", err)
		}
		if got := detail(res, "limit"); got != "would pass: searchers of subject alice has a token (none taken)" {
			t.Fatalf("limit decision %q in %v", got, res.Governance)
		}
	}
	if res, _ := r.Execute(context.Background(), "shop.search", nil, alice); !res.OK() {
		t.Fatalf("the call after explain: %q %q", res.Code, res.Message)
	}
	res, err := r.Explain(context.Background(), "shop.search", nil, alice)
	if res.Code != codes.RateLimited || err == nil || res.Status != "denied" {
		t.Fatalf("explain with the bucket empty: %q %q", res.Code, res.Message)
	}
	want := "would refuse (rate_limited): searchers of subject alice is 1 calls a minute (burst 1): retry in 1m0s"
	if got := detail(res, "middleware"); got != want {
		t.Fatalf("middleware decision %q, want %q (all: %v)", got, want, res.Governance)
	}
	if res, _ := r.Execute(context.Background(), "shop.search", nil, alice); res.Code != codes.RateLimited {
		t.Fatalf("the call explain said would be refused: %q", res.Code)
	}
	if ran.Load() != 1 {
		t.Fatalf("the tool ran %d times, want 1", ran.Load())
	}
	// Bob's bucket was never touched by alice's explains.
	if res, _ := r.Explain(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: "bob"})); !res.OK() {
		t.Fatalf("bob: %q", res.Message)
	}
}

// Explain says what each budget leaves and counts nothing: the call that
// follows still has the whole budget, and once it is spent Explain says
// budget_exceeded.
func TestExplainBudgetCountsNothing(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)}
	var ran atomic.Int64
	r := budgetRegistry(t, []policy.Budget{{Name: "searches", Tools: []string{"shop.*"}, Window: time.Minute, Calls: 2, BytesIn: 100}}, c.now, &ran)
	alice := tooling.WithPrincipal(tooling.Principal{Subject: "alice"})
	args := []byte(`{}`)
	for range 5 {
		res, err := r.Explain(context.Background(), "shop.search", args, alice)
		if err != nil {
			t.Fatalf("explain within budget: %v", err)
		}
		if got := detail(res, "budget"); got != "would pass: searches of subject alice: 2 of 2 calls left, 100 of 100 bytes in left (nothing counted)" {
			t.Fatalf("budget decision %q", got)
		}
	}
	for range 2 {
		if res, _ := r.Execute(context.Background(), "shop.search", args, alice); !res.OK() {
			t.Fatalf("within budget after explain: %q %q", res.Code, res.Message)
		}
	}
	res, err := r.Explain(context.Background(), "shop.search", args, alice)
	if res.Code != policy.CodeBudgetExceeded || err == nil {
		t.Fatalf("explain over budget: %q %q", res.Code, res.Message)
	}
	if got := detail(res, "middleware"); !strings.HasPrefix(got, "would refuse (budget_exceeded): searches of subject alice: 2 of 2 calls used") {
		t.Fatalf("middleware decision %q", got)
	}
	if ran.Load() != 2 {
		t.Fatalf("the tool ran %d times, want 2", ran.Load())
	}
}

// The steps after the middleware (the tool's own rate) still come after
// what the middleware said.
func TestExplainMiddlewareBeforeRate(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	r, _ := limitRegistry(t, []policy.Limit{{Name: "searchers", Tools: []string{"shop.*"}, PerMinute: 1}}, policy.WithClock(c.now))
	res, err := r.Explain(context.Background(), "shop.search", nil)
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, d := range res.Governance {
		steps = append(steps, d.Step)
	}
	if got := strings.Join(steps, ","); !strings.Contains(got, "limit,rate,timeout") {
		t.Fatalf("steps %s", got)
	}
}
