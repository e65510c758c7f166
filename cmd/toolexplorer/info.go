package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/bindings"
	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/policy"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// noArgsSchema is the input schema of a tool that declares none.
var noArgsSchema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)

// toolInfo is everything the command line says about one tool; it is also
// the JSON of list --json and describe --json.
type toolInfo struct {
	Name         string           `json:"name"`
	ExportName   string           `json:"export_name"`
	Title        string           `json:"title"`
	Description  string           `json:"description"`
	Meta         metaInfo         `json:"meta"`
	NeedsConsent bool             `json:"needs_consent"`
	Availability availabilityInfo `json:"availability"`
	Input        json.RawMessage  `json:"input_schema"`
	Output       json.RawMessage  `json:"output_schema,omitempty"`
	// Remote is where a tool of an MCP server (--server, config servers)
	// comes from; nil for the others.
	Remote *remoteInfo `json:"remote,omitempty"`
	// Binding is the binding of a tools file's tool (--tools-dir, config
	// tool_files), credentials as ${NAME}; nil for the others.
	Binding *bindings.Info `json:"binding,omitempty"`
	// Limits and Budgets are the config's limits and budgets that apply
	// to the tool, with what each budget leaves the caller (describe only).
	Limits  []limitInfo         `json:"limits,omitempty"`
	Budgets []policy.BudgetLeft `json:"budgets,omitempty"`

	tool   tooling.Tool
	caller string // who the budgets are for
}

// limitInfo is a limit that applies to a tool.
type limitInfo struct {
	Name      string  `json:"name"`
	Per       string  `json:"per"`
	PerMinute float64 `json:"per_minute"`
	Burst     int     `json:"burst"`
}

// remoteInfo names a remote tool's server and the name the server gives it.
type remoteInfo struct {
	Server string `json:"server"`
	Name   string `json:"name"`
	// Confinement says what a confined server may reach; "" when it runs
	// unconfined.
	Confinement string `json:"confinement,omitempty"`
}

// metaInfo spells out a tool's Meta with its zero values resolved.
type metaInfo struct {
	Concurrency string `json:"concurrency"`
	// Resources are the lock keys of an exclusive tool (its own name when
	// it declares none); empty for other tools.
	Resources []string `json:"resources"`
	Effects   []string `json:"effects"`
	// Safety is the effective risk (Meta.Safety: high is the riskiest);
	// SafetyDeclared is "auto" when derived.
	Safety         string `json:"safety"`
	SafetyDeclared string `json:"safety_declared"`
	Consent        bool   `json:"consent"` // as declared; needs_consent says whether calls need it
	// Timeout is the deadline of a call before the caller's say, and
	// TimeoutSource where it comes from: "tool", "config default" or
	// "config override".
	Timeout       string   `json:"timeout"`
	TimeoutMS     float64  `json:"timeout_ms"`
	TimeoutSource string   `json:"timeout_source"`
	Rate          rateInfo `json:"rate"`
	Origins       []string `json:"origins"` // empty: every origin
	Idempotent    bool     `json:"idempotent"`
	// IdempotencyKeys: the tool takes idempotency keys (a repeat with the
	// key of a call replays it).
	IdempotencyKeys bool     `json:"idempotency_keys"`
	Tags            []string `json:"tags"`
	Version         string   `json:"version"`
	// State is the tool's state (enabled, paused, deprecated), with why
	// and, when deprecated, the tool to use instead.
	State       string    `json:"state"`
	StateReason string    `json:"state_reason,omitempty"`
	Replacement string    `json:"replacement,omitempty"`
	ConfigRate  *rateInfo `json:"config_rate,omitempty"`
	// Protection says how a confined tool that writes keeps protected
	// names (.git, shell start-up files, ...) read-only on this machine:
	// the mode and what it guarantees.
	Protection    string       `json:"protection,omitempty"`
	decl          tooling.Meta // as declared, for the text form
	timeoutText   string
	timeoutIgnore string
	rateText      string // the rate calls are held to, and where it comes from
}

type rateInfo struct {
	Unlimited bool    `json:"unlimited"`
	PerMinute float64 `json:"per_minute,omitempty"`
	Burst     int     `json:"burst,omitempty"`
}

// availabilityInfo says whether a tool can run now for an origin.
type availabilityInfo struct {
	Origin    string `json:"origin"`
	Available bool   `json:"available"`
	Code      string `json:"code,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

// describeTool gathers what a tool declares and what the config and its
// availability check say now. origin is whom to check availability for; ""
// checks for the app, or for the first origin the tool allows when the app
// may not call it.
func describeTool(ctx context.Context, reg *tooling.Registry, cfg config.Config, t tooling.Tool, origin tooling.Origin) toolInfo {
	info := toolInfo{
		Name:         t.Name,
		ExportName:   toolname.Export(t.Name),
		Title:        t.Title,
		Description:  t.Description,
		Meta:         describeMeta(reg, t, cfg),
		NeedsConsent: t.Meta.NeedsConsent(),
		Availability: availability(ctx, reg, t, origin),
		Input:        t.Input,
		Output:       t.Output,
		tool:         t,
	}
	if len(info.Input) == 0 {
		info.Input = noArgsSchema
	}
	return info
}

func availability(ctx context.Context, reg *tooling.Registry, t tooling.Tool, origin tooling.Origin) availabilityInfo {
	if origin == "" {
		origin = tooling.OriginApp
		if len(t.Meta.Origins) > 0 && !slices.Contains(t.Meta.Origins, origin) {
			origin = t.Meta.Origins[0]
		}
	}
	a := availabilityInfo{Origin: string(origin), Available: true}
	if err := reg.Availability(ctx, t.Name, origin); err != nil {
		a.Available = false
		a.Reason = err.Error()
		var te *tooling.Error
		if errors.As(err, &te) {
			a.Code, a.Reason = string(te.Code), te.Message
		}
	}
	return a
}

func describeMeta(reg *tooling.Registry, t tooling.Tool, cfg config.Config) metaInfo {
	m := t.Meta
	mi := metaInfo{
		Concurrency:     string(m.Concurrency),
		Resources:       []string{},
		Effects:         effectNames(m.Effects),
		Safety:          string(m.EffectiveSafety()),
		SafetyDeclared:  string(cmp.Or(m.Safety, tooling.SafetyAuto)),
		Consent:         m.Consent,
		Rate:            rateOf(m.Rate),
		Origins:         []string{},
		Idempotent:      m.Idempotent,
		IdempotencyKeys: m.IdempotencyKeys,
		Tags:            nonNil(append([]string(nil), m.Tags...)),
		Version:         m.Version,
		decl:            m,
	}
	if m.Concurrency == tooling.Exclusive {
		mi.Resources = append(mi.Resources, m.Resources...)
		if len(mi.Resources) == 0 {
			mi.Resources = []string{t.Name}
		}
	}
	for _, o := range m.Origins {
		mi.Origins = append(mi.Origins, string(o))
	}
	pol, err := reg.Policy(t.Name)
	if err != nil {
		pol = tooling.Policy{Timeout: defaultTimeout(cfg), TimeoutSource: "config default"}
	}
	d, src, ignored := pol.Timeout, pol.TimeoutSource, pol.Note
	mi.State, mi.StateReason, mi.Replacement = string(pol.State), pol.StateReason, pol.Replacement
	if mi.State == "" {
		mi.State = string(tooling.StateEnabled)
	}
	mi.Timeout, mi.TimeoutMS, mi.TimeoutSource = d.String(), float64(d.Microseconds())/1000, src
	switch src {
	case "tool":
		mi.timeoutText = d.String()
	case "config override":
		decl := "default (" + defaultTimeout(cfg).String() + ")"
		if m.Timeout > 0 {
			decl = m.Timeout.String()
		}
		mi.timeoutText = fmt.Sprintf("%s (config override; the tool declares %s)", d, decl)
	default:
		mi.timeoutText = "default (" + d.String() + ")"
	}
	mi.timeoutIgnore = ignored
	if ov, ok := cfg.Tools[t.Name]; ok && ov.Rate.PerMinute > 0 {
		r := rateOf(ov.Rate)
		mi.ConfigRate = &r
	}
	mi.rateText = rateText(m.Rate, pol.Rate, cfg.Tools[t.Name].Rate)
	if m.Confine != nil && len(m.Confine.Write) > 0 {
		mode, why := confine.ProtectionMode()
		mi.Protection = mode.String() + " mode: " + mode.Promise()
		if why != "" {
			mi.Protection += " (" + why + ")"
		}
	}
	return mi
}

// effectNames lists the effects one by one (empty for none).
func effectNames(e tooling.Effects) []string {
	if e == 0 {
		return []string{}
	}
	return strings.Split(e.String(), "|")
}

func rateOf(r tooling.Rate) rateInfo {
	if r.PerMinute <= 0 { // unlimited
		return rateInfo{Unlimited: true}
	}
	return rateInfo{PerMinute: r.PerMinute, Burst: max(r.Burst, 1)}
}

// rateText is the rate calls are held to (in force, from the registry's
// policy) and where it comes from: the tool's own (declared), or a config
// override (ov) that narrowed it or that was ignored for not narrowing it.
func rateText(declared, inForce, ov tooling.Rate) string {
	decl := tooling.Rate{PerMinute: declared.PerMinute, Burst: declared.Burst}.String()
	now := tooling.Rate{PerMinute: inForce.PerMinute, Burst: inForce.Burst}.String()
	switch {
	case now != decl:
		return fmt.Sprintf("%s (config override; the tool declares %s)", now, decl)
	case ov.PerMinute > 0 || ov.Burst > 0:
		var set []string
		if ov.PerMinute > 0 {
			set = append(set, fmt.Sprintf("rate_per_minute %g", ov.PerMinute))
		}
		if ov.Burst > 0 {
			set = append(set, fmt.Sprintf("burst %d", ov.Burst))
		}
		return fmt.Sprintf("%s; config %s ignored: overrides never raise the tool's own rate", decl, strings.Join(set, " and "))
	}
	return decl
}

func defaultTimeout(cfg config.Config) time.Duration {
	if cfg.DefaultTimeout > 0 {
		return cfg.DefaultTimeout
	}
	return 30 * time.Second
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// flags are the short marks of the list table.
func (info *toolInfo) flags() []string {
	var f []string
	if info.NeedsConsent {
		f = append(f, "consent")
	}
	if !info.Availability.Available {
		switch codes.Code(info.Availability.Code) {
		case codes.Disabled:
			f = append(f, "disabled")
		case codes.OriginDenied:
			f = append(f, "origin_denied")
		default:
			f = append(f, "unavailable")
		}
	}
	switch tooling.State(info.Meta.State) {
	case tooling.StatePaused:
		f = append(f, "paused")
	case tooling.StateDeprecated:
		f = append(f, "deprecated")
	}
	if len(info.Meta.Origins) > 0 {
		f = append(f, "origins="+strings.Join(info.Meta.Origins, ","))
	}
	if info.tool.Meta.Idempotent {
		f = append(f, "idempotent")
	}
	if info.Binding != nil {
		f = append(f, bindingText(info.Binding))
	}
	return f
}

// prettyJSON indents a JSON document; invalid JSON comes back as it is.
func prettyJSON(raw []byte, indent string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, raw, indent, "  "); err != nil {
		return string(raw)
	}
	return b.String()
}

// writeJSON prints v as indented JSON and a newline.
func (a *app) writeJSON(v any) int {
	b, err := jsonenc.MarshalIndent(v, "", "  ")
	if err != nil {
		a.errorf("cannot encode JSON: %v", err)
		return exitFailed
	}
	b = append(b, '\n')
	if _, err := a.stdout.Write(b); err != nil {
		a.errorf("cannot write output: %v", err)
		return exitFailed
	}
	return exitOK
}
