package tooling

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Concurrency says how calls of a tool may overlap. The zero value ("")
// means Exclusive, the safe choice: calls never overlap with another call
// of the same tool (or, when Meta.Resources names keys, with any call
// sharing one of them). Register stores the zero value as Exclusive, and
// takes the names in any case, with "-" for "_" and the short forms
// "readonly" and "main".
type Concurrency string

const (
	// Exclusive calls never overlap with a call sharing a resource key, or
	// with another call of the same tool when no key is given.
	Exclusive Concurrency = "exclusive"
	// ReadOnly calls run in parallel with anything. The tool promises not to
	// change state: it cannot declare write or process effects.
	ReadOnly Concurrency = "read_only"
	// MainThread calls run one at a time, in FIFO order, on the host's main
	// thread (or the scheduler's own locked thread when the host does not
	// hand its main thread over).
	MainThread Concurrency = "main_thread"
)

// canonical returns c as Register stores it: Exclusive for the zero value,
// the names in lower case, the short forms spelled out; an unknown name
// as it is, for check to report.
func (c Concurrency) canonical() Concurrency {
	switch strings.ToLower(strings.ReplaceAll(string(c), "-", "_")) {
	case "", "exclusive":
		return Exclusive
	case "read_only", "readonly":
		return ReadOnly
	case "main_thread", "mainthread", "main":
		return MainThread
	}
	return c
}

// Effects is the set of side effects a tool may have. The zero value means
// none: a pure function of its arguments.
type Effects uint8

const (
	// EffectRead: reads state outside its arguments (host state, files, ...).
	EffectRead Effects = 1 << iota
	// EffectWrite: changes state. Implies at least medium risk (Safety) and consent.
	EffectWrite
	// EffectNetwork: talks to the network. Marks the tool as open-world in exports.
	EffectNetwork
	// EffectFilesystem: touches the file system (combine with read or write).
	EffectFilesystem
	// EffectProcess: starts processes. Implies high risk (Safety) and consent.
	EffectProcess
)

var effectNames = [...]struct {
	e    Effects
	name string
}{{EffectRead, "read"}, {EffectWrite, "write"}, {EffectNetwork, "network"}, {EffectFilesystem, "filesystem"}, {EffectProcess, "process"}}

// String lists the effects joined by "|", or "none".
func (e Effects) String() string {
	if e == 0 {
		return "none"
	}
	var b strings.Builder
	for _, n := range effectNames {
		if e&n.e != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(n.name)
		}
	}
	return b.String()
}

// MarshalText encodes the effects as String does.
func (e Effects) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText parses what String writes ("none", "read|write", also commas).
func (e *Effects) UnmarshalText(b []byte) error {
	v, err := parseEffects(string(b))
	if err == nil {
		*e = v
	}
	return err
}

// parseEffects parses "none" or effect names joined by "|" or ",".
func parseEffects(s string) (Effects, error) {
	var out Effects
	for _, part := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' || r == ' ' }) {
		part = strings.ToLower(part)
		if part == "none" {
			continue
		}
		found := false
		for _, n := range effectNames {
			if n.name == part {
				out |= n.e
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("tooling: unknown effect %q (want read, write, network, filesystem or process)", part)
		}
	}
	return out, nil
}

// Safety is the risk of a call: how much harm a wrong call can do, so that
// SafetyHigh is the riskiest (people read it as "risk", never as "safe").
// The zero value ("", stored by Register as SafetyAuto) derives it from the
// effects: process → high; write, network or filesystem → medium;
// otherwise low. Declaring SafetyLow for a tool with write or process
// effects is a contradiction that Register refuses. Register takes the
// names in any case.
type Safety string

const (
	SafetyAuto   Safety = "auto" // derived from Effects
	SafetyLow    Safety = "low"
	SafetyMedium Safety = "medium"
	SafetyHigh   Safety = "high"
)

// canonical returns s as Register stores it: SafetyAuto for the zero
// value, the names in lower case; an unknown name as it is.
func (s Safety) canonical() Safety {
	if s == "" {
		return SafetyAuto
	}
	if l := Safety(strings.ToLower(string(s))); l.rank() >= 0 {
		return l
	}
	return s
}

// rank orders the risks, low to high (auto is 0); -1 for an unknown name.
func (s Safety) rank() int {
	switch s {
	case SafetyAuto, "":
		return 0
	case SafetyLow:
		return 1
	case SafetyMedium:
		return 2
	case SafetyHigh:
		return 3
	}
	return -1
}

// Origin says who makes a call. Tools may restrict who calls them with
// Meta.Origins. Custom origins are lower-case identifiers.
type Origin string

const (
	OriginApp    Origin = "app"    // the host program itself; the default origin of a call
	OriginUI     Origin = "ui"     // a person, through the console or another UI
	OriginLLM    Origin = "llm"    // a language model
	OriginSystem Origin = "system" // scheduled or internal work
)

// Rate is a token bucket: PerMinute tokens are added each minute, up to
// Burst. The zero value means unlimited. A Burst of 0 with a positive
// PerMinute means a burst of 1. Key names the bucket: tools that share a Key
// share one bucket (a rate per resource, such as one remote API); the zero
// Key is the tool's own name (a rate per tool).
type Rate struct {
	PerMinute float64 `json:"per_minute,omitempty"`
	Burst     int     `json:"burst,omitempty"`
	Key       string  `json:"key,omitempty"`
}

// unlimited reports whether r sets no limit.
func (r Rate) unlimited() bool { return r.PerMinute <= 0 }

func (r Rate) String() string {
	if r.unlimited() {
		return "unlimited"
	}
	b := r.Burst
	if b < 1 {
		b = 1
	}
	return fmt.Sprintf("%g/min burst %d", r.PerMinute, b)
}

// Meta is what a tool declares about itself. Every zero value is documented
// and is the safe choice, except where noted.
type Meta struct {
	// Concurrency: how calls overlap. Zero: Exclusive (never overlap).
	Concurrency Concurrency `json:"concurrency"`
	// Resources: keys that Exclusive calls hold while they run; calls sharing
	// a key never overlap. Zero: the tool's own name is the key.
	Resources []string `json:"resources,omitempty"`
	// Parallel: for an Exclusive tool, how many calls may hold its keys at
	// once, for a tool that orders its own calls (a remote server that takes
	// several at a time); the tools sharing a key give it the same Parallel.
	// Zero or one: one call at a time.
	Parallel int `json:"parallel,omitempty"`
	// Effects: side effects. Zero: none (a pure function of its arguments).
	Effects Effects `json:"effects"`
	// Safety: the risk, the harm a wrong call can do (high: the riskiest).
	// Zero: derived from Effects.
	Safety Safety `json:"safety"`
	// Consent: every call must carry consent. Zero: false, but consent is
	// still required when the risk (Safety) is high or the effects include write
	// or process.
	Consent bool `json:"consent,omitempty"`
	// Timeout: how long a call may run. Zero: the configured default (30s
	// unless config says otherwise). Config and callers may shorten it,
	// never lengthen it.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Rate: calls per minute. Zero: unlimited.
	Rate Rate `json:"rate"`
	// Origins: who may call. Zero (empty): every origin.
	Origins []Origin `json:"origins,omitempty"`
	// Idempotent: calling twice with the same arguments has the effect of
	// calling once. Zero: false (callers must not retry blindly).
	Idempotent bool `json:"idempotent,omitempty"`
	// IdempotencyKeys: the tool takes idempotency keys. The first call
	// made with a key (WithIdempotencyKey) runs and its outcome is kept
	// (the registry's idempotency.Store, for config idempotency.ttl); a
	// repeat with the same key and arguments returns that outcome, marked
	// Result.Replayed, without running; the same key with other arguments
	// or another tool is refused with idempotency_conflict; a repeat while
	// the first call runs waits for it. Refusals are never kept. It is what
	// makes retrying a call that writes safe, which Idempotent (the tool's
	// own nature) says needs no key. Zero: false (keys are passed on in
	// Call.IdempotencyKey and nothing is kept).
	IdempotencyKeys bool `json:"idempotency_keys,omitempty"`
	// Additive: the tool's writes only add (a record appended, a message
	// sent, a file created where there was none); they never overwrite or
	// delete. Exports then call it non-destructive (MCP's destructiveHint
	// false). Zero: false, so a tool with write or process effects is
	// destructive, as MCP assumes; process effects stay destructive.
	Additive bool `json:"additive,omitempty"`
	// Tags: free words for filtering. Zero: none.
	Tags []string `json:"tags,omitempty"`
	// Version of the tool, a semantic version (1.4.0, 2.0.0-rc.1; Register
	// refuses another). Zero: unversioned.
	Version string `json:"version,omitempty"`
	// Confine, when set, runs every call in a confined child process with
	// these capabilities (see Confinement). Zero: in process.
	Confine *Confinement `json:"confine,omitempty"`
}

// EffectiveSafety resolves SafetyAuto from the effects.
func (m *Meta) EffectiveSafety() Safety {
	if s := m.Safety.canonical(); s != SafetyAuto {
		return s
	}
	switch {
	case m.Effects&EffectProcess != 0:
		return SafetyHigh
	case m.Effects&(EffectWrite|EffectNetwork|EffectFilesystem) != 0:
		return SafetyMedium
	}
	return SafetyLow
}

// NeedsConsent reports whether a call must carry consent: declared, high
// risk (Safety), or write/process effects.
func (m *Meta) NeedsConsent() bool {
	return m.Consent || m.EffectiveSafety() == SafetyHigh || m.Effects&(EffectWrite|EffectProcess) != 0
}

// allowsOrigin reports whether o may call the tool: Origins is empty
// (every origin may) or holds o.
func (m *Meta) allowsOrigin(o Origin) bool {
	if len(m.Origins) == 0 {
		return true
	}
	for _, a := range m.Origins {
		if a == o {
			return true
		}
	}
	return false
}

// check puts m's names in the form Register stores (canonical), and
// returns the contradictions in m, as the fixes to make.
func (m *Meta) check() []string {
	m.Concurrency, m.Safety = m.Concurrency.canonical(), m.Safety.canonical()
	var p []string
	if c := m.Concurrency; c != Exclusive && c != ReadOnly && c != MainThread {
		p = append(p, fmt.Sprintf("Meta.Concurrency %q is unknown: use Exclusive, ReadOnly or MainThread (exclusive, read_only or main_thread)", c))
	}
	if m.Safety.rank() < 0 {
		p = append(p, fmt.Sprintf("Meta.Safety %q is unknown: use SafetyLow, SafetyMedium or SafetyHigh (low, medium or high)", m.Safety))
	}
	if m.Safety == SafetyLow && m.Effects&(EffectWrite|EffectProcess) != 0 {
		p = append(p, fmt.Sprintf("Meta.Safety is low but Meta.Effects has %s: declare SafetyMedium or higher (or leave Safety zero to derive it)", (m.Effects&(EffectWrite|EffectProcess)).String()))
	}
	if m.Concurrency == ReadOnly && m.Effects&(EffectWrite|EffectProcess) != 0 {
		p = append(p, fmt.Sprintf("Meta.Concurrency is ReadOnly but Meta.Effects has %s: a read-only tool cannot change state; use Exclusive", (m.Effects&(EffectWrite|EffectProcess)).String()))
	}
	if m.Confine != nil && m.Concurrency == MainThread {
		p = append(p, "Meta.Confine with MainThread: a confined tool runs in a child process, never on the host's main thread; drop one")
	}
	if m.Confine != nil {
		for _, x := range m.Confine.Exec {
			if !strings.HasPrefix(x, "/") {
				p = append(p, fmt.Sprintf("Meta.Confine.Exec has %q: programs are absolute paths", x))
			}
		}
		l := m.Confine.Limits
		if negativeLimits(l) {
			p = append(p, fmt.Sprintf("Meta.Confine.Limits has a negative limit (%+v): limits are 0 (the default) or more", l))
		}
	}
	if len(m.Resources) > 0 && m.Concurrency != Exclusive {
		p = append(p, fmt.Sprintf("Meta.Resources only applies to Exclusive tools, but Concurrency is %s: drop the resources or make the tool Exclusive", m.Concurrency))
	}
	if m.Parallel < 0 {
		p = append(p, fmt.Sprintf("Meta.Parallel is %d: it is 0 (one call at a time) or more", m.Parallel))
	}
	if m.Parallel > 1 && m.Concurrency != Exclusive {
		p = append(p, fmt.Sprintf("Meta.Parallel only applies to Exclusive tools, but Concurrency is %s: drop it or make the tool Exclusive", m.Concurrency))
	}
	for _, r := range m.Resources {
		if strings.TrimSpace(r) == "" {
			p = append(p, "Meta.Resources has an empty key: name the resource (e.g. \"kv\")")
		}
	}
	if m.Timeout < 0 {
		p = append(p, fmt.Sprintf("Meta.Timeout %v is negative: use 0 for the configured default", m.Timeout))
	}
	switch r := m.Rate; {
	case r.PerMinute < 0 || r.Burst < 0:
		p = append(p, fmt.Sprintf("Meta.Rate %+v is negative: use the zero Rate for unlimited", r))
	case math.IsNaN(r.PerMinute) || math.IsInf(r.PerMinute, 0):
		p = append(p, fmt.Sprintf("Meta.Rate.PerMinute is %v: give a finite number, or zero for unlimited", r.PerMinute))
	case r.PerMinute == 0 && (r.Burst != 0 || r.Key != ""):
		p = append(p, "Meta.Rate has a Burst or Key but no PerMinute, so it limits nothing: set PerMinute, or leave the Rate zero for unlimited")
	}
	if v := checkVersion(m.Version); v != "" {
		p = append(p, v)
	}
	for _, o := range m.Origins {
		if !validOrigin(string(o)) {
			p = append(p, fmt.Sprintf("Meta.Origins has %q: origins are lower-case identifiers such as app, ui, llm, system", o))
		}
	}
	return p
}

func validOrigin(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
