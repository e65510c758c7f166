package tooling

import (
	"context"
	"slices"
	"strings"
)

// Principal is who makes a call: the subject the entry point that accepted
// the call authenticated, on whose behalf (tenant), with which roles and
// scopes, how it was authenticated and from which client. The zero value
// is the anonymous principal: a call made without one is anonymous,
// explicitly, and policy, consent and budgets treat it as a principal of
// its own.
type Principal struct {
	// Subject names the caller ("alice", "key:ci", an OAuth "sub").
	// Zero: anonymous.
	Subject string `json:"subject,omitempty"`
	// Tenant is on whose behalf the call is made. Zero: none.
	Tenant string `json:"tenant,omitempty"`
	// Roles and Scopes are what the caller holds (groups, OAuth scopes).
	// Zero: none.
	Roles  []string `json:"roles,omitempty"`
	Scopes []string `json:"scopes,omitempty"`
	// Auth says how the subject was established: "local" (the user the
	// program runs as), "asserted" (--as, not verified), "api_key",
	// "oauth", "host" (a library host vouches for it). Zero: nothing was
	// checked.
	Auth string `json:"auth,omitempty"`
	// Client is the calling program's name and version where known (an
	// MCP client's clientInfo: "inspector 0.17.0"). Zero: unknown.
	Client string `json:"client,omitempty"`
}

// String is the subject and tenant for people: "alice@acme", "alice",
// "anonymous".
func (p Principal) String() string {
	s := p.Subject
	if s == "" {
		s = "anonymous"
	}
	if p.Tenant != "" {
		s += "@" + p.Tenant
	}
	return s
}

// clone is p with slices of its own, so a Principal kept in a Result or an
// Event does not change when the caller reuses its slices.
func (p Principal) clone() Principal {
	p.Roles = slices.Clone(p.Roles)
	p.Scopes = slices.Clone(p.Scopes)
	return p
}

// key identifies p for what is kept per principal (consent for the
// session): subject and tenant, each quoted so that no two principals
// share a key.
func (p Principal) key() string {
	var b strings.Builder
	b.Grow(len(p.Subject) + len(p.Tenant) + 2)
	b.WriteString(p.Subject)
	b.WriteByte(0)
	b.WriteString(p.Tenant)
	return b.String()
}

type principalKey struct{}

// ContextWithPrincipal returns ctx carrying p, for servers that
// authenticate callers themselves (an HTTP middleware that verified a
// token): a call executed with that ctx and no WithPrincipal option is made
// by p.
func ContextWithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p.clone())
}

// PrincipalFromContext returns the principal ctx carries
// (ContextWithPrincipal) and whether it carries one.
func PrincipalFromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
