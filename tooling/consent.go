package tooling

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// ConsentDecision is what a consent function decides. The zero value
// denies.
type ConsentDecision uint8

const (
	ConsentDeny    ConsentDecision = iota // refuse the call: consent_required
	ConsentOnce                           // allow this call only
	ConsentSession                        // allow this call and later calls of the tool by the same principal from the same origin, for the registry's lifetime
)

// ConsentRequest is what a consent function is asked about: a call that
// needs consent and carries none, with its arguments validated and
// defaults filled in.
type ConsentRequest struct {
	Tool      string
	Effects   Effects
	Safety    Safety // the effective risk (high: the riskiest)
	Args      map[string]any
	Origin    Origin
	Principal Principal
}

// SetConsentFunc makes r ask f for consent when a call needs it and
// carries none (no WithConsent). f asks whoever can decide (a person in a
// dialog, an MCP client's elicitation, a policy) whether the call may run.
// It runs in the caller's goroutine with the caller's ctx, before the
// call's deadline starts, and may block until it knows.
//
// An error refuses the call, whatever the decision that came with it: code
// consent_required, a message naming the error ("… needs consent, and
// asking for it failed: <error>", followed by "(the consent function also
// answered allow once, which an error overrides)" when the decision allowed
// the call), and the error in the chain of the *Error Execute returns
// (errors.Is finds it). A panic refuses the call the same way, and a ctx
// that ends refuses it with canceled or timeout. nil stops asking: such calls are then
// refused with consent_required, as without a consent function. Consent
// given for the session is kept when f changes.
func (r *Registry) SetConsentFunc(f func(ctx context.Context, req ConsentRequest) (ConsentDecision, error)) {
	r.consent.mu.Lock()
	r.consent.ask = f
	r.consent.mu.Unlock()
}

// consents is a registry's consent function and the consent it gave for
// the session.
type consents struct {
	mu      sync.Mutex
	ask     func(context.Context, ConsentRequest) (ConsentDecision, error)
	session map[consentKey]struct{}
}

// consentKey is what consent for the session is given to: one principal
// calling one tool from one origin. Consent that alice gave never lets bob
// run.
type consentKey struct {
	tool      string
	origin    Origin
	principal string // Principal.key
}

// obtainConsent decides the consent step of a call that needs consent and
// carries none; it reports whether the call may go on.
func (r *Registry) obtainConsent(ctx context.Context, res *Result, e *entry, call *Call) bool {
	m := &e.tool.Meta
	key := consentKey{e.tool.Name, call.Origin, call.Principal.key()}
	r.consent.mu.Lock()
	_, granted := r.consent.session[key]
	ask := r.consent.ask
	r.consent.mu.Unlock()
	if granted {
		res.decide("consent", "given earlier for this session")
		call.Consent = true
		return true
	}
	if ask == nil {
		res.failf(codes.ConsentRequired, "%s has %s effects at %s risk and needs consent", e.tool.Name, m.Effects, m.EffectiveSafety())
		res.Hint = "ask first, then call again with consent (WithConsent, or --consent on the command line)"
		return false
	}
	d, err := askConsent(ctx, ask, ConsentRequest{Tool: e.tool.Name, Effects: m.Effects, Safety: m.EffectiveSafety(), Args: call.Args, Origin: call.Origin, Principal: call.Principal})
	switch {
	case ctx.Err() != nil:
		r.interrupted(res, ctx, ctx.Err(), false)
		return false
	case err != nil:
		res.failf(codes.ConsentRequired, "%s needs consent, and asking for it failed: %v", e.tool.Name, err)
		if allowed := d.allows(); allowed != "" {
			res.Message += " (the consent function also answered " + allowed + ", which an error overrides)"
		}
		res.cause = err
		return false
	case d == ConsentOnce:
		res.decide("consent", "given for this call")
	case d == ConsentSession:
		r.consent.mu.Lock()
		if r.consent.session == nil {
			r.consent.session = make(map[consentKey]struct{})
		}
		r.consent.session[key] = struct{}{}
		r.consent.mu.Unlock()
		res.decide("consent", "given for this session (tool, origin "+string(call.Origin)+" and principal "+call.Principal.String()+")")
	default:
		res.failf(codes.ConsentRequired, "%s has %s effects at %s risk and needs consent, which was refused", e.tool.Name, m.Effects, m.EffectiveSafety())
		return false
	}
	call.Consent = true
	return true
}

// allows names the decision d when it allows a call, "" when it denies.
func (d ConsentDecision) allows() string {
	switch d {
	case ConsentOnce:
		return "allow once"
	case ConsentSession:
		return "allow for this session"
	}
	return ""
}

// askConsent calls f, turning a panic into an error.
func askConsent(ctx context.Context, f func(context.Context, ConsentRequest) (ConsentDecision, error), req ConsentRequest) (d ConsentDecision, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = ConsentDeny, fmt.Errorf("the consent function panicked: %v", p)
		}
	}()
	return f(ctx, req)
}
