package tooling

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/dryrun"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Explain runs the preflight of a call of the named tool with args and
// opts, as ExecuteTool would run it now, and changes nothing: the same
// steps in the same order (look-up, state, enabled, origin, availability,
// validation, policy, consent, idempotency, middleware, rate, deadline,
// slot, locks or main thread, confinement), by the same code, except that
// no rate token is spent, no slot, lock or idempotency key taken, no
// consent asked, no event sent and no counter moved; the tool never runs.
//
// Middleware is consulted only when it can say what it would decide
// without acting: the per-principal limits and the budgets of package
// policy look at their counts and take nothing (steps "limit" and
// "budget"), and the ledger's guard says whether it would refuse; other
// middleware (telemetry, a host's own) is not run, and a "middleware"
// decision says how many were not consulted.
//
// The Result is what the call would meet: Code is the refusal the call
// would get (codes.OK: it would run; for a call an idempotency key would
// replay, the code of the outcome replayed), Status "denied" or "ok", and
// Governance lists every step taken, each Detail beginning "would pass",
// "would wait", "would replay" or "would refuse (CODE)" (the middleware
// step: "not consulted"); a refusal by middleware is the step
// "middleware". The error mirrors Code as ExecuteTool's does.
func (r *Registry) Explain(ctx context.Context, name string, args json.RawMessage, opts ...Option) (*Result, error) {
	box := new(resultBox)
	o := &box.opts
	for _, f := range opts {
		f(o)
	}
	o.dry, o.progress = true, nil
	res := r.begin(ctx, box, name)
	e := r.lookup(name)
	r.execute(ctx, box, e, name, args)
	box.call = Call{} // a Result kept does not keep the call's arguments
	// The decisions worded as a call words them (origin, policy, consent
	// given) passed.
	for i, d := range res.Governance {
		if !strings.HasPrefix(d.Detail, "would ") && d.Step != "middleware" {
			res.Governance[i].Detail = "would pass: " + d.Detail
		}
	}
	if res.Code != codes.OK && !res.Replayed {
		step := o.refusedBy
		if step == "" {
			step = stepOf(res.Code)
		}
		res.decide(step, "would refuse ("+string(res.Code)+"): "+res.Message)
	}
	res.Status = statusOf(res.Code, res.ran)
	if res.Status == statusOK {
		return res, nil
	}
	return res, &Error{Code: res.Code, Tool: res.Tool, Message: res.Message, Result: res, Err: res.cause}
}

// stepOf names the step that refuses with code c.
func stepOf(c codes.Code) string {
	switch c {
	case codes.NotFound:
		return "look-up"
	case codes.Paused:
		return "state"
	case codes.Disabled:
		return "enabled"
	case codes.OriginDenied:
		return "origin"
	case codes.Unavailable:
		return "availability"
	case codes.ValidationError:
		return "validation"
	case codes.Forbidden:
		return "policy"
	case codes.ConsentRequired:
		return "consent"
	case codes.IdempotencyConflict:
		return "idempotency"
	case codes.RateLimited:
		return "rate"
	case codes.Busy:
		return "slot"
	case codes.Timeout, codes.Canceled:
		return "deadline"
	case codes.SandboxUnavailable, codes.SandboxDenied:
		return "confine"
	}
	return "outcome"
}

// pass notes, for Explain only, a step the call would pass.
func (res *Result) pass(o *callOptions, step, detail string) {
	if o.dry {
		res.decide(step, "would pass: "+detail)
	}
}

// explainKey is the idempotency step of Explain: what the store holds for
// the call's key now. It reports whether the preflight goes on.
func (r *Registry) explainKey(ctx context.Context, res *Result, k *keyed) bool {
	rec, err := k.store.Get(ctx, k.key)
	switch {
	case err != nil:
		res.failf(codes.Unavailable, "%s is unavailable: its idempotency store failed: %v", res.Tool, err)
		return false
	case rec == nil:
		res.decide("idempotency", "would pass: the key is free; the call would claim it and keep its outcome")
		return true
	case rec.Digest != k.digest:
		r.conflict(res, rec)
		return false
	case rec.Pending:
		res.decide("idempotency", "would wait: a call with this key and these arguments runs now; the call would wait for it and replay its outcome")
		return true
	}
	var out keptOutcome
	if err := json.Unmarshal(rec.Outcome, &out); err != nil {
		res.failf(codes.Unavailable, "%s is unavailable: the outcome kept for its idempotency key cannot be read: %v", res.Tool, err)
		return false
	}
	res.replay(&out)
	res.Governance[len(res.Governance)-1].Detail = "would replay the outcome of call " + out.CallID + " (" + string(out.Code) + "); the tool would not run"
	return false
}

// explainGovern is the part of govern that Explain runs: the rate bucket
// looked at, the deadline, and the slot, locks or main thread the call
// would wait for now, and its confinement.
func (r *Registry) explainGovern(ctx context.Context, res *Result, e *entry, pol *toolPolicy, o *callOptions) {
	now := time.Now()
	if !pol.rate.Unlimited() {
		tokens := float64(max(pol.rate.Burst, 1))
		for _, b := range r.buckets.Stats(now) {
			if b.Key == pol.rateKey {
				tokens = b.Tokens
			}
		}
		if tokens < 1 {
			res.failf(codes.RateLimited, "%s is limited to %s (bucket %q): no token now", e.tool.Name, pol.rate, pol.rateKey)
			res.Hint = pol.rateHint
			return
		}
		res.decide("rate", fmt.Sprintf("would pass: %s, %.1f tokens in bucket %q (none spent)", pol.rateDecision, tokens, pol.rateKey))
	} else {
		res.decide("rate", "would pass: unlimited")
	}
	d := pol.timeout
	src := pol.timeoutDecision
	if o.timeout > 0 && o.timeout < d {
		d, src = o.timeout, d.String()+" (caller)"
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < d {
			d, src = left, left.String()+" (caller's context)"
		}
	}
	if err := ctx.Err(); err != nil {
		r.interrupted(res, ctx, err, false)
		return
	}
	res.Timeout = d
	res.decide("timeout", "would pass: "+src)

	if s := r.slots.Stats(); s.Limit > 0 && s.Used >= s.Limit {
		res.decide("slot", fmt.Sprintf("would wait: all %d slots are in use, %d calls waiting", s.Limit, s.Waiting))
	} else {
		res.decide("slot", "would pass: a slot is free")
	}
	switch e.tool.Meta.Concurrency {
	case MainThread:
		if m := r.mainThread().Stats(); m.Current != "" || m.QueueDepth > 0 {
			res.decide("main thread", fmt.Sprintf("would wait: %q runs on the main thread, %d queued", m.Current, m.QueueDepth))
		} else {
			res.decide("main thread", "would pass: the main thread is idle")
		}
	case Exclusive:
		var held []string
		for _, l := range r.locks.Stats() {
			if slices.Contains(pol.lockKeys, l.Key) {
				held = append(held, fmt.Sprintf("%q held by %s (call %s) with %d waiting", l.Key, l.Holder.Name, l.Holder.ID, len(l.Waiters)))
			}
		}
		if len(held) > 0 {
			res.decide("lock", "would wait: "+strings.Join(held, "; "))
		} else {
			res.decide("lock", "would pass: "+pol.lockDecision)
		}
	default:
		res.decide("lock", "would pass: read-only, no lock")
	}
	if e.tool.Meta.Confine != nil {
		r.explainConfine(res, e)
	}
}

// explainMiddleware runs the call through the middleware that can say
// what it would decide without acting (package internal/dryrun: the limits
// and budgets of package policy, the ledger's guard), then through the
// rest of the preflight; the middleware that cannot is named as not
// consulted.
func (r *Registry) explainMiddleware(ctx context.Context, res *Result, e *entry, pol *toolPolicy, call Call, o *callOptions) {
	d := r.dryChain.Load()
	if d == nil {
		r.explainGovern(ctx, res, e, pol, o)
		return
	}
	if d.skipped > 0 {
		res.decide("middleware", fmt.Sprintf("not consulted: %d middleware cannot say what it would do without doing it (telemetry, a host's own)", d.skipped))
	}
	if !r.intercept(dryrun.With(ctx), d.h, res, e, pol, call, o) && res.Code != codes.OK {
		o.refusedBy = "middleware"
	}
}

// wouldConsent is the consent step of Explain, for a call that carries no
// consent: given earlier in the session, asked of the consent function, or
// refused.
func (r *Registry) wouldConsent(res *Result, e *entry, call *Call) bool {
	key := consentKey{e.tool.Name, call.Origin, call.Principal.key()}
	r.consent.mu.Lock()
	_, granted := r.consent.session[key]
	ask := r.consent.ask
	r.consent.mu.Unlock()
	switch {
	case granted:
		res.decide("consent", "would pass: given earlier for this session")
	case ask != nil:
		res.decide("consent", "would ask: the consent function would be asked (not asked now)")
	default:
		m := &e.tool.Meta
		res.failf(codes.ConsentRequired, "%s has %s effects at %s risk and needs consent", e.tool.Name, m.Effects, m.EffectiveSafety())
		res.Hint = "ask first, then call again with consent (WithConsent, or --consent on the command line)"
		return false
	}
	return true
}
