package tooling_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// authorizerFunc decides by a func and says what it decided.
type authorizerFunc func(ctx context.Context, c *tooling.Call) error

func (f authorizerFunc) Visible(tooling.Principal, tooling.Origin, *tooling.Tool) bool { return true }
func (f authorizerFunc) Allow(ctx context.Context, c *tooling.Call) error              { return f(ctx, c) }

// What the Authorizer decides with Call.Decide names the rule in the
// call's policy decision, in place of the registry's own; a refusal names
// it in the message; what it decides is not kept on a later step.
func TestAuthorizerNamesItsRule(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "shop.search", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) { c.Decide("tool", "ran"); return "ok", nil }})
	r.SetAuthorizer(authorizerFunc(func(_ context.Context, c *tooling.Call) error {
		if c.Principal.Subject == "mallory" {
			return errors.New("denied by rule no-mallory")
		}
		c.Decide("policy", "allowed by rule everyone")
		return nil
	}))
	res, _ := r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: "alice"}))
	var policy []string
	for _, d := range res.Governance {
		if d.Step == "policy" {
			policy = append(policy, d.Detail)
		}
	}
	if !res.OK() || len(policy) != 1 || policy[0] != "allowed by rule everyone" {
		t.Fatalf("%q %q: policy decisions %q", res.Code, res.Message, policy)
	}
	res, _ = r.Execute(context.Background(), "shop.search", nil, tooling.WithPrincipal(tooling.Principal{Subject: "mallory"}))
	if res.Code != codes.Forbidden || res.Message != "mallory may not call shop.search: denied by rule no-mallory" {
		t.Fatalf("%q %q", res.Code, res.Message)
	}
}
