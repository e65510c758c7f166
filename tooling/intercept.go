package tooling

import (
	"context"
	"errors"
	"runtime/debug"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/internal/batch"
	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Handler runs a call that has passed look-up, enabled, origin,
// availability, validation and consent: it takes the rate token, sets the
// deadline, waits for a slot, lock or the main thread, runs the tool and
// checks its output. It returns the call's Result, and an *Error when the
// call did not succeed. The next handler a middleware gets may be another
// middleware's; whatever that middleware returns, next returns a Result:
// when it refused the call, the refusal, with its Code and Message, and
// the error it refused with.
type Handler func(ctx context.Context, c *Call) (*Result, error)

// Middleware wraps a Handler, as net/http middleware wraps an http.Handler
// and a gRPC interceptor wraps its handler. A middleware sees the call (its
// tool and Meta, validated arguments with defaults, origin, tenant and id)
// before it runs and the Result after, and may:
//
//   - pass it on: return next(ctx, c), perhaps with a ctx carrying a span,
//     and time or inspect what comes back;
//   - refuse it: return a nil Result and an error, without calling next
//     (next of a middleware further out then returns the refusal as a
//     Result with its Code and Message, and the error). An
//     *Error gives the call its Code (one of the registry's or a code of its own),
//     Message, and the Hint and RetryAfter of its Result when it carries one; a Code alone gives the call that code, with the code
//     as its message; any other error gives code refused with the error's
//     text. The call is then denied, unless the tool already ran;
//   - replace its result (an idempotent replay, a cached answer): return a
//     Result of its own. Its outcome (Code, Message, Hint, Fields, Output,
//     Plan, Stack, RetryAfter) becomes the call's; the call's id, tool,
//     origin, times and governance decisions stay this call's, with a
//     "middleware" decision saying the result was replaced.
//
// A middleware calls next at most once (a second call is refused) and never
// changes c.Args: they were validated. A panic in a middleware ends the call
// with code panic and the middleware's stack; the host lives on.
type Middleware func(next Handler) Handler

// Use adds middleware to r. The first one given is the outermost: it sees
// the call first and its result last. Calls that start from now on go
// through every middleware added so far.
//
// Middleware runs after the checks that need no resources (look-up,
// enabled, origin, availability, validation, policy, consent) and around
// the steps that spend or wait for them (rate, deadline, slot, locks, main
// thread, run, output check). So it sees only calls that passed those
// checks, and a middleware that answers from a cache or refuses on a
// budget takes no rate token and waits for no slot. Every call, those
// refused before middleware included, reaches the audit hooks (Audit) and
// observers. A middleware's Call.Decide and SetDetail join the call's
// Result and end Event.
func (r *Registry) Use(mw ...Middleware) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.middleware = append(r.middleware[:len(r.middleware):len(r.middleware)], mw...)
	h := Handler(r.proceed)
	for i := len(r.middleware) - 1; i >= 0; i-- {
		h = settle(r.middleware[i](h))
	}
	r.chain.Store(&h)
	r.dryChain.Store(buildDryChain(r.proceed, r.middleware))
	r.planChain.Store(buildPlanChain(r.middleware))
}

// dryChain is the chain of middleware Explain runs a call through: those
// that declared they honour the dry-run flag (package internal/dryrun),
// around proceed; the others are passed over.
type dryChain struct {
	h       Handler
	skipped int // middleware passed over
}

// dryLayer is the next handler given to a middleware while the dry chain
// is built: it learns whether the middleware declared itself.
type dryLayer struct {
	inner    Handler
	declared atomic.Bool
}

func (l *dryLayer) next(ctx context.Context, c *Call) (*Result, error) {
	if dryrun.Declaring(ctx) {
		if !dryrun.DeclaringPlan(ctx) {
			l.declared.Store(true)
		}
		return nil, nil
	}
	return l.inner(ctx, c)
}

func buildDryChain(inner Handler, mw []Middleware) *dryChain {
	d := &dryChain{h: inner}
	for i := len(mw) - 1; i >= 0; i-- {
		l := &dryLayer{inner: d.h}
		h := mw[i](l.next)
		if l.declared.Load() {
			d.h = settle(h)
		} else {
			d.skipped++
		}
	}
	return d
}

// planLayer is the next handler given to a middleware while the plan
// chain is built: it learns whether the middleware plans.
type planLayer struct {
	inner    Handler
	declared atomic.Bool
}

func (l *planLayer) next(ctx context.Context, c *Call) (*Result, error) {
	if dryrun.DeclaringPlan(ctx) {
		l.declared.Store(true)
		return nil, nil
	}
	if dryrun.Declaring(ctx) || l.inner == nil {
		return nil, nil
	}
	return l.inner(ctx, c)
}

// buildPlanChain is the chain of the middleware that plan what they ask
// of a shared store (internal/batch), in their order, with nothing after
// them; nil when none does.
func buildPlanChain(mw []Middleware) *Handler {
	var h Handler
	for i := len(mw) - 1; i >= 0; i-- {
		l := &planLayer{inner: h}
		m := mw[i](l.next)
		if l.declared.Load() {
			h = m
		}
	}
	if h == nil {
		return nil
	}
	return &h
}

// plan runs call through the middleware that plan, with a batch in ctx
// that gathers what they will ask of shared stores; it returns ctx
// carrying the batch, planned. A middleware that panics while it plans
// leaves the call without a batch: it then asks on its own, and its panic,
// if it comes again, ends the call as any middleware's does.
func (r *Registry) plan(ctx context.Context, h Handler, e *entry, call Call) (out context.Context) {
	b := batch.New(r, e.tool.Name)
	bctx := batch.With(ctx, b)
	defer func() {
		if recover() != nil {
			out = ctx
		}
	}()
	call.stage, call.notes = nil, nil
	_, _ = h(bctx, &call)
	b.Planned()
	return bctx
}

// stage is what the innermost Handler needs of a call that middleware
// passes on; Call.stage points at it.
type stage struct {
	res    *Result
	e      *entry
	pol    *toolPolicy
	o      *callOptions
	called bool
}

// proceed is the innermost Handler: the steps after the middleware.
func (r *Registry) proceed(ctx context.Context, c *Call) (*Result, error) {
	if dryrun.Declaring(ctx) {
		return nil, nil
	}
	st := c.stage
	if st == nil || st.called {
		// A Result of its own: the call's own Result may hold the outcome
		// of the first run.
		const msg = "a middleware called its next handler twice, or with a call it did not get"
		res := &Result{Tool: c.Tool, Code: codes.Refused, Message: msg, Status: statusDenied}
		return res, &Error{Code: codes.Refused, Tool: c.Tool, Message: msg, Result: res}
	}
	st.called = true
	call := *c
	call.stage = nil
	if st.o.dry {
		// What the middleware said comes before the steps after it.
		if n := c.notes; n != nil {
			n.mu.Lock()
			st.res.Governance = append(st.res.Governance, n.decisions...)
			n.decisions = nil
			n.mu.Unlock()
		}
		r.explainGovern(ctx, st.res, st.e, st.pol, st.o)
	} else {
		r.govern(ctx, st.res, st.e, st.pol, call, st.o)
	}
	if st.res.Code == codes.OK {
		return st.res, nil
	}
	return st.res, &Error{Code: st.res.Code, Tool: st.res.Tool, Message: st.res.Message, Result: st.res, Err: st.res.cause}
}

// intercept runs the call through the middleware chain h. It reports
// whether the call got past every middleware to the steps after them.
func (r *Registry) intercept(ctx context.Context, h Handler, res *Result, e *entry, pol *toolPolicy, call Call, o *callOptions) (reached bool) {
	st := &stage{res: res, e: e, pol: pol, o: o}
	call.stage = st
	defer func() { reached = st.called }()
	// What middleware notes of the call (Call.Decide, SetDetail) joins the
	// tool's once the chain returns.
	var mw notes
	call.notes = &mw
	var pan panicked
	out, err := safeHandle(ctx, h, &call, &pan)
	defer func() {
		decisions, detail := mw.close()
		res.Governance = append(res.Governance, decisions...)
		for k, v := range detail {
			if res.detail == nil {
				res.detail = make(map[string]string, len(detail))
			}
			if _, set := res.detail[k]; !set { // the tool's own word stands
				res.detail[k] = v
			}
		}
	}()
	switch {
	case pan.stack != nil:
		res.failf(codes.Panic, "%s: a middleware panicked: %v", res.Tool, pan.value)
		res.Stack = string(pan.stack)
		res.Output, res.Plan = nil, nil
	case out == res:
	case out != nil:
		res.Code, res.Message, res.Hint, res.Fields = out.Code, out.Message, out.Hint, out.Fields
		res.Output, res.Plan, res.Stack, res.RetryAfter, res.cause = out.Output, out.Plan, out.Stack, out.RetryAfter, out.cause
		res.decide("middleware", "result replaced")
	default: // only when h is not wrapped by settle
		refuse(res, err)
	}
	return false // set by the deferred function
}

// settle wraps the Handler a middleware returned so that it always returns
// a Result: a refusal (a nil Result) becomes the call's Result, refused
// with the error's code and message, so that a middleware further out
// reads the code from the Result as from any other outcome.
func settle(h Handler) Handler {
	return func(ctx context.Context, c *Call) (*Result, error) {
		if dryrun.Declaring(ctx) { // a middleware declaring itself to its next, built per call
			return nil, nil
		}
		res, err := h(ctx, c)
		if res != nil {
			return res, err
		}
		if c.stage != nil {
			res = c.stage.res
		} else {
			res = &Result{Tool: c.Tool, Status: statusDenied}
		}
		refuse(res, err)
		if err == nil {
			err = &Error{Code: res.Code, Tool: res.Tool, Message: res.Message, Result: res}
		}
		return res, err
	}
}

// refuse makes res the refusal of a middleware that returned err and no
// Result.
func refuse(res *Result, err error) {
	res.Output, res.Plan, res.Fields, res.Stack, res.Hint, res.RetryAfter = nil, nil, nil, "", "", 0
	res.cause = nil
	var te *Error
	var code codes.Code
	switch {
	case err == nil:
		res.fail(codes.Refused, "a middleware returned neither a result nor an error")
	case errors.As(err, &te) && te.Code != codes.OK:
		res.fail(te.Code, te.Message)
		res.cause = te.Err
		if te.Result != nil {
			res.Hint, res.RetryAfter = te.Result.Hint, te.Result.RetryAfter
		}
	case errors.As(err, &code) && code != codes.OK:
		res.fail(code, err.Error())
		res.cause = err
	default:
		res.fail(codes.Refused, err.Error())
		res.cause = err
	}
}

type panicked struct {
	value any
	stack []byte
}

// safeHandle calls h, recovering a panic into *p.
func safeHandle(ctx context.Context, h Handler, c *Call, p *panicked) (*Result, error) {
	defer func() {
		if v := recover(); v != nil {
			p.value, p.stack = v, debug.Stack()
		}
	}()
	return h(ctx, c)
}
