package tooling

import (
	"context"
	"fmt"
	"regexp"
	"sync"
	"time"
)

// State is where a tool is in its life: enabled, paused or deprecated.
// Whether config or the host disables it is another matter (Policy).
type State string

const (
	// StateEnabled: the tool runs. The zero State means it too.
	StateEnabled State = "enabled"
	// StatePaused: calls are refused with code paused and the reason;
	// calls already running finish. MCP clients no longer see it.
	StatePaused State = "paused"
	// StateDeprecated: the tool runs, and its results, descriptions and
	// exports say so and name its replacement.
	StateDeprecated State = "deprecated"
)

// toolState is a tool's State with its reason and replacement.
type toolState struct {
	state               State
	reason, replacement string
}

// SetState puts the named tool in state s from the calls that start now:
// reason says why (for people; shown in refusals and descriptions), and
// replacement, for StateDeprecated, names the tool to use instead. It
// overrides the state the config gives the tool until the next Configure
// that changes that state. Each change is an Event to the audit hooks and
// observers (Event.State, with Principal the principal of ctx).
func (r *Registry) SetState(ctx context.Context, name string, s State, reason, replacement string) error {
	e := r.lookup(name)
	if e == nil {
		return r.notFoundError(name)
	}
	switch s {
	case "", StateEnabled:
		s, reason, replacement = StateEnabled, "", ""
	case StatePaused:
		replacement = ""
	case StateDeprecated:
	default:
		return fmt.Errorf("tooling: SetState(%q): unknown state %q (want enabled, paused or deprecated)", name, s)
	}
	if replacement != "" && r.lookup(replacement) == nil {
		return fmt.Errorf("tooling: SetState(%q): its replacement %q is not a registered tool", name, replacement)
	}
	r.changeState(ctx, e, &toolState{state: s, reason: reason, replacement: replacement}, true)
	return nil
}

// changeState sets e's runtime state (runtime) or config state to st, and
// reports a change of its effective state.
func (r *Registry) changeState(ctx context.Context, e *entry, st *toolState, runtime bool) {
	r.stateMu.Lock()
	before := e.effectiveState()
	if runtime {
		e.runState.Store(st)
	} else {
		e.cfgState.Store(st)
	}
	after := e.effectiveState()
	r.stateMu.Unlock()
	if before != after {
		r.reportState(ctx, e, after)
	}
}

// effectiveState is the runtime state when one was set, else the
// config's; never nil.
func (e *entry) effectiveState() toolState {
	if s := e.runState.Load(); s != nil {
		return *s
	}
	if s := e.cfgState.Load(); s != nil {
		return *s
	}
	return toolState{state: StateEnabled}
}

// reportState tells the audit hooks and observers that e is now in st.
func (r *Registry) reportState(ctx context.Context, e *entry, st toolState) {
	p, _ := PrincipalFromContext(ctx)
	ev := Event{End: true, Time: time.Now(), Tool: e.tool.Name, Version: e.tool.Meta.Version, Principal: p, State: st.state}
	if st.reason != "" || st.replacement != "" {
		ev.Detail = map[string]string{}
		if st.reason != "" {
			ev.Detail["reason"] = st.reason
		}
		if st.replacement != "" {
			ev.Detail["replacement"] = st.replacement
		}
	}
	ctx = context.WithoutCancel(ctx)
	report(ctx, r.audit.snapshot(), &ev, &r.audit.panicked)
	report(ctx, r.states.snapshot(), &ev, &r.audit.panicked)
}

// pausedMessage is the refusal of a call of a paused tool.
func pausedMessage(name string, st *toolState) string {
	if st.reason == "" {
		return name + " is paused"
	}
	return name + " is paused: " + st.reason
}

// deprecation is what a deprecated tool's results and descriptions say.
func deprecation(st *toolState) string {
	s := "deprecated"
	if st.replacement != "" {
		s += ": use " + st.replacement + " instead"
	}
	if st.reason != "" {
		s += " (" + st.reason + ")"
	}
	return s
}

// semverPattern is Semantic Versioning 2.0.0's own regular expression,
// compiled on first use: compiling it was most of the package's
// initialisation, which every confined child runs again.
var semverPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)
})

// checkVersion returns the problem with a Meta.Version, "" for none. A
// confined child skips it: the parent, the same binary, checked the same
// version, and the child saves compiling the pattern.
func checkVersion(v string) string {
	if v == "" || inConfinedChild || semverPattern().MatchString(v) {
		return ""
	}
	return fmt.Sprintf("Meta.Version %q is not a semantic version: write MAJOR.MINOR.PATCH, like 1.4.0 (or 2.0.0-rc.1), without a leading v; or leave it empty", v)
}

// configState applies the state o gives e's tool; a change of it drops a
// state SetState gave the tool.
func (r *Registry) configState(e *entry, o Override) {
	st := &toolState{state: o.State, reason: o.StateReason, replacement: o.Replacement}
	if st.state == "" || st.state == StateEnabled {
		st = nil
	}
	old := e.cfgState.Load()
	if old == nil && st == nil || old != nil && st != nil && *old == *st {
		return
	}
	r.stateMu.Lock()
	before := e.effectiveState()
	e.cfgState.Store(st)
	e.runState.Store(nil)
	after := e.effectiveState()
	r.stateMu.Unlock()
	if before != after {
		r.reportState(context.Background(), e, after)
	}
}
