package policy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Rule allows or denies the tools its patterns match to the principals it
// names. Each list it has narrows whom it applies to: a principal must
// match one entry of every list that is not empty; a rule with no lists
// applies to everyone.
type Rule struct {
	// Name names the rule in refusals; zero: "rule N", its place.
	Name string
	// Deny makes the rule refuse; zero: it allows.
	Deny bool
	// Tools are tool-name patterns ("shop.*", "fs.write_file", "*"), as the
	// config's tool lists take them. Required.
	Tools []string
	// Subjects, Tenants, Roles and Scopes the principal must have one of;
	// "anonymous" in Subjects matches the anonymous principal.
	Subjects, Tenants, Roles, Scopes []string
	// Origins the call must come from.
	Origins []tooling.Origin
	// ReadOnly narrows the rule to tools without effects that change
	// anything (no write, process or filesystem write effects).
	ReadOnly bool

	allowed string // "allowed by NAME", the decision of a call it allows
}

// Rules is an ordered set of rules, safe for concurrent use. A call is
// refused when a deny rule applies to it; otherwise it is allowed when an
// allow rule applies, or when no allow rule names the tool at all and
// DefaultDeny is not set. Deny wins over allow, whatever the order.
type Rules struct {
	rules       []Rule
	defaultDeny bool
}

// New checks rules and returns them as an Authorizer. defaultDeny refuses
// every tool that no allow rule lets the principal call.
func New(rules []Rule, defaultDeny bool) (*Rules, error) {
	var errs []error
	out := make([]Rule, len(rules))
	for i, r := range rules {
		if r.Name == "" {
			r.Name = fmt.Sprintf("rule %d", i+1)
		}
		if len(r.Tools) == 0 {
			errs = append(errs, fmt.Errorf("policy: %s names no tools (tools: [\"*\"] for all)", r.Name))
		}
		for _, p := range r.Tools {
			if !toolname.ValidPattern(p) {
				errs = append(errs, fmt.Errorf("policy: %s: %q is not a tool pattern (group.name, with * for a segment or the rest)", r.Name, p))
			}
		}
		r.Subjects, r.Tenants, r.Roles, r.Scopes = slices.Clone(r.Subjects), slices.Clone(r.Tenants), slices.Clone(r.Roles), slices.Clone(r.Scopes)
		r.Origins, r.Tools = slices.Clone(r.Origins), slices.Clone(r.Tools)
		r.allowed = "allowed by " + r.Name
		out[i] = r
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return &Rules{rules: out, defaultDeny: defaultDeny}, nil
}

// Visible reports whether p may call t with some arguments from origin.
func (rs *Rules) Visible(p tooling.Principal, origin tooling.Origin, t *tooling.Tool) bool {
	return rs.decide(p, origin, t) == nil
}

// Allow refuses a call that a deny rule applies to, or that no allow rule
// allows where one is needed; the error names the rule.
// An allowed call gets a "policy" decision naming the allow rule, or
// saying that no rule names the tool.
func (rs *Rules) Allow(_ context.Context, c *tooling.Call) error {
	by, err := rs.decideBy(c.Principal, c.Origin, &tooling.Tool{Name: c.Tool, Meta: c.Meta()})
	if err == nil {
		if by != "" {
			c.Decide("policy", by)
		} else {
			c.Decide("policy", "no rule names "+c.Tool+" (policy default: allow)")
		}
	}
	return err
}

func (rs *Rules) decide(p tooling.Principal, origin tooling.Origin, t *tooling.Tool) error {
	_, err := rs.decideBy(p, origin, t)
	return err
}

// decideBy decides as Allow does and says which allow rule applied first
// ("allowed by NAME"; "" when none had to).
func (rs *Rules) decideBy(p tooling.Principal, origin tooling.Origin, t *tooling.Tool) (string, error) {
	named := false
	by := ""
	for i := range rs.rules {
		r := &rs.rules[i]
		if !r.matchesTool(t) {
			continue
		}
		if !r.Deny {
			named = true
		}
		if !r.appliesTo(p, origin) {
			continue
		}
		if r.Deny {
			return "", fmt.Errorf("denied by %s", r.Name)
		}
		if by == "" {
			by = r.allowed
		}
	}
	switch {
	case by != "":
		return by, nil
	case named:
		return "", errors.New("no allow rule for " + t.Name + " applies to " + describe(p, origin))
	case rs.defaultDeny:
		return "", errors.New("no rule allows " + t.Name + " (policy default: deny)")
	}
	return "", nil
}

func (r *Rule) matchesTool(t *tooling.Tool) bool {
	if r.ReadOnly && t.Meta.Effects&(tooling.EffectWrite|tooling.EffectProcess) != 0 {
		return false
	}
	for _, pat := range r.Tools {
		if pat == "*" || toolname.Match(pat, t.Name) {
			return true
		}
	}
	return false
}

func (r *Rule) appliesTo(p tooling.Principal, origin tooling.Origin) bool {
	subject := p.Subject
	if subject == "" {
		subject = "anonymous"
	}
	return anyOf(r.Subjects, subject) && anyOf(r.Tenants, p.Tenant) && anyIn(r.Roles, p.Roles) &&
		anyIn(r.Scopes, p.Scopes) && (len(r.Origins) == 0 || slices.Contains(r.Origins, origin))
}

func anyOf(list []string, v string) bool { return len(list) == 0 || slices.Contains(list, v) }

func anyIn(list, have []string) bool {
	if len(list) == 0 {
		return true
	}
	for _, h := range have {
		if slices.Contains(list, h) {
			return true
		}
	}
	return false
}

// describe is who calls, for refusals.
func describe(p tooling.Principal, origin tooling.Origin) string {
	s := p.String()
	if len(p.Roles) > 0 {
		s += " (roles " + strings.Join(p.Roles, ", ") + ")"
	}
	return s + " from origin " + string(origin)
}

var _ tooling.Authorizer = (*Rules)(nil)

// All is an Authorizer that lets a principal see and call a tool only when
// every one of list does: the config's rules and Cedar policies together.
// A refusal is the first one's, in the order of list.
func All(list ...tooling.Authorizer) tooling.Authorizer {
	var out allOf
	for _, a := range list {
		if a != nil {
			out = append(out, a)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

type allOf []tooling.Authorizer

func (l allOf) Visible(p tooling.Principal, origin tooling.Origin, t *tooling.Tool) bool {
	for _, a := range l {
		if !a.Visible(p, origin, t) {
			return false
		}
	}
	return true
}

func (l allOf) Allow(ctx context.Context, c *tooling.Call) error {
	for _, a := range l {
		if err := a.Allow(ctx, c); err != nil {
			return err
		}
	}
	return nil
}
