package main

import (
	"fmt"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/lint"
)

// lintDeprecated warns of each place the config names a deprecated tool
// by its exact name: the whitelist, serve.consent, access rules and
// budgets, so that the config moves to the replacement.
func (a *app) lintDeprecated() []lint.Problem {
	var out []lint.Problem
	uses := func(where string, names []string) {
		for _, n := range names {
			p, err := a.reg.Policy(n)
			if err != nil || p.State != tooling.StateDeprecated {
				continue
			}
			msg := fmt.Sprintf("config %s names %s, which is deprecated", where, n)
			if p.Replacement != "" {
				msg += ": use " + p.Replacement + " instead"
			}
			if p.StateReason != "" {
				msg += " (" + p.StateReason + ")"
			}
			out = append(out, lint.Problem{Tool: n, Check: "config", Message: msg})
		}
	}
	cfg := a.cfg
	uses("whitelist", cfg.Whitelist)
	uses("serve.consent", cfg.Serve.Consent)
	for i, r := range cfg.Access.Rules {
		uses(fmt.Sprintf("access rule %d (%s)", i+1, r.Name), r.Tools)
	}
	for _, b := range cfg.Budgets {
		uses("budget "+b.Name, b.Tools)
	}
	return out
}
