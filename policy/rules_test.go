package policy_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func registry(t *testing.T, rules []policy.Rule, defaultDeny bool) *tooling.Registry {
	t.Helper()
	r := tooling.NewRegistry()
	run := func(context.Context, tooling.Call) (any, error) { return "done", nil }
	r.Register(
		tooling.Tool{Name: "shop.list_orders", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead}, Run: run},
		tooling.Tool{Name: "shop.refund", Meta: tooling.Meta{Concurrency: tooling.Exclusive, Effects: tooling.EffectWrite | tooling.EffectNetwork}, Run: run},
		tooling.Tool{Name: "fs.read", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead}, Run: run},
	)
	rs, err := policy.New(rules, defaultDeny)
	if err != nil {
		t.Fatal(err)
	}
	r.SetAuthorizer(rs)
	return r
}

var (
	alice   = tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"support"}}
	bob     = tooling.Principal{Subject: "bob", Tenant: "acme", Roles: []string{"admin"}}
	carol   = tooling.Principal{Subject: "carol", Tenant: "initech", Roles: []string{"support"}}
	nobody  = tooling.Principal{}
	readers = []policy.Rule{
		{Name: "support reads", Tools: []string{"*"}, Roles: []string{"support"}, ReadOnly: true},
		{Name: "admins", Tools: []string{"*"}, Roles: []string{"admin"}},
		{Name: "no initech refunds", Deny: true, Tools: []string{"shop.refund"}, Tenants: []string{"initech"}},
	}
)

func TestRules(t *testing.T) {
	r := registry(t, readers, true)
	for _, c := range []struct {
		who  tooling.Principal
		tool string
		code codes.Code
		msg  string
	}{
		{alice, "shop.list_orders", codes.OK, ""},
		{alice, "shop.refund", codes.Forbidden, "alice@acme may not call shop.refund: no allow rule for shop.refund applies to alice@acme (roles support) from origin app"},
		{bob, "shop.refund", codes.OK, ""},
		{carol, "fs.read", codes.OK, ""},
		{tooling.Principal{Subject: "carol", Tenant: "initech", Roles: []string{"admin"}}, "shop.refund", codes.Forbidden, "denied by no initech refunds"},
		{nobody, "fs.read", codes.Forbidden, "no allow rule"},
	} {
		res, _ := r.Execute(context.Background(), c.tool, nil, tooling.WithPrincipal(c.who), tooling.WithConsent())
		if res.Code != c.code || !strings.Contains(res.Message, c.msg) {
			t.Errorf("%s calls %s: %q %q, want %q %q", c.who, c.tool, res.Code, res.Message, c.code, c.msg)
		}
		if c.code == codes.Forbidden && res.Status != "denied" {
			t.Errorf("%s calls %s: status %q, want denied", c.who, c.tool, res.Status)
		}
		if got, want := r.Visible(c.who, tooling.OriginApp, c.tool), c.code == codes.OK; got != want {
			t.Errorf("%s sees %s: %v, want %v", c.who, c.tool, got, want)
		}
	}
}

// Without default deny, a tool no allow rule names is open to all; one an
// allow rule names is open to those it applies to.
func TestRulesDefaultAllow(t *testing.T) {
	r := registry(t, []policy.Rule{{Tools: []string{"shop.*"}, Subjects: []string{"bob"}}, {Deny: true, Tools: []string{"fs.*"}, Origins: []tooling.Origin{tooling.OriginLLM}}}, false)
	check := func(who tooling.Principal, tool string, o tooling.Origin, want codes.Code) {
		t.Helper()
		res, _ := r.Execute(context.Background(), tool, nil, tooling.WithPrincipal(who), tooling.WithConsent(), tooling.WithOrigin(o))
		if res.Code != want {
			t.Errorf("%s calls %s from %s: %q %q, want %q", who, tool, o, res.Code, res.Message, want)
		}
	}
	check(nobody, "fs.read", tooling.OriginApp, codes.OK)
	check(nobody, "fs.read", tooling.OriginLLM, codes.Forbidden)
	check(alice, "shop.list_orders", tooling.OriginApp, codes.Forbidden)
	check(bob, "shop.list_orders", tooling.OriginApp, codes.OK)
}

func TestNewRefusesBadRules(t *testing.T) {
	_, err := policy.New([]policy.Rule{{Name: "empty"}, {Tools: []string{"shop"}}}, false)
	if err == nil || !strings.Contains(err.Error(), "empty names no tools") || !strings.Contains(err.Error(), `rule 2: "shop" is not a tool pattern`) {
		t.Fatalf("err = %v", err)
	}
}

// A refusal is in the Result's JSON with its code, as every other.
func TestForbiddenResult(t *testing.T) {
	r := registry(t, readers, true)
	res, err := r.Execute(context.Background(), "shop.refund", nil, tooling.WithPrincipal(alice), tooling.WithConsent())
	if !errors.Is(err, codes.Forbidden) {
		t.Fatalf("err %v", err)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `"code":"forbidden"`) || !strings.Contains(string(b), `"subject":"alice"`) {
		t.Fatalf("%s", b)
	}
}
