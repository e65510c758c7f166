package tooling

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/sandbox"
)

// toolPolicy is what the config decides for one tool, computed when the
// config or the tool changes, so that a call reads one pointer.
type toolPolicy struct {
	disabled   string        // why config disables the tool, "" if it does not
	timeout    time.Duration // the effective timeout before the caller's say
	timeoutSrc string        // "tool", "config default" or "config override"
	note       string        // an override that was narrowed or ignored, for people
	rate       sandbox.Rate  // the effective rate (zero: unlimited)
	rateKey    string        // the bucket
	rateHint   string        // what to change to allow more calls: the Meta or the config that set the rate
	// Decisions are worded once here rather than on every call.
	rateDecision, lockDecision, timeoutDecision string
	lockKeys                                    []string
}

// Configure applies s to r: enabled, whitelist, blacklist, default
// timeout, size caps, global slots, per-tool overrides and confinement
// bounds. s replaces the settings of an earlier Configure as a whole. Overrides change runtime settings only and never widen what a
// tool declared: a timeout override longer than the tool's own is ignored,
// and so is a higher rate or burst. A zero field of s means its default
// (the zero Settings are the defaults). Settings with a negative number or
// a rate that is not finite are not applied: the error names each such
// field. The warnings name each name or pattern in s that matches no
// registered tool.
func (r *Registry) Configure(s Settings) (warnings []string, err error) {
	if p := s.problems(); len(p) > 0 {
		return nil, fmt.Errorf("tooling: Configure: %s", strings.Join(p, "; "))
	}
	c := s.WithDefaults()
	r.cfg.Store(&c)
	r.slots.Resize(c.MaxConcurrent)
	for _, e := range r.entries() {
		e.pol.Store(policyFor(e, &c))
		r.configState(e, c.Tools[e.tool.Name])
	}
	return r.unmatchedConfigNames(&s), nil
}

// unmatchedConfigNames lists, as warnings, the whitelist and blacklist
// entries and per-tool overrides in cfg that match no registered tool.
func (r *Registry) unmatchedConfigNames(cfg *Settings) []string {
	names := r.names()
	matchesAny := func(pattern string) bool {
		for _, n := range names {
			if toolname.Match(pattern, n) {
				return true
			}
		}
		return false
	}
	var warns []string
	for _, list := range []struct {
		key      string
		patterns []string
	}{{"whitelist", cfg.Whitelist}, {"blacklist", cfg.Blacklist}} {
		for _, p := range list.patterns {
			if !matchesAny(p) {
				warns = append(warns, fmt.Sprintf("config %s: %q matches no tool%s", list.key, p, didYouMean(p, names)))
			}
		}
	}
	// A blacklist beside a whitelist disables nothing: say so where it
	// would have disabled a tool the whitelist enables.
	if len(cfg.Whitelist) > 0 {
		for _, p := range cfg.Blacklist {
			var kept []string
			for _, n := range names {
				if toolname.Match(p, n) && cfg.whitelisted(n) {
					kept = append(kept, n)
				}
			}
			if len(kept) > 0 {
				warns = append(warns, fmt.Sprintf("config blacklist: %q disables nothing: a whitelist is set, and it alone decides, so %s stays enabled (disable a tool with tools.NAME.disabled: true)", p, someNames(kept)))
			}
		}
	}
	overrides := make([]string, 0, len(cfg.Tools))
	for n := range cfg.Tools {
		overrides = append(overrides, n)
	}
	sort.Strings(overrides)
	for _, n := range overrides {
		if r.lookup(n) == nil {
			warns = append(warns, fmt.Sprintf("config tools: %q matches no tool%s", n, didYouMean(n, names)))
		}
	}
	return warns
}

// someNames names the first three of names, and counts the rest.
func someNames(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

func didYouMean(name string, names []string) string {
	if c := closest(name, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

func policyFor(e *entry, cfg *Settings) *toolPolicy {
	name := e.tool.Name
	p := &toolPolicy{}
	ov, hasOv := cfg.Tools[name]
	if ok, reason := cfg.enabled(name); !ok {
		p.disabled = reason
	}
	p.timeout, p.timeoutSrc = e.tool.Meta.Timeout, "tool"
	if p.timeout == 0 {
		p.timeout, p.timeoutSrc = cfg.DefaultTimeout, "config default"
	}
	if hasOv && ov.Timeout > 0 {
		if ov.Timeout <= p.timeout || e.tool.Meta.Timeout == 0 {
			p.timeout, p.timeoutSrc = ov.Timeout, "config override"
		} else {
			p.note = fmt.Sprintf("config timeout %v ignored: overrides never lengthen the tool's own %v", ov.Timeout, e.tool.Meta.Timeout)
		}
	}
	if p.timeout <= 0 {
		p.timeout, p.timeoutSrc = 30*time.Second, "built-in default"
	}
	p.rate, p.rateKey = effectiveRate(e.tool.Meta.Rate, ov, hasOv), e.tool.Meta.Rate.Key
	if p.rateKey == "" {
		p.rateKey = name
	}
	if decl := e.tool.Meta.Rate; !decl.unlimited() && p.rate == (sandbox.Rate{PerMinute: decl.PerMinute, Burst: max(decl.Burst, 1)}) {
		p.rateHint = "wait for the retry-after, or raise the tool's rate in its Meta (config can only lower it)"
	} else {
		p.rateHint = fmt.Sprintf("wait for the retry-after, or raise rate_per_minute and burst of %q under tools in the config, which sets this limit", name)
		if !decl.unlimited() {
			p.rateHint += fmt.Sprintf(" (up to the tool's own %s)", decl)
		}
	}
	p.timeoutDecision = p.timeout.String() + " (" + p.timeoutSrc + ")"
	p.rateDecision = fmt.Sprintf("token taken from %q (%s)", p.rateKey, p.rate)
	if e.tool.Meta.Concurrency == Exclusive {
		p.lockKeys = e.tool.Meta.Resources
		if len(p.lockKeys) == 0 {
			p.lockKeys = []string{name}
		}
		p.lockDecision = "holds " + strings.Join(p.lockKeys, ", ")
		if n := e.tool.Meta.Parallel; n > 1 {
			p.lockDecision += fmt.Sprintf(" (one of %d calls at once)", n)
		}
	}
	return p
}

// effectiveRate narrows the declared rate by a config override: a lower
// rate or burst applies, a higher one is ignored; a tool that declares no
// rate gets the override.
func effectiveRate(decl Rate, ov Override, hasOv bool) sandbox.Rate {
	if decl.unlimited() {
		if !hasOv || ov.Rate.PerMinute <= 0 {
			return sandbox.Rate{}
		}
		return sandbox.Rate{PerMinute: ov.Rate.PerMinute, Burst: max(ov.Rate.Burst, 1)}
	}
	r := sandbox.Rate{PerMinute: decl.PerMinute, Burst: max(decl.Burst, 1)}
	if hasOv && ov.Rate.PerMinute > 0 && ov.Rate.PerMinute < r.PerMinute {
		r.PerMinute = ov.Rate.PerMinute
	}
	if hasOv && ov.Rate.Burst > 0 && ov.Rate.Burst < r.Burst {
		r.Burst = ov.Rate.Burst
	}
	return r
}

// disabledReason says why calls are refused with code disabled, or "".
func (e *entry) disabledReason() string {
	if e.disabled.Load() {
		return e.tool.Name + " is disabled at runtime"
	}
	return e.pol.Load().disabled
}

// Policy is what governs a tool's calls now: the tool's declarations as the
// config in force narrows them. Whether a call needs consent and its risk
// are the tool's own (Meta.NeedsConsent, Meta.EffectiveSafety): the config
// does not change them.
type Policy struct {
	Tool           string        `json:"tool"`
	Enabled        bool          `json:"enabled"`
	DisabledReason string        `json:"disabled_reason,omitempty"`
	Timeout        time.Duration `json:"timeout"`        // before a caller shortens it
	TimeoutSource  string        `json:"timeout_source"` // "tool", "config default" or "config override"
	Note           string        `json:"note,omitempty"` // a config override that was ignored, and why
	// Rate is the rate calls are held to: Meta.Rate as a config override
	// narrows it (a tool that declares none takes the override's). Its Key
	// is the bucket. Zero: unlimited.
	Rate Rate `json:"rate,omitzero"`
	// State is the tool's state (SetState, or config), with the reason
	// given and, for StateDeprecated, the tool to use instead.
	State       State  `json:"state"`
	StateReason string `json:"state_reason,omitempty"`
	Replacement string `json:"replacement,omitempty"`
}

// Policy returns the policy in force for the named tool.
func (r *Registry) Policy(name string) (Policy, error) {
	e := r.lookup(name)
	if e == nil {
		return Policy{}, r.notFoundError(name)
	}
	p := e.pol.Load()
	reason := e.disabledReason()
	var rate Rate
	if !p.rate.Unlimited() {
		rate = Rate{PerMinute: p.rate.PerMinute, Burst: p.rate.Burst, Key: p.rateKey}
	}
	st := e.effectiveState()
	return Policy{
		Tool: e.tool.Name, Enabled: reason == "", DisabledReason: reason,
		Timeout: p.timeout, TimeoutSource: p.timeoutSrc, Note: p.note, Rate: rate,
		State: st.state, StateReason: st.reason, Replacement: st.replacement,
	}, nil
}
