package policy_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// shopTools are a refund tool with an amount and a reason, and a search.
func shopTools() []tooling.Tool {
	return []tooling.Tool{
		{Name: "shop.refund", Meta: tooling.Meta{Effects: tooling.EffectWrite},
			Input: json.RawMessage(`{"type": "object", "required": ["order", "amount"], "properties": {
				"order": {"type": "string"}, "amount": {"type": "integer"}, "price": {"type": "number"},
				"reason": {"enum": ["damaged", "late"]}, "tags": {"type": "array", "items": {"type": "string"}},
				"note": {"type": ["string", "null"]}}}`),
			Run: func(context.Context, tooling.Call) (any, error) { return "refunded", nil }},
		{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead},
			Input: json.RawMessage(`{"type": "object", "properties": {"q": {"type": "string"}}}`),
			Run:   func(context.Context, tooling.Call) (any, error) { return "found", nil }},
	}
}

func cedarRegistry(t *testing.T, policies string) *tooling.Registry {
	t.Helper()
	r := tooling.NewRegistry()
	tools := shopTools()
	r.Register(tools...)
	c, err := policy.NewCedar([]policy.PolicyFile{{Name: "shop.cedar", Text: []byte(policies)}}, tools)
	if err != nil {
		t.Fatal(err)
	}
	r.SetAuthorizer(c)
	return r
}

func as(subject string, roles ...string) tooling.Option {
	return tooling.WithPrincipal(tooling.Principal{Subject: subject, Tenant: "acme", Roles: roles})
}

// Support may refund under 100, whoever asks; a refund of 100 or more is
// refused, naming no permit.
func TestCedarPolicyOnArgumentValue(t *testing.T) {
	r := cedarRegistry(t, `@id("small refunds by support")
permit (principal in Role::"support", action == Action::"shop.refund", resource)
when { context.arguments.amount < 100 };
permit (principal, action == Action::"shop.search", resource);
`)
	ctx := context.Background()
	res, _ := r.Execute(ctx, "shop.refund", json.RawMessage(`{"order": "A1", "amount": 99}`), as("alice", "support"), tooling.WithConsent())
	if !res.OK() || !strings.Contains(fmtGov(res), `policy: permitted by Cedar policy small refunds by support (shop.cedar:1)`) {
		t.Fatalf("99 by support: %q %q %s", res.Code, res.Message, fmtGov(res))
	}
	res, err := r.Execute(ctx, "shop.refund", json.RawMessage(`{"order": "A1", "amount": 100}`), as("alice", "support"), tooling.WithConsent())
	if res.Code != codes.Forbidden || res.Status != "denied" || !strings.Contains(err.Error(), "forbidden") ||
		!strings.Contains(res.Message, "alice@acme may not call shop.refund: no Cedar policy permits shop.refund for alice@acme (roles support)") {
		t.Fatalf("100 by support: %q %q", res.Code, res.Message)
	}
	res, _ = r.Execute(ctx, "shop.refund", json.RawMessage(`{"order": "A1", "amount": 5}`), as("bob", "sales"), tooling.WithConsent())
	if res.Code != codes.Forbidden {
		t.Fatalf("5 by sales: %q %q", res.Code, res.Message)
	}
	if res, _ := r.Execute(ctx, "shop.search", nil, as("bob")); !res.OK() {
		t.Fatalf("search: %q %q", res.Code, res.Message)
	}
	// Support sees the refund tool (some amounts are allowed); sales does not.
	if !r.Visible(tooling.Principal{Subject: "alice", Roles: []string{"support"}}, tooling.OriginApp, "shop.refund") ||
		r.Visible(tooling.Principal{Subject: "bob", Roles: []string{"sales"}}, tooling.OriginApp, "shop.refund") {
		t.Fatal("visibility does not follow the permit's scope")
	}
}

// A forbid wins over a permit, and the refusal names it.
func TestCedarForbidWinsOverPermit(t *testing.T) {
	r := cedarRegistry(t, `permit (principal, action, resource);

@id("no late refunds from the llm")
forbid (principal, action == Action::"shop.refund", resource)
when { context.origin == "llm" && context.arguments has reason && context.arguments.reason == "late" };
forbid (principal == User::"mallory", action in Action::"shop", resource);
`)
	ctx := context.Background()
	args := json.RawMessage(`{"order": "A1", "amount": 5, "reason": "late"}`)
	if res, _ := r.Execute(ctx, "shop.refund", args, as("alice"), tooling.WithConsent()); !res.OK() {
		t.Fatalf("from the app: %q %q", res.Code, res.Message)
	}
	res, _ := r.Execute(ctx, "shop.refund", args, as("alice"), tooling.WithConsent(), tooling.WithOrigin(tooling.OriginLLM))
	if res.Code != codes.Forbidden || !strings.HasSuffix(res.Message, "forbidden by Cedar policy no late refunds from the llm (shop.cedar:3)") {
		t.Fatalf("from the llm: %q %q", res.Code, res.Message)
	}
	res, _ = r.Execute(ctx, "shop.search", nil, as("mallory"))
	if res.Code != codes.Forbidden || !strings.HasSuffix(res.Message, "forbidden by Cedar policy shop.cedar:6") {
		t.Fatalf("mallory: %q %q", res.Code, res.Message)
	}
	if r.Visible(tooling.Principal{Subject: "mallory"}, tooling.OriginApp, "shop.search") {
		t.Fatal("an unconditional forbid leaves the tool visible")
	}
	if !r.Visible(tooling.Principal{Subject: "alice"}, tooling.OriginLLM, "shop.refund") {
		t.Fatal("a forbid with conditions hides the tool")
	}
}

// A policy that does not validate against the tools' schema is refused at
// load with its file and line.
func TestCedarPolicyRefusedAtLoad(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"unknown argument", "permit (principal, action, resource);\n\npermit (principal, action == Action::\"shop.refund\", resource)\nwhen { context.arguments.amout < 100 };\n",
			"policy: shop.cedar:3: the permit policy does not validate against the tools' schema: attribute `amout` in context for Action::\"shop.refund\" not found"},
		{"wrong type", "@id(\"typo\")\nforbid (principal, action == Action::\"shop.refund\", resource)\nwhen { context.arguments.amount == \"100\" };\n",
			`policy: shop.cedar:1: forbid policy "typo" does not validate`},
		{"unknown tool", "permit (principal, action == Action::\"shop.refnud\", resource);\n",
			"policy: shop.cedar:1: the permit policy does not validate"},
		{"optional argument unguarded", "permit (principal, action == Action::\"shop.refund\", resource)\nwhen { context.arguments.reason == \"late\" };\n",
			"policy: shop.cedar:1: the permit policy does not validate"},
		{"unmapped argument", "permit (principal, action == Action::\"shop.refund\", resource)\nwhen { context.arguments.note == \"x\" };\n",
			"policy: shop.cedar:1"},
		{"syntax", "permit (principal, action, resource)\nwhen { context.origin == };\n", `policy: shop.cedar:2:27: not Cedar: ";": invalid primary`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.NewCedar([]policy.PolicyFile{{Name: "shop.cedar", Text: []byte(tc.text)}}, shopTools())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
}

func TestCedarSchemaMapsArguments(t *testing.T) {
	s := policy.CedarSchema(shopTools())
	for _, want := range []string{
		`action "shop";`,
		"action \"shop.refund\" in [\"shop\"] appliesTo {",
		"      amount: Long,\n",
		"      order: String,\n",
		"      price?: decimal,\n",
		"      reason?: String,\n",
		"      tags?: Set<String>\n",
		"arguments: {\n      q?: String\n    }",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the schema lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "note") {
		t.Errorf("a nullable type is mapped:\n%s", s)
	}
}

// Rules and Cedar policies together: a call must pass both, and the
// allowed call names the rule and the policy that allowed it.
func TestAllOfRulesAndCedar(t *testing.T) {
	r := tooling.NewRegistry()
	tools := shopTools()
	r.Register(tools...)
	rules, err := policy.New([]policy.Rule{{Name: "support reads", Tools: []string{"shop.*"}, Roles: []string{"support"}, ReadOnly: true}}, true)
	if err != nil {
		t.Fatal(err)
	}
	c, err := policy.NewCedar([]policy.PolicyFile{{Name: "p.cedar", Text: []byte(`permit (principal, action, resource) unless { principal.tenant == "initech" };`)}}, tools)
	if err != nil {
		t.Fatal(err)
	}
	r.SetAuthorizer(policy.All(rules, c))
	ctx := context.Background()
	res, _ := r.Execute(ctx, "shop.search", nil, as("alice", "support"))
	if g := fmtGov(res); !res.OK() || !strings.Contains(g, "policy: allowed by support reads; policy: permitted by Cedar policy p.cedar:1;") {
		t.Fatalf("%q %q %s", res.Code, res.Message, g)
	}
	res, _ = r.Execute(ctx, "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: "bob", Tenant: "initech", Roles: []string{"support"}}))
	if res.Code != codes.Forbidden || !strings.Contains(res.Message, "no Cedar policy permits shop.search") {
		t.Fatalf("refused by Cedar: %q %q", res.Code, res.Message)
	}
	res, _ = r.Execute(ctx, "shop.refund", json.RawMessage(`{"order": "A", "amount": 1}`), as("alice", "support"), tooling.WithConsent())
	if res.Code != codes.Forbidden || !strings.Contains(res.Message, "no rule allows shop.refund") {
		t.Fatalf("refused by the rules: %q %q", res.Code, res.Message)
	}
	// Conditions are left to the call: the permit's scope takes bob in.
	if !r.Visible(tooling.Principal{Subject: "bob", Tenant: "initech", Roles: []string{"support"}}, tooling.OriginApp, "shop.search") {
		t.Fatal("a permit's conditions hide the tool")
	}
}

// Principals whose strings run into each other are told apart: the
// entities Cedar keeps made are per principal, exactly.
func TestCedarTellsPrincipalsApart(t *testing.T) {
	r := cedarRegistry(t, `permit (principal, action == Action::"shop.search", resource) when { principal.tenant == "acme" };`)
	ctx := context.Background()
	for _, tc := range []struct {
		p  tooling.Principal
		ok bool
	}{
		{tooling.Principal{Subject: "a", Tenant: "acme"}, true},
		{tooling.Principal{Subject: "a\x00acme"}, false},
		{tooling.Principal{Subject: "a", Tenant: "acme", Roles: []string{"x"}}, true},
		{tooling.Principal{Subject: "a", Tenant: "acm", Roles: []string{"ex"}}, false},
	} {
		res, _ := r.Execute(ctx, "shop.search", nil, tooling.WithPrincipal(tc.p))
		if res.OK() != tc.ok {
			t.Errorf("%+v: %q %q", tc.p, res.Code, res.Message)
		}
	}
}

// cedarWith is cedarRegistry with options: a clock, the tenants'
// attributes.
func cedarWith(t *testing.T, policies string, opts ...policy.Option) *tooling.Registry {
	t.Helper()
	r := tooling.NewRegistry()
	tools := shopTools()
	r.Register(tools...)
	c, err := policy.NewCedar([]policy.PolicyFile{{Name: "shop.cedar", Text: []byte(policies)}}, tools, opts...)
	if err != nil {
		t.Fatal(err)
	}
	r.SetAuthorizer(c)
	return r
}

// A policy on the time of the call: searches in office hours on weekdays
// (in the clock's time zone), and nothing after the first of December;
// the clock is the test's, never the wall's.
func TestCedarPolicyOnTime(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	c := &clock{t: time.Date(2026, 11, 27, 17, 30, 0, 0, berlin)} // a Friday, 16:30 UTC
	r := cedarWith(t, `@id("office hours")
permit (principal, action == Action::"shop.search", resource)
when { context.hour >= 9 && context.hour < 18 && context.weekday != "saturday" && context.weekday != "sunday" };

@id("closed from December")
forbid (principal, action, resource) when { context.now >= datetime("2026-12-01T00:00:00Z") };
`, policy.WithClock(c.now))
	search := func() *tooling.Result {
		res, _ := r.Execute(context.Background(), "shop.search", json.RawMessage(`{"q": "socks"}`), as("alice"))
		return res
	}
	if res := search(); !res.OK() || !strings.Contains(fmtGov(res), "permitted by Cedar policy office hours") {
		t.Fatalf("friday 17:30: %q %q %s", res.Code, res.Message, fmtGov(res))
	}
	c.add(time.Hour) // 18:30 in the clock's zone, 17:30 UTC
	if res := search(); res.Code != codes.Forbidden || !strings.Contains(res.Message, "no Cedar policy permits shop.search") {
		t.Fatalf("friday 18:30: %q %q", res.Code, res.Message)
	}
	c.add(15 * time.Hour) // saturday 09:30
	if res := search(); res.Code != codes.Forbidden {
		t.Fatalf("saturday: %q %q", res.Code, res.Message)
	}
	c.add(48 * time.Hour) // monday 09:30
	if res := search(); !res.OK() {
		t.Fatalf("monday: %q %q", res.Code, res.Message)
	}
	c.add(24 * time.Hour) // tuesday the first of December
	if res := search(); res.Code != codes.Forbidden || !strings.Contains(res.Message, "forbidden by Cedar policy closed from December") {
		t.Fatalf("december: %q %q", res.Code, res.Message)
	}
}

// A policy on the attributes of the principal's tenant: refunds for the
// gold plan, and the EU ones only where the tenant lists the region; a
// tenant not listed has the attributes of "*".
func TestCedarPolicyOnTenantAttributes(t *testing.T) {
	tenants := map[string]map[string]any{
		"*":       {"plan": "free", "seats": 1},
		"acme":    {"plan": "gold", "seats": float64(40), "regions": []any{"eu", "us"}},
		"initech": {"plan": "silver", "regions": []string{}},
	}
	r := cedarWith(t, `@id("gold refunds")
permit (principal, action == Action::"shop.refund", resource)
when { context.tenant.plan == "gold" && context.tenant.seats > 10 };

@id("eu only where listed")
forbid (principal, action == Action::"shop.refund", resource)
unless { context.tenant has regions && context.tenant.regions.contains("eu") };
`, policy.WithTenants(tenants))
	refund := func(tenant string) *tooling.Result {
		res, _ := r.Execute(context.Background(), "shop.refund", json.RawMessage(`{"order": "A1", "amount": 5}`),
			tooling.WithPrincipal(tooling.Principal{Subject: "alice", Tenant: tenant}), tooling.WithConsent())
		return res
	}
	if res := refund("acme"); !res.OK() || !strings.Contains(fmtGov(res), "gold refunds") {
		t.Fatalf("acme: %q %q", res.Code, res.Message)
	}
	for _, tenant := range []string{"initech", "globex", ""} {
		if res := refund(tenant); res.Code != codes.Forbidden {
			t.Fatalf("%q: %q %q", tenant, res.Code, res.Message)
		}
	}
	if res := refund("initech"); !strings.Contains(res.Message, "forbidden by Cedar policy eu only where listed") {
		t.Fatalf("initech: %q", res.Message)
	}
	s := policy.CedarSchema(shopTools(), policy.WithTenants(tenants))
	if !strings.Contains(s, "    tenant: {\n      plan: String,\n      regions?: Set<String>,\n      seats: Long\n    },\n") ||
		!strings.Contains(s, "    now: datetime,\n    hour: Long,\n    weekday: String,\n") {
		t.Fatalf("schema:\n%s", s)
	}
}

// Policies on time and tenants are validated at load like the others:
// an attribute no tenant has, one of another type, an optional one read
// without has, and an hour compared with a string are refused with their
// line; so are attributes Cedar cannot hold or of two types.
func TestCedarTimeAndTenantRefusedAtLoad(t *testing.T) {
	tenants := policy.WithTenants(map[string]map[string]any{"*": {"plan": "free"}, "acme": {"plan": "gold", "regions": []any{"eu"}}})
	for _, tc := range []struct{ name, text, want string }{
		{"unknown attribute", "permit (principal, action, resource);\npermit (principal, action, resource) when { context.tenant.tier == \"gold\" };\n",
			"policy: shop.cedar:2: the permit policy does not validate against the tools' schema: attribute `tier`"},
		{"attribute of another type", "\n\nforbid (principal, action, resource) when { context.tenant.plan == 3 };\n", "policy: shop.cedar:3: the forbid policy does not validate"},
		{"optional attribute unguarded", "permit (principal, action, resource) when { context.tenant.regions.contains(\"eu\") };\n",
			"policy: shop.cedar:1: the permit policy does not validate against the tools' schema: unable to guarantee safety of access to optional attribute `tenant.regions`"},
		{"hour as a string", "permit (principal, action, resource) when { context.hour == \"9\" };\n", "policy: shop.cedar:1: the permit policy does not validate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.NewCedar([]policy.PolicyFile{{Name: "shop.cedar", Text: []byte(tc.text)}}, shopTools(), tenants)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		attrs map[string]map[string]any
		want  string
	}{
		{map[string]map[string]any{"acme": {"plan": "gold"}, "initech": {"plan": 2}}, "policy: tenant initech: attribute plan is an integer, and a string for tenant acme"},
		{map[string]map[string]any{"acme": {"limits": map[string]any{"x": 1}}}, "policy: tenant acme: attribute limits: map[x:1] is not a string"},
		{map[string]map[string]any{"acme": {"price": 1.5}}, "policy: tenant acme: attribute price: 1.5 is not a string"},
		{map[string]map[string]any{"acme": {"tags": []any{"a", 1}}}, "a list holds values of one type: a string and an integer"},
		{map[string]map[string]any{"acme": {"a-b": "x"}}, `attribute "a-b" is not an identifier`},
	} {
		_, err := policy.NewCedar(nil, shopTools(), policy.WithTenants(tc.attrs))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v\nwant %q", tc.attrs, err, tc.want)
		}
	}
}
