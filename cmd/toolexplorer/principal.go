package main

import (
	"flag"
	"os"
	"os/user"
	"strconv"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// identityFlags declares --as and --tenant, accepted before the command
// name and by every command.
func (a *app) identityFlags(fs *flag.FlagSet) {
	fs.StringVar(&a.flagAs, "as", a.flagAs, "call as the subject `SUBJECT` instead of the local user, to try a policy as someone else (not verified)")
	fs.StringVar(&a.flagTenant, "tenant", a.flagTenant, "call on behalf of the tenant `T`")
}

// principal is who the command line and the console call as: the local
// user, or the --as subject (asserted, not verified), on behalf of the
// --tenant.
func (a *app) principal() tooling.Principal {
	if a.flagAs != "" {
		return tooling.Principal{Subject: a.flagAs, Tenant: a.flagTenant, Auth: "asserted"}
	}
	return tooling.Principal{Subject: localUser(a.getenv), Tenant: a.flagTenant, Auth: "local"}
}

// localUser names the user the program runs as: the account's name, else
// $USER, else the uid.
func localUser(getenv func(string) string) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := getenv("USER"); u != "" {
		return u
	}
	return "uid:" + strconv.Itoa(os.Getuid())
}

// applyAccess installs the config's access rules as the registry's
// Authorizer (none when it has no rules).
func (a *app) applyAccess(cfg config.Config) error {
	if len(cfg.Access.Rules) == 0 && !cfg.Access.DefaultDeny {
		a.reg.SetAuthorizer(nil)
		return nil
	}
	rules := make([]policy.Rule, len(cfg.Access.Rules))
	for i, r := range cfg.Access.Rules {
		origins := make([]tooling.Origin, len(r.Origins))
		for j, o := range r.Origins {
			origins[j] = tooling.Origin(o)
		}
		rules[i] = policy.Rule{Name: r.Name, Deny: r.Deny, Tools: r.Tools, Subjects: r.Subjects, Tenants: r.Tenants,
			Roles: r.Roles, Scopes: r.Scopes, Origins: origins, ReadOnly: r.ReadOnly}
	}
	rs, err := policy.New(rules, cfg.Access.DefaultDeny)
	if err != nil {
		return err
	}
	a.reg.SetAuthorizer(rs)
	return nil
}

// applyBudgets puts the config's budgets in front of every call.
func (a *app) applyBudgets(cfg config.Config) error {
	if len(cfg.Budgets) == 0 {
		return nil
	}
	bs, err := budgetsOf(cfg)
	if err != nil {
		return err
	}
	a.reg.Use(bs.Middleware())
	return nil
}

// budgetsOf is the config's budgets as policy.Budgets.
func budgetsOf(cfg config.Config) (*policy.Budgets, error) {
	list := make([]policy.Budget, len(cfg.Budgets))
	for i, b := range cfg.Budgets {
		list[i] = policy.Budget{Name: b.Name, Tools: b.Tools, PerTenant: b.PerTenant, Window: b.Window,
			Calls: b.Calls, BytesIn: b.BytesIn, BytesOut: b.BytesOut}
	}
	return policy.NewBudgets(list, nil)
}
