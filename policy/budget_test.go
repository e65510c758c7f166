package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func budgetRegistry(t *testing.T, list []policy.Budget, now func() time.Time, ran *atomic.Int64) *tooling.Registry {
	t.Helper()
	r := tooling.NewRegistry()
	r.Register(
		tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { ran.Add(1); return strings.Repeat("x", 98), nil }},
		tooling.Tool{Name: "fs.read", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(context.Context, tooling.Call) (any, error) { return "ok", nil }},
	)
	bs, err := policy.NewBudgets(list, policy.WithClock(now))
	if err != nil {
		t.Fatal(err)
	}
	r.Use(bs.Middleware())
	return r
}

func TestBudgetCalls(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)}
	var ran atomic.Int64
	r := budgetRegistry(t, []policy.Budget{{Name: "searches", Tools: []string{"shop.*"}, Window: time.Minute, Calls: 2}}, c.now, &ran)
	as := func(who string) tooling.Option {
		return tooling.WithPrincipal(tooling.Principal{Subject: who, Tenant: "acme"})
	}
	exec := func(tool string, o tooling.Option) *tooling.Result {
		res, _ := r.Execute(context.Background(), tool, nil, o)
		return res
	}
	for range 2 {
		if res := exec("shop.search", as("alice")); !res.OK() {
			t.Fatalf("within budget: %q %q", res.Code, res.Message)
		}
	}
	res := exec("shop.search", as("alice"))
	if res.Code != policy.CodeBudgetExceeded || res.Status != "denied" ||
		res.Message != "searches of subject alice: 2 of 2 calls used; it refills in 30s" {
		t.Fatalf("over budget: %q %q %q", res.Code, res.Status, res.Message)
	}
	if n := ran.Load(); n != 2 {
		t.Fatalf("the tool ran %d times, want 2", n)
	}
	if res := exec("shop.search", as("bob")); !res.OK() {
		t.Fatalf("bob has a budget of his own: %q", res.Message)
	}
	if res := exec("fs.read", as("alice")); !res.OK() {
		t.Fatalf("a tool the budget does not name: %q", res.Message)
	}
	c.add(30 * time.Second)
	if res := exec("shop.search", as("alice")); !res.OK() {
		t.Fatalf("after the window: %q", res.Message)
	}
}

func TestBudgetPerTenantAndBytesOut(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var ran atomic.Int64
	r := budgetRegistry(t, []policy.Budget{{Name: "egress", Tools: []string{"shop.search"}, PerTenant: true, Window: time.Hour, BytesOut: 150}}, c.now, &ran)
	exec := func(who, tenant string) *tooling.Result {
		res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: who, Tenant: tenant}))
		return res
	}
	if res := exec("alice", "acme"); !res.OK() {
		t.Fatal(res.Message)
	}
	// bob is of the same tenant: the second 100 bytes go past 150, and
	// the call says so.
	res := exec("bob", "acme")
	if !res.OK() || !strings.Contains(fmtGov(res), "egress: the call took 200 of 150 bytes out") {
		t.Fatalf("past the bound: %q %s", res.Message, fmtGov(res))
	}
	if res := exec("carol", "acme"); res.Code != policy.CodeBudgetExceeded || !strings.Contains(res.Message, "egress of tenant acme: all 150 bytes out used; it refills in 1h0m0s") {
		t.Fatalf("spent: %q %q", res.Code, res.Message)
	}
	if res := exec("dave", "initech"); !res.OK() {
		t.Fatalf("another tenant: %q", res.Message)
	}
}

// 64 goroutines against one budget of 10 calls: exactly 10 run.
func TestBudgetNeverOverspent(t *testing.T) {
	var ran atomic.Int64
	r := budgetRegistry(t, []policy.Budget{{Tools: []string{"*"}, Window: 24 * time.Hour, Calls: 10}}, nil, &ran)
	var refused atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			<-start
			res, _ := r.Execute(context.Background(), "shop.search", nil)
			if res.Code == policy.CodeBudgetExceeded {
				refused.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if ran.Load() != 10 || refused.Load() != 54 {
		t.Fatalf("ran %d, refused %d; want 10 and 54", ran.Load(), refused.Load())
	}
}

func TestNewBudgetsRefusesBadOnes(t *testing.T) {
	_, err := policy.NewBudgets([]policy.Budget{{Name: "a", Tools: []string{"x.y"}}, {Tools: []string{"nope"}, Window: time.Minute, Calls: -1}})
	for _, want := range []string{"a has no window", `budget 2: "nope" is not a tool pattern`, "budget 2 has a negative bound"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	}
}

func fmtGov(res *tooling.Result) string {
	var b strings.Builder
	for _, d := range res.Governance {
		b.WriteString(d.Step + ": " + d.Detail + "; ")
	}
	return b.String()
}

// A call refused by its second budget gives back what its first reserved.
func TestBudgetRefusalGivesBack(t *testing.T) {
	var ran atomic.Int64
	r := budgetRegistry(t, []policy.Budget{
		{Name: "calls", Tools: []string{"*"}, Window: time.Hour, Calls: 2},
		{Name: "bytes", Tools: []string{"shop.search"}, Window: time.Hour, BytesIn: 1},
	}, nil, &ran)
	if res, _ := r.Execute(context.Background(), "shop.search", nil); res.Code != policy.CodeBudgetExceeded || !strings.Contains(res.Message, "bytes of subject anonymous") {
		t.Fatalf("%q %q", res.Code, res.Message)
	}
	for range 2 {
		if res, _ := r.Execute(context.Background(), "fs.read", nil); !res.OK() {
			t.Fatalf("the refused call used a call of the budget: %q", res.Message)
		}
	}
}

// A CPU budget counts what confined calls spend in their child: the call
// that takes it past its bound is reported, the next one refused.
func TestBudgetCPUOfConfinedCalls(t *testing.T) {
	cfg := tooling.Settings{}
	cfg.Confinement.PoolSize = -1
	if _, err := hosted.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// The CPU a 1 ms call costs here (the child's start included) sets the
	// bound, so that a loaded machine, where a child's start costs more,
	// does not spend the budget before the call that should.
	res, _ := hosted.Execute(ctx, "lab.spin", json.RawMessage(`{"ms": 1}`))
	if res.Code == codes.SandboxUnavailable {
		t.Skipf("confinement unavailable here: %s", res.Message)
	}
	floor := childCPU(t, res)
	bound := max(100*time.Millisecond, 4*floor+50*time.Millisecond).Round(time.Millisecond)
	bs, err := policy.NewBudgets([]policy.Budget{{Name: "cpu", Tools: []string{"lab.*"}, Window: time.Hour, CPUMillis: bound.Milliseconds()}})
	if err != nil {
		t.Fatal(err)
	}
	hosted.Use(bs.Middleware())
	res, _ = hosted.Execute(ctx, "lab.spin", json.RawMessage(`{"ms": 1}`))
	if !res.OK() || strings.Contains(fmtGov(res), "budget:") {
		t.Fatalf("within budget (bound %v, a 1 ms call cost %v): %q %q %s", bound, floor, res.Code, res.Message, fmtGov(res))
	}
	res, _ = hosted.Execute(ctx, "lab.spin", json.RawMessage(fmt.Sprintf(`{"ms": %d}`, bound.Milliseconds()+50)))
	if !res.OK() || !strings.Contains(fmtGov(res), "budget: cpu: the call took ") || !strings.Contains(fmtGov(res), fmt.Sprintf(" of %d ms of CPU; later calls are refused", bound.Milliseconds())) {
		t.Fatalf("past the bound: %q %q %s", res.Code, res.Message, fmtGov(res))
	}
	res, _ = hosted.Execute(ctx, "lab.spin", json.RawMessage(`{"ms": 1}`))
	if res.Code != policy.CodeBudgetExceeded || !strings.Contains(res.Message, fmt.Sprintf("cpu of subject anonymous: all %d ms of CPU used; it refills in", bound.Milliseconds())) {
		t.Fatalf("spent: %q %q", res.Code, res.Message)
	}
}

// childCPU reads the CPU time a confined call's "cpu" decision reports.
func childCPU(t *testing.T, res *tooling.Result) time.Duration {
	t.Helper()
	for _, d := range res.Governance {
		if d.Step == "cpu" {
			if v, err := time.ParseDuration(strings.Fields(d.Detail)[0]); err == nil {
				return v
			}
		}
	}
	t.Fatalf("no cpu decision: %q %q %s", res.Code, res.Message, fmtGov(res))
	return 0
}

// Left says what each budget leaves a principal, as the calls spend it.
func TestBudgetLeft(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)}
	bs, err := policy.NewBudgets([]policy.Budget{
		{Name: "calls", Tools: []string{"shop.*"}, Window: time.Minute, Calls: 5},
		{Name: "egress", Tools: []string{"*"}, PerTenant: true, Window: time.Hour, BytesOut: 1000},
		{Name: "other", Tools: []string{"fs.*"}, Window: time.Hour, Calls: 1},
	}, policy.WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return strings.Repeat("x", 98), nil }})
	r.Use(bs.Middleware())
	alice := tooling.Principal{Subject: "alice", Tenant: "acme"}
	for range 2 {
		if res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(alice)); !res.OK() {
			t.Fatal(res.Message)
		}
	}
	left, err := bs.Left(context.Background(), alice, "shop.search")
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", left)
	want := "[{Name:calls Per:subject Who:alice Window:1m0s Refill:45s Counts:[{What:calls Used:2 Bound:5}]} " +
		"{Name:egress Per:tenant Who:acme Window:1h0m0s Refill:59m45s Counts:[{What:bytes_out Used:200 Bound:1000}]}]"
	if got != want {
		t.Fatalf("left\n got %s\nwant %s", got, want)
	}
}

// TestBudgetPerSubjectIsPerTenant: a budget per subject counts alice of
// one tenant apart from alice of another, as it counts two subjects.
func TestBudgetPerSubjectIsPerTenant(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 30, 0, time.UTC)}
	var ran atomic.Int64
	r := budgetRegistry(t, []policy.Budget{{Name: "searches", Tools: []string{"shop.*"}, Window: time.Minute, Calls: 1}}, c.now, &ran)
	for _, tenant := range []string{"acme", "globex"} {
		res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: tenant}))
		if !res.OK() {
			t.Fatalf("alice of %s, first call: %q %q; want ok (each tenant's alice has her own budget)", tenant, res.Code, res.Message)
		}
	}
}

// Snapshot says what every budget leaves a principal, those of other
// tools included; a count spent past its bound by the output of a call
// leaves nothing, and says by how much it went past.
func TestBudgetSnapshot(t *testing.T) {
	c := &clock{t: time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)}
	bs, err := policy.NewBudgets([]policy.Budget{
		{Name: "egress", Tools: []string{"shop.*"}, PerTenant: true, Window: time.Hour, Calls: 10, BytesOut: 150},
		{Name: "other", Tools: []string{"fs.*"}, Window: time.Minute, Calls: 1},
	}, policy.WithClock(c.now))
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return strings.Repeat("x", 98), nil }})
	r.Use(bs.Middleware())
	alice := tooling.Principal{Subject: "alice", Tenant: "acme"}
	for range 2 {
		if res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(alice)); !res.OK() {
			t.Fatal(res.Message)
		}
	}
	snap, err := bs.Snapshot(context.Background(), alice)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", snap)
	want := "[{Name:egress Per:tenant Who:acme Window:1h0m0s Refill:59m45s Counts:[{What:calls Used:2 Bound:10} {What:bytes_out Used:200 Bound:150}]} " +
		"{Name:other Per:subject Who:alice Window:1m0s Refill:45s Counts:[{What:calls Used:0 Bound:1}]}]"
	if got != want {
		t.Fatalf("snapshot\n got %s\nwant %s", got, want)
	}
	if calls, out := snap[0].Counts[0], snap[0].Counts[1]; calls.Left() != 8 || out.Left() != 0 {
		t.Fatalf("left: %d calls, %d bytes out", calls.Left(), out.Left())
	}
	if left, _ := bs.Left(context.Background(), alice, "shop.search"); len(left) != 1 || left[0].Name != "egress" {
		t.Fatalf("Left of shop.search: %+v", left)
	}
}
