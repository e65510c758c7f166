package tooling

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Authorizer decides which principal may see and call which tool: config
// rules and Cedar policies (package policy) or a host's own. SetAuthorizer
// installs one. Both methods run on every call and every listing, concurrently:
// they must be quick and safe for concurrent use.
type Authorizer interface {
	// Visible reports whether p, calling from origin, sees t in lists and
	// exports (tools/list, list, schemas, the console). A tool p may call
	// with some arguments is visible.
	Visible(p Principal, origin Origin, t *Tool) bool
	// Allow decides a call whose arguments passed validation (c has its
	// principal, origin, tool and arguments with defaults): nil lets it go
	// on; an error refuses it with code forbidden and the error's text,
	// which should name the rule that decided. An *Error with a code of its
	// own refuses it with that code. A decision Allow makes with c.Decide
	// (naming the rule that allowed the call) joins the call's Result in
	// place of the registry's own "policy" decision.
	Allow(ctx context.Context, c *Call) error
}

// SetAuthorizer makes a decide every call from now on, after validation
// and before consent, and the listings Visible answers. nil removes it:
// every principal sees and may call every tool, as without one.
func (r *Registry) SetAuthorizer(a Authorizer) {
	if a == nil {
		r.authz.Store(nil)
		return
	}
	r.authz.Store(&a)
}

// Visible reports whether the principal p, calling from origin, sees the
// tool named name: it is registered and the registry's Authorizer (if any)
// shows it to p.
func (r *Registry) Visible(p Principal, origin Origin, name string) bool {
	e := r.lookup(name)
	if e == nil {
		return false
	}
	pol := r.authz.Load()
	return pol == nil || visible(*pol, p, origin, &e.tool)
}

// visible asks pol, turning a panic into "not visible".
func visible(pol Authorizer, p Principal, origin Origin, t *Tool) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return pol.Visible(p, origin, t)
}

// authorize runs the policy step of a call; it reports whether the call
// may go on.
func (r *Registry) authorize(ctx context.Context, res *Result, call *Call) bool {
	pol := r.authz.Load()
	if pol == nil {
		return true
	}
	// What the Authorizer says of the call (Call.Decide, naming the rule
	// or policy that allowed it) becomes the call's policy decision.
	var said notes
	saved := call.notes
	call.notes = &said
	err := allow(ctx, *pol, call)
	call.notes = saved
	decisions, _ := said.close()
	if err == nil {
		if len(decisions) == 0 {
			res.decide("policy", "allowed for "+call.Principal.String())
		}
		res.Governance = append(res.Governance, decisions...)
		return true
	}
	var te *Error
	if errors.As(err, &te) && te.Code != codes.OK {
		res.fail(te.Code, te.Message)
		if te.Result != nil {
			res.Hint = te.Result.Hint
		}
	} else {
		res.failf(codes.Forbidden, "%s may not call %s: %v", call.Principal, call.Tool, err)
	}
	res.cause = err
	return false
}

// allow asks pol, turning a panic into a refusal.
func allow(ctx context.Context, pol Authorizer, c *Call) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the policy panicked: %v", p)
		}
	}()
	return pol.Allow(ctx, c)
}
