package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/batch"
	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui"
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

// applyAccess installs the config's access rules and Cedar policies as
// the registry's Authorizer (none when it has neither). The policies are
// validated against the tools registered now.
func (a *app) applyAccess(cfg config.Config) error {
	if len(cfg.Access.Rules) == 0 && !cfg.Access.DefaultDeny && len(cfg.Access.Cedar) == 0 {
		a.reg.SetAuthorizer(nil)
		return nil
	}
	var list []tooling.Authorizer
	if len(cfg.Access.Rules) > 0 || cfg.Access.DefaultDeny {
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
		list = append(list, rs)
	}
	if len(cfg.Access.Cedar) > 0 {
		files := make([]policy.PolicyFile, len(cfg.Access.Cedar))
		for i, path := range cfg.Access.Cedar {
			b, err := os.ReadFile(path)
			if err != nil {
				return fmt.Errorf("cedar: %v", err)
			}
			files[i] = policy.PolicyFile{Name: path, Text: b}
		}
		c, err := policy.NewCedar(files, a.reg.List(context.Background(), tooling.Filter{}), policy.WithTenants(cfg.Access.Tenants))
		if err != nil {
			return err
		}
		list = append(list, c)
	}
	a.reg.SetAuthorizer(policy.All(list...))
	return nil
}

// applyBudgets puts the config's limits and budgets in front of every
// call: the limits first, so that a call they refuse spends no budget.
func (a *app) applyBudgets(cfg config.Config) error {
	var mw []tooling.Middleware
	a.limits, a.budgets = nil, nil
	if len(cfg.Limits) > 0 {
		ls, err := limitsOf(cfg, a.policyOptions()...)
		if err != nil {
			return err
		}
		mw = append(mw, ls.Middleware())
		a.limits = ls
	}
	if len(cfg.Budgets) > 0 {
		bs, err := budgetsOf(cfg, a.policyOptions()...)
		if err != nil {
			return err
		}
		mw = append(mw, bs.Middleware())
		a.budgets = bs
	}
	installPolicy(a.reg, mw, a.shared.redis != nil)
	return nil
}

// policies holds, per registry, the limits and budgets of the config
// loaded last. The registry's middleware, added once, reads it: loading a
// config again replaces them rather than adding to them.
var policies sync.Map // *tooling.Registry → *atomic.Pointer[installed]

// installed are the limits and budgets of a registry's calls; shared says
// that their counts are on the shared Redis server.
type installed struct {
	mw     []tooling.Middleware
	shared bool
}

// installPolicy makes mw the limits and budgets of r's calls. shared says
// that their counts are on the shared Redis server: they then plan what
// they ask of it, so that a call's decisions there go in one round trip
// (state.Counts).
func installPolicy(r *tooling.Registry, mw []tooling.Middleware, shared bool) {
	if len(mw) == 0 {
		if v, ok := policies.Load(r); ok {
			v.(*atomic.Pointer[installed]).Store(nil)
		}
		return
	}
	v, loaded := policies.LoadOrStore(r, new(atomic.Pointer[installed]))
	cur := v.(*atomic.Pointer[installed])
	cur.Store(&installed{mw: mw, shared: shared})
	if loaded {
		return
	}
	// The limits and budgets say what they would decide when a call is
	// only explained, and plan what they ask of a shared store, so this
	// middleware passes the call to them then too.
	r.Use(func(next tooling.Handler) tooling.Handler {
		dryrun.Declare(next)
		dryrun.DeclarePlan(next)
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if dryrun.Declaring(ctx) {
				return nil, nil
			}
			in := cur.Load()
			if in == nil || (!in.shared && batch.From(ctx).Planning()) {
				return next(ctx, c)
			}
			h := next
			for i := len(in.mw) - 1; i >= 0; i-- {
				h = in.mw[i](h)
			}
			return h(ctx, c)
		}
	})
}

// budgetsOf is the config's budgets as policy.Budgets.
func budgetsOf(cfg config.Config, opts ...policy.Option) (*policy.Budgets, error) {
	list := make([]policy.Budget, len(cfg.Budgets))
	for i, b := range cfg.Budgets {
		list[i] = policy.Budget{Name: b.Name, Tools: b.Tools, PerTenant: b.PerTenant, Window: b.Window,
			Calls: b.Calls, BytesIn: b.BytesIn, BytesOut: b.BytesOut, CPUMillis: b.CPUMillis}
	}
	return policy.NewBudgets(list, opts...)
}

// limitsOf is the config's limits as policy.Limits.
func limitsOf(cfg config.Config, opts ...policy.Option) (*policy.Limits, error) {
	list := make([]policy.Limit, len(cfg.Limits))
	for i, l := range cfg.Limits {
		list[i] = policy.Limit{Name: l.Name, Tools: l.Tools, PerTenant: l.PerTenant, PerMinute: l.PerMinute, Burst: l.Burst}
	}
	return policy.NewLimits(list, opts...)
}

// policyOf adds to info the limits and budgets that apply to its tool, with
// what each budget leaves p.
func (a *app) policyOf(info *toolInfo, p tooling.Principal) error {
	if a.limits != nil {
		for _, l := range a.limits.For(info.Name) {
			per := "subject"
			if l.PerTenant {
				per = "tenant"
			}
			info.Limits = append(info.Limits, limitInfo{Name: l.Name, Per: per, PerMinute: l.PerMinute, Burst: l.Burst})
		}
	}
	if a.budgets != nil {
		left, err := a.budgets.Left(a.ctx, p, info.Name)
		if err != nil {
			return err
		}
		info.Budgets = left
	}
	return nil
}

// consoleBudgets reads what bs leaves a principal, for the console's
// governance board; nil when the config has no budgets.
func consoleBudgets(bs *policy.Budgets) func(context.Context, tooling.Principal) ([]tui.Budget, error) {
	if bs == nil {
		return nil
	}
	return func(ctx context.Context, p tooling.Principal) ([]tui.Budget, error) {
		left, err := bs.Snapshot(ctx, p)
		if err != nil {
			return nil, err
		}
		out := make([]tui.Budget, len(left))
		for i, b := range left {
			out[i] = tui.Budget{Name: b.Name, Per: b.Per, Who: b.Who, Window: b.Window, Refill: b.Refill}
			for _, c := range b.Counts {
				out[i].Counts = append(out[i].Counts, tui.BudgetCount{What: c.What, Used: c.Used, Bound: c.Bound})
			}
		}
		return out, nil
	}
}
