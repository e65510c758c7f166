package policy_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func limitRegistry(t *testing.T, list []policy.Limit, opts ...policy.Option) (*tooling.Registry, *atomic.Int64) {
	t.Helper()
	var ran atomic.Int64
	r := tooling.NewRegistry()
	r.Register(
		tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { ran.Add(1); return "ok", nil }},
		tooling.Tool{Name: "fs.read", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }},
	)
	ls, err := policy.NewLimits(list, opts...)
	if err != nil {
		t.Fatal(err)
	}
	r.Use(ls.Middleware())
	return r, &ran
}

func TestLimitPerSubject(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	r, ran := limitRegistry(t, []policy.Limit{{Name: "searchers", Tools: []string{"shop.*"}, PerMinute: 6, Burst: 2}}, policy.WithClock(c.now))
	exec := func(tool, who string) (*tooling.Result, error) {
		return r.Execute(context.Background(), tool, nil, tooling.WithPrincipal(tooling.Principal{Subject: who, Tenant: "acme"}))
	}
	for range 2 {
		if res, _ := exec("shop.search", "alice"); !res.OK() {
			t.Fatalf("within the burst: %q %q", res.Code, res.Message)
		}
	}
	res, err := exec("shop.search", "alice")
	if res.Code != codes.RateLimited || res.Status != "denied" || !errors.Is(err, codes.RateLimited) ||
		res.Message != "searchers of subject alice is 6 calls a minute (burst 2): retry in 10s" || res.RetryAfter != 10*time.Second {
		t.Fatalf("past the burst: %q %q %q retry %v", res.Code, res.Status, res.Message, res.RetryAfter)
	}
	if ran.Load() != 2 {
		t.Fatalf("the tool ran %d times, want 2", ran.Load())
	}
	if res, _ := exec("shop.search", "bob"); !res.OK() {
		t.Fatalf("bob has a bucket of his own: %q", res.Message)
	}
	if res, _ := exec("fs.read", "alice"); !res.OK() {
		t.Fatalf("a tool the limit does not name: %q", res.Message)
	}
	c.add(10 * time.Second)
	if res, _ := exec("shop.search", "alice"); !res.OK() {
		t.Fatalf("after the retry: %q", res.Message)
	}
}

func TestLimitPerTenant(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}
	r, _ := limitRegistry(t, []policy.Limit{{Tools: []string{"*"}, PerTenant: true, PerMinute: 1}}, policy.WithClock(c.now))
	exec := func(who, tenant string) *tooling.Result {
		res, _ := r.Execute(context.Background(), "fs.read", nil, tooling.WithPrincipal(tooling.Principal{Subject: who, Tenant: tenant}))
		return res
	}
	if res := exec("alice", "acme"); !res.OK() {
		t.Fatal(res.Message)
	}
	if res := exec("bob", "acme"); res.Code != codes.RateLimited || !strings.HasPrefix(res.Message, "limit 1 of tenant acme is 1 calls a minute (burst 1): retry in 1m0s") {
		t.Fatalf("the same tenant: %q %q", res.Code, res.Message)
	}
	if res := exec("carol", "initech"); !res.OK() {
		t.Fatalf("another tenant: %q", res.Message)
	}
}

// A store that fails refuses the call: limits fail closed.
func TestLimitStoreFailureRefuses(t *testing.T) {
	r, ran := limitRegistry(t, []policy.Limit{{Tools: []string{"*"}, PerMinute: 60}}, policy.WithStore(failingStore{}))
	res, _ := r.Execute(context.Background(), "shop.search", nil)
	if res.OK() || res.Code != codes.Unavailable || !strings.Contains(res.Message, "store is down") || ran.Load() != 0 {
		t.Fatalf("%q %q, ran %d", res.Code, res.Message, ran.Load())
	}
}

type failingStore struct{}

func (failingStore) Take(context.Context, string, float64, int, time.Time) (time.Duration, error) {
	return 0, errors.New("store is down")
}

func (failingStore) Add(context.Context, string, int64, int64, time.Time) (int64, bool, error) {
	return 0, false, errors.New("store is down")
}

func TestNewLimitsRefusesBadOnes(t *testing.T) {
	_, err := policy.NewLimits([]policy.Limit{{Name: "a", Tools: []string{"x.y"}}, {Name: "a", Tools: []string{"nope"}, PerMinute: 1, Burst: -1}})
	for _, want := range []string{"a: per_minute must be a positive number", `two limits are named "a"`, `a: "nope" is not a tool pattern`, "a has a negative burst"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

// TestLimitPerSubjectIsPerTenant: a limit per subject keeps alice of one
// tenant apart from alice of another.
func TestLimitPerSubjectIsPerTenant(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }})
	ls, err := policy.NewLimits([]policy.Limit{{Name: "searches", Tools: []string{"shop.*"}, PerMinute: 1}})
	if err != nil {
		t.Fatal(err)
	}
	r.Use(ls.Middleware())
	for _, tenant := range []string{"acme", "globex"} {
		res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: tenant}))
		if !res.OK() {
			t.Fatalf("alice of %s, first call: %q %q; want ok (each tenant's alice has her own bucket)", tenant, res.Code, res.Message)
		}
	}
}
