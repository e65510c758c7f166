package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tui"
)

// The config's access rules decide what each caller sees and may call:
// support sees the read-only tools only, and is refused the others with
// code forbidden naming the rule; a deny rule wins.
func TestAccessRules(t *testing.T) {
	cfg := writeFile(t, "access.json", `{"access": {"default": "deny", "rules": [
		{"name": "support reads", "tools": ["demo.*"], "roles": ["support"], "subjects": ["alice"], "read_only": true},
		{"name": "ops", "tools": ["*"], "subjects": ["bob"]},
		{"name": "no failing", "effect": "deny", "tools": ["demo.fail"], "subjects": ["bob"]}
	]}}`)
	// --as has no roles: alice is not support here, so no rule lets her in.
	o := cli(t, "", "run", "--config", cfg, "--as", "alice", "demo.echo", "--args", `{"text":"hi"}`, "--json")
	if o.code != exitRefused || !strings.Contains(o.stdout, `"code": "forbidden"`) || !strings.Contains(o.stdout, "no allow rule for demo.echo applies to alice") {
		t.Errorf("alice: %s", o)
	}
	o = cli(t, "", "run", "--config", cfg, "--as", "bob", "demo.echo", "--args", `{"text":"hi"}`, "--json")
	if o.code != exitOK {
		t.Errorf("bob: %s", o)
	}
	o = cli(t, "", "run", "--config", cfg, "--as", "bob", "demo.fail", "--args", `{"mode":"error"}`, "--json")
	if !strings.Contains(o.stdout, "denied by no failing") {
		t.Errorf("bob, denied tool: %s", o)
	}
	list := cli(t, "", "list", "--config", cfg, "--as", "bob")
	if !strings.Contains(list.stdout, "demo.echo") || strings.Contains(list.stdout, "demo.fail ") {
		t.Errorf("bob's list:\n%s", list.stdout)
	}
	list = cli(t, "", "list", "--config", cfg, "--as", "carol")
	if strings.Contains(list.stdout, "demo.echo") {
		t.Errorf("carol sees tools no rule opens to her:\n%s", list.stdout)
	}
	bad := writeFile(t, "bad.json", `{"access": {"rules": [{"tools": ["demo"]}]}}`)
	if o := cli(t, "", "list", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, `"demo" is not a tool pattern`) {
		t.Errorf("bad rule: %s", o)
	}
}

// The config's budgets hold calls to them: a second call of the day by the
// same subject is refused with budget_exceeded, another subject's is not.
func TestBudgetsFromConfig(t *testing.T) {
	path := writeFile(t, "budgets.json", `{"budgets": [{"name": "echoes", "tools": ["demo.echo"], "window": "day", "calls": 1}]}`)
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	bs, err := budgetsOf(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "hi", nil }})
	r.Use(bs.Middleware())
	call := func(who string) *tooling.Result {
		res, _ := r.Execute(context.Background(), "demo.echo", nil, tooling.WithPrincipal(tooling.Principal{Subject: who}))
		return res
	}
	if res := call("alice"); !res.OK() {
		t.Fatal(res.Message)
	}
	if res := call("alice"); res.Code != policy.CodeBudgetExceeded || !strings.Contains(res.Message, "echoes of subject alice: 1 of 1 calls used") {
		t.Fatalf("%q %q", res.Code, res.Message)
	}
	if res := call("bob"); !res.OK() {
		t.Fatal(res.Message)
	}
	bad := writeFile(t, "bad.json", `{"budgets": [{"tools": ["demo.echo"], "window": "fortnight"}]}`)
	if o := cli(t, "", "list", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, `"fortnight" is not minute, hour, day`) {
		t.Errorf("bad window: %s", o)
	}
}

// The config's limits hold each subject to its own bucket: a second call
// at once by the same subject is refused with rate_limited naming the
// limit, another subject's is not.
func TestLimitsFromConfig(t *testing.T) {
	cfg := writeFile(t, "limits.json", `{"limits": [{"name": "echoes", "tools": ["demo.echo"], "per_minute": 1}]}`)
	c, err := config.Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ls, err := limitsOf(c)
	if err != nil {
		t.Fatal(err)
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "hi", nil }})
	r.Use(ls.Middleware())
	call := func(who string) *tooling.Result {
		res, _ := r.Execute(context.Background(), "demo.echo", nil, tooling.WithPrincipal(tooling.Principal{Subject: who}))
		return res
	}
	if res := call("alice"); !res.OK() {
		t.Fatal(res.Message)
	}
	if res := call("alice"); res.Code != codes.RateLimited || !strings.Contains(res.Message, "echoes of subject alice is 1 calls a minute") || res.RetryAfter <= 0 {
		t.Fatalf("%q %q %v", res.Code, res.Message, res.RetryAfter)
	}
	if res := call("bob"); !res.OK() {
		t.Fatal(res.Message)
	}
	o := cli(t, "", "run", "--config", cfg, "demo.echo", "--args", `{"text":"hi"}`, "--json")
	if o.code != exitOK {
		t.Errorf("one call: %s", o)
	}
	bad := writeFile(t, "bad.json", `{"limits": [{"tools": ["demo.echo"], "per_minute": 0}]}`)
	if o := cli(t, "", "list", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, "/limits/0/per_minute") {
		t.Errorf("bad rate: %s", o)
	}
}

// The config's Cedar policies decide calls on their arguments, and a
// policy that does not validate against the tools is refused at load with
// its file and line.
func TestCedarFromConfig(t *testing.T) {
	pol := writeFile(t, "echo.cedar", `@id("no shouting")
forbid (principal, action == Action::"demo.echo", resource) when { context.arguments.text == "HI" };
permit (principal, action in Action::"demo", resource);
`)
	cfg := writeFile(t, "cedar.json", `{"access": {"cedar": [`+strconv.Quote(pol)+`]}}`)
	if o := cli(t, "", "run", "--config", cfg, "--as", "alice", "demo.echo", "--args", `{"text":"hi"}`, "--json"); o.code != exitOK ||
		!strings.Contains(o.stdout, "permitted by Cedar policy") {
		t.Errorf("hi: %s", o)
	}
	o := cli(t, "", "run", "--config", cfg, "--as", "alice", "demo.echo", "--args", `{"text":"HI"}`, "--json")
	if o.code != exitRefused || !strings.Contains(o.stdout, `"code": "forbidden"`) || !strings.Contains(o.stdout, "forbidden by Cedar policy no shouting (") {
		t.Errorf("HI: %s", o)
	}
	badPol := writeFile(t, "bad.cedar", "permit (principal, action, resource);\npermit (principal, action == Action::\"demo.echo\", resource) when { context.arguments.txt == \"x\" };\n")
	bad := writeFile(t, "bad.json", `{"access": {"cedar": [`+strconv.Quote(badPol)+`]}}`)
	if o := cli(t, "", "list", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, "bad.cedar:2: the permit policy does not validate against the tools' schema: attribute `txt`") {
		t.Errorf("bad policy: %s", o)
	}
}

// Loading a config again replaces its limits and budgets, and a config
// without them takes them away: the registry's calls do not keep those of
// an earlier config.
func TestPolicyReplacedOnReload(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "demo.echo", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "hi", nil }})
	a := &app{reg: r}
	strict := config.Config{Limits: []config.Limit{{Name: "once", Tools: []string{"*"}, PerMinute: 1}}}
	for range 2 {
		if err := a.applyBudgets(strict); err != nil {
			t.Fatal(err)
		}
	}
	if res, _ := r.Execute(context.Background(), "demo.echo", nil); !res.OK() {
		t.Fatalf("first call: %q %q", res.Code, res.Message)
	}
	if res, _ := r.Execute(context.Background(), "demo.echo", nil); res.Code != codes.RateLimited {
		t.Fatalf("second call: %q %q", res.Code, res.Message)
	}
	if err := a.applyBudgets(config.Config{}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if res, _ := r.Execute(context.Background(), "demo.echo", nil); !res.OK() {
			t.Fatalf("after a config without limits: %q %q", res.Code, res.Message)
		}
	}
}

// describe names the limits and budgets that apply to the tool, with what
// each budget leaves the caller.
func TestDescribeShowsLimitsAndBudgets(t *testing.T) {
	cfg := writeFile(t, "policy.json", `{"limits": [{"name": "callers", "tools": ["demo.*"], "per_minute": 30, "burst": 5}],
		"budgets": [{"name": "echoes", "tools": ["demo.echo"], "per": "tenant", "window": "day", "calls": 10, "cpu_ms": 500},
		            {"name": "other", "tools": ["fs.*"], "window": "hour", "calls": 1}]}`)
	o := cli(t, "", "describe", "--config", cfg, "--as", "alice", "--tenant", "acme", "demo.echo")
	for _, want := range []string{
		"Limits and budgets (for alice@acme):\n",
		"  limit callers: 30 calls a minute per subject, burst 5\n",
		"  budget echoes (tenant acme, per day): 0 of 10 calls used, 0 of 500 cpu ms used; refills in ",
	} {
		if o.code != exitOK || !strings.Contains(o.stdout, want) {
			t.Errorf("want %q in\n%s", want, o)
		}
	}
	if strings.Contains(o.stdout, "budget other") {
		t.Errorf("a budget of other tools:\n%s", o.stdout)
	}
	o = cli(t, "", "describe", "--config", cfg, "--json", "demo.echo")
	if !strings.Contains(o.stdout, `"budgets": [`) || !strings.Contains(o.stdout, `"what": "cpu_ms"`) || !strings.Contains(o.stdout, `"per_minute": 30`) {
		t.Errorf("json:\n%s", o.stdout)
	}
	if o := cli(t, "", "describe", "demo.echo"); strings.Contains(o.stdout, "Limits and budgets") {
		t.Errorf("without a config:\n%s", o.stdout)
	}
}

// The console's governance board reads what the config's budgets leave
// the principal it calls as: a call of that principal shows in them,
// with the budgets of other tools beside; without budgets it reads none.
func TestConsoleReadsBudgets(t *testing.T) {
	defer func(c func(*app, string) int) { console = c }(console)
	var opts tui.Options
	var reg *tooling.Registry
	var ctx context.Context
	console = func(a *app, _ string) int {
		opts, reg, ctx = consoleOptions(a), a.reg, a.ctx
		return 7
	}
	cfg := writeFile(t, "budgets.json", `{"budgets": [{"name": "echoes", "tools": ["demo.echo"], "per": "tenant", "window": "day", "calls": 10, "bytes_out": 5},
		{"name": "files", "tools": ["fs.*"], "window": "hour", "calls": 3}]}`)
	if o := cli(t, "", "--config", cfg, "--as", "alice", "--tenant", "acme"); o.code != 7 || opts.Budgets == nil {
		t.Fatalf("exit %d, budgets %v\n%s", o.code, opts.Budgets != nil, o)
	}
	res, _ := reg.Execute(ctx, "demo.echo", json.RawMessage(`{"text":"hello"}`), tooling.WithPrincipal(opts.Principal))
	if !res.OK() || !strings.Contains(fmt.Sprint(res.Governance), "echoes: the call took") {
		t.Fatalf("%s %s: %v", res.Code, res.Message, res.Governance)
	}
	got, err := opts.Budgets(context.Background(), opts.Principal)
	if err != nil {
		t.Fatal(err)
	}
	if s := fmt.Sprintf("%+v", got); !strings.Contains(s, "{Name:echoes Per:tenant Who:acme Window:24h0m0s Refill:") ||
		!strings.Contains(s, "Counts:[{What:calls Used:1 Bound:10} {What:bytes_out Used:") ||
		!strings.Contains(s, "{Name:files Per:subject Who:alice Window:1h0m0s Refill:") {
		t.Fatalf("budgets %s", s)
	}
	if got[0].Counts[1].Used <= 5 {
		t.Fatalf("the output was not counted past the bound: %+v", got[0].Counts[1])
	}
	if o := cli(t, ""); o.code != 7 || opts.Budgets != nil {
		t.Fatalf("without budgets: exit %d, budgets %v", o.code, opts.Budgets != nil)
	}
}

// The config's tenants give the Cedar policies the attributes of the
// caller's tenant, and the time of the call is in their context: a policy
// on a tenant's plan decides by --tenant; an attribute no tenant has, or
// of another type, is refused at load with its line, and so is an
// attribute the config cannot hold.
func TestCedarTenantsFromConfig(t *testing.T) {
	pol := writeFile(t, "plans.cedar", `@id("gold echoes")
permit (principal, action == Action::"demo.echo", resource)
when { context.tenant.plan == "gold" && context.now > datetime("2000-01-01") && context.hour >= 0 };
`)
	cfg := writeFile(t, "cedar.json", `{"access": {"cedar": [`+strconv.Quote(pol)+`],
		"tenants": {"*": {"plan": "free"}, "acme": {"plan": "gold", "seats": 40, "regions": ["eu"]}}}}`)
	if o := cli(t, "", "run", "--config", cfg, "--as", "alice", "--tenant", "acme", "demo.echo", "--args", `{"text":"hi"}`, "--json"); o.code != exitOK ||
		!strings.Contains(o.stdout, "permitted by Cedar policy gold echoes") {
		t.Errorf("acme: %s", o)
	}
	for _, tenant := range []string{"initech", ""} {
		o := cli(t, "", "run", "--config", cfg, "--as", "alice", "--tenant", tenant, "demo.echo", "--args", `{"text":"hi"}`, "--json")
		if o.code != exitRefused || !strings.Contains(o.stdout, "no Cedar policy permits demo.echo") {
			t.Errorf("tenant %q: %s", tenant, o)
		}
	}
	badPol := writeFile(t, "bad.cedar", "permit (principal, action, resource);\n\npermit (principal, action, resource) when { context.tenant.seats == \"40\" };\n")
	bad := writeFile(t, "bad.json", `{"access": {"cedar": [`+strconv.Quote(badPol)+`], "tenants": {"acme": {"seats": 40}}}}`)
	if o := cli(t, "", "list", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, "bad.cedar:3: the permit policy does not validate against the tools' schema") {
		t.Errorf("bad policy: %s", o)
	}
	nested := writeFile(t, "nested.json", `{"access": {"cedar": [`+strconv.Quote(pol)+`], "tenants": {"acme": {"limits": {"seats": 40}}}}}`)
	if o := cli(t, "", "list", "--config", nested); o.code != exitUsage || !strings.Contains(o.stderr, "/access/tenants/acme/limits") {
		t.Errorf("nested attribute: %s", o)
	}
	mixed := writeFile(t, "mixed.json", `{"access": {"cedar": [`+strconv.Quote(pol)+`], "tenants": {"acme": {"plan": "gold"}, "initech": {"plan": 2}}}}`)
	if o := cli(t, "", "list", "--config", mixed); o.code != exitUsage || !strings.Contains(o.stderr, "tenant initech: attribute plan is an integer, and a string for tenant acme") {
		t.Errorf("attribute of two types: %s", o)
	}
}
