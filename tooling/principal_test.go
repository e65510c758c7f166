package tooling_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The principal of a call comes from WithPrincipal, else from the ctx
// (ContextWithPrincipal), else it is the anonymous principal; the tool,
// the Result and both Events see the same one.
func TestPrincipalOfACall(t *testing.T) {
	r := tooling.NewRegistry()
	seen := make(chan tooling.Principal, 1)
	r.Register(tooling.Tool{Name: "t.who", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			seen <- c.Principal
			return c.Principal.String(), nil
		}})
	events := make(chan tooling.Event, 8)
	defer r.Audit(func(_ context.Context, ev tooling.Event) { events <- ev })()

	alice := tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"support"}, Scopes: []string{"tools:read"}, Auth: "oauth", Client: "inspector 0.17"}
	bob := tooling.Principal{Subject: "bob", Auth: "api_key"}
	ctx := tooling.ContextWithPrincipal(context.Background(), alice)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		opts []tooling.Option
		want tooling.Principal
	}{
		{"none", context.Background(), nil, tooling.Principal{}},
		{"ctx", ctx, nil, alice},
		{"option", context.Background(), []tooling.Option{tooling.WithPrincipal(bob)}, bob},
		{"option over ctx", ctx, []tooling.Option{tooling.WithPrincipal(bob)}, bob},
	} {
		res, err := r.Execute(tc.ctx, "t.who", nil, tc.opts...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := <-seen; got.String() != tc.want.String() || got.Auth != tc.want.Auth || got.Client != tc.want.Client ||
			strings.Join(got.Roles, ",") != strings.Join(tc.want.Roles, ",") {
			t.Errorf("%s: the tool saw %+v, want %+v", tc.name, got, tc.want)
		}
		if res.Principal.String() != tc.want.String() {
			t.Errorf("%s: Result.Principal %+v, want %+v", tc.name, res.Principal, tc.want)
		}
		for range 2 {
			if ev := <-events; ev.Principal.String() != tc.want.String() {
				t.Errorf("%s: event (end %v) principal %+v", tc.name, ev.End, ev.Principal)
			}
		}
		b, _ := json.Marshal(res)
		if has := strings.Contains(string(b), `"principal"`); has == (tc.want.Subject == "") {
			t.Errorf("%s: the Result's JSON %s (anonymous principals are left out)", tc.name, b)
		}
	}
	// A refused call carries its principal too.
	res, _ := r.Execute(ctx, "t.nope", nil)
	if res.Principal.Subject != "alice" {
		t.Errorf("not_found: principal %+v", res.Principal)
	}
}

// What a Result keeps of its principal does not change when the caller
// reuses its slices.
func TestPrincipalIsCopied(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	roles := []string{"admin"}
	p := tooling.Principal{Subject: "alice", Roles: roles}
	res, _ := r.Execute(context.Background(), "t.ok", nil, tooling.WithPrincipal(p))
	res2, _ := r.Execute(tooling.ContextWithPrincipal(context.Background(), p), "t.ok", nil)
	roles[0] = "guest"
	if res.Principal.Roles[0] != "admin" || res2.Principal.Roles[0] != "admin" {
		t.Fatalf("roles %v %v after the caller changed its slice", res.Principal.Roles, res2.Principal.Roles)
	}
}

func TestPrincipalString(t *testing.T) {
	for p, want := range map[*tooling.Principal]string{
		{}:                                 "anonymous",
		{Tenant: "acme"}:                   "anonymous@acme",
		{Subject: "alice"}:                 "alice",
		{Subject: "alice", Tenant: "acme"}: "alice@acme",
	} {
		if got := p.String(); got != want {
			t.Errorf("%+v: %q, want %q", *p, got, want)
		}
	}
}
