package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

// The panes of the detail screen.
const (
	paneOverview = iota
	paneInput
	paneOutput
	paneMCP
	paneOpenAI
	paneAnthropic
	numPanes
)

var paneNames = [numPanes]string{"Overview", "Input", "Output", "MCP", "OpenAI", "Anthropic"}

// detailScreen explains one tool: its description and metadata, whether
// it can run, its policy, its schemas and how it is exported.
type detailScreen struct {
	c    *common
	keys detailKeys
	tool tooling.Tool
	item toolItem
	pane int
	vp   viewport.Model
	w, h int
}

func newDetailScreen(c *common) *detailScreen {
	d := &detailScreen{c: c, keys: newDetailKeys(&c.global), vp: viewport.New()}
	d.vp.SoftWrap = true
	d.vp.KeyMap = viewportKeys()
	return d
}

// viewportKeys are the scrolling keys of every viewport of the console.
func viewportKeys() viewport.KeyMap {
	k := viewport.DefaultKeyMap()
	k.PageDown = key.NewBinding(key.WithKeys("pgdown", "space", "ctrl+d"))
	k.PageUp = key.NewBinding(key.WithKeys("pgup", "ctrl+u"))
	k.HalfPageDown = key.NewBinding(key.WithDisabled())
	k.HalfPageUp = key.NewBinding(key.WithDisabled())
	k.Left = key.NewBinding(key.WithDisabled())
	k.Right = key.NewBinding(key.WithDisabled())
	return k
}

// setTool shows t from its overview.
func (d *detailScreen) setTool(t tooling.Tool) {
	d.tool = t
	d.pane = paneOverview
	d.refresh(true)
}

func (d *detailScreen) Title() string { return d.tool.Name }

func (d *detailScreen) Typing() bool { return false }

func (d *detailScreen) KeyMap() help.KeyMap { return d.keys }

func (d *detailScreen) SetSize(w, h int) {
	d.w, d.h = w, h
	d.vp.SetWidth(w)
	d.vp.SetHeight(max(h-detailHeaderLines, 1))
	d.refresh(false)
}

// detailHeaderLines are the title line, the tabs and a blank line.
const detailHeaderLines = 3

// Show re-checks the tool's availability.
func (d *detailScreen) Show() tea.Cmd {
	d.refresh(false)
	return availabilityCmd(d.c, []string{d.tool.Name})
}

func (d *detailScreen) Hide() {}

// refresh rebuilds the pane's content; top scrolls back to the top.
func (d *detailScreen) refresh(top bool) {
	if d.tool.Name == "" {
		return
	}
	d.item = newToolItem(d.tool, d.c.reg)
	y := d.vp.YOffset()
	d.vp.SetContent(d.content())
	if top {
		d.vp.GotoTop()
	} else {
		d.vp.SetYOffset(y)
	}
}

func (d *detailScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case availabilityMsg, toggledMsg:
		d.refresh(false)
		return nil
	case tea.KeyPressMsg:
		k := d.keys
		switch {
		case key.Matches(msg, k.NextPane):
			d.pane = (d.pane + 1) % numPanes
			d.refresh(true)
			return nil
		case key.Matches(msg, k.PrevPane):
			d.pane = (d.pane + numPanes - 1) % numPanes
			d.refresh(true)
			return nil
		case key.Matches(msg, k.Run):
			return openRunCmd(d.tool.Name, nil, false)
		case key.Matches(msg, k.Toggle):
			return toggleTool(d.c, d.tool.Name, k.Toggle)
		case key.Matches(msg, d.c.global.Back):
			return backCmd
		}
	}
	return d.keys.scroll(&d.vp, msg)
}

func (d *detailScreen) View() string {
	st := d.c.styles
	var b strings.Builder
	title := st.Title.Render(d.tool.Name)
	if d.tool.Title != "" {
		title += st.Subtle.Render(" · " + termtext.Line(d.tool.Title))
	}
	if v := d.tool.Meta.Version; v != "" {
		title += st.Faint.Render(" v" + v)
	}
	b.WriteString(title + "  " + badges(d.c, &d.item))
	b.WriteByte('\n')
	tabs := make([]string, numPanes)
	for i, name := range paneNames {
		if i == d.pane {
			tabs[i] = st.TabActive.Render(name)
		} else {
			tabs[i] = st.TabInactive.Render(name)
		}
	}
	b.WriteString(strings.Join(tabs, st.Faint.Render(" │ ")))
	if pct := d.scrollHint(); pct != "" {
		b.WriteString("  " + st.Faint.Render(pct))
	}
	b.WriteString("\n\n")
	b.WriteString(d.vp.View())
	return b.String()
}

// scrollHint says how far the pane is scrolled, when it does not fit.
func (d *detailScreen) scrollHint() string {
	if d.vp.TotalLineCount() <= d.vp.Height() {
		return ""
	}
	return fmt.Sprintf("%d%%", int(d.vp.ScrollPercent()*100))
}

func (d *detailScreen) content() string {
	st := d.c.styles
	switch d.pane {
	case paneInput:
		return highlightJSON(st, safeJSON(inputSchema(d.tool)))
	case paneOutput:
		if len(d.tool.Output) == 0 {
			return st.Subtle.Render("no output schema: the output is not checked")
		}
		return highlightJSON(st, safeJSON(d.tool.Output))
	case paneMCP, paneOpenAI, paneAnthropic:
		return d.exportPane()
	}
	return d.overview()
}

func inputSchema(t tooling.Tool) json.RawMessage {
	if len(t.Input) == 0 {
		return json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
	}
	return t.Input
}

// overview is the description, the metadata table, the policy, the
// availability and the counters.
func (d *detailScreen) overview() string {
	st := d.c.styles
	t := d.tool
	m := &t.Meta
	var b strings.Builder
	if t.Description != "" {
		b.WriteString(ansi.Wrap(termtext.String(t.Description), max(d.w, 20), ""))
		b.WriteString("\n\n")
	}
	// A value wider than its column wraps at spaces, under itself: the
	// viewport would break it anywhere, words included.
	row := func(label, value string) {
		for i, line := range strings.Split(ansi.Wrap(value, max(d.w-13, 20), ""), "\n") {
			if i == 0 {
				b.WriteString(st.Label.Render(pad(label, 13)))
			} else {
				b.WriteString(strings.Repeat(" ", 13))
			}
			b.WriteString(st.Value.Render(line))
			b.WriteByte('\n')
		}
	}

	// Where the tool comes from, unless it is compiled in.
	switch src := t.Source; {
	case strings.HasPrefix(src, "mcp:"):
		row("Source", "a tool of the MCP server "+strings.TrimPrefix(src, "mcp:")+" (S lists the servers)")
	case strings.HasPrefix(src, "file:"):
		row("Source", "the tools file "+strings.TrimPrefix(src, "file:"))
	case strings.HasPrefix(src, "tools:"):
		row("Source", "the MCP tools/list file "+strings.TrimPrefix(src, "tools:")+", in preview (calls return their arguments)")
	case src != "":
		row("Source", src)
	}
	conc := string(m.Concurrency)
	switch m.Concurrency {
	case tooling.ReadOnly:
		conc += " (runs in parallel with anything)"
	case tooling.MainThread:
		conc += " (one at a time, in order, on the main thread)"
	case tooling.Exclusive:
		conc += " (never overlaps a call sharing a resource)"
	}
	row("Concurrency", conc)
	if m.Concurrency == tooling.Exclusive {
		if len(m.Resources) > 0 {
			row("Resources", strings.Join(m.Resources, ", "))
		} else {
			row("Resources", t.Name+" (its own name)")
		}
	}
	row("Effects", m.Effects.String())
	// Meta.Safety is a level of risk: "high" means risky. People read it
	// as risk, never as "safety", which would read the other way round.
	risk := string(m.EffectiveSafety())
	if m.Safety == tooling.SafetyAuto {
		risk += " (derived from the effects)"
	}
	row("Risk", risk)
	consent := "not required"
	switch {
	case m.Consent:
		consent = "required (declared)"
	case m.NeedsConsent():
		consent = "required (" + m.Effects.String() + " effects at " + string(m.EffectiveSafety()) + " risk)"
	case d.c.asksConsent(&t):
		consent = "asked by the console (config dangerous_tool_confirmation)"
	}
	row("Consent", consent)

	// The rate in force: the declared one as a config override narrows it.
	rate, rateSrc := m.Rate, ""
	if p, err := d.c.reg.Policy(t.Name); err == nil {
		rate = p.Rate
		if decl, now := (tooling.Rate{PerMinute: m.Rate.PerMinute, Burst: m.Rate.Burst}).String(), (tooling.Rate{PerMinute: p.Rate.PerMinute, Burst: p.Rate.Burst}).String(); now != decl {
			rateSrc = " (config override; the tool declares " + decl + ")"
		}
		row("Timeout", fmt.Sprintf("%v (%s)", p.Timeout, p.TimeoutSource))
		if p.Note != "" {
			row("", p.Note)
		}
		if p.Enabled {
			row("Enabled", "yes")
		} else {
			row("Enabled", "no: "+p.DisabledReason)
		}
	}
	rateText := rate.String()
	if rate.PerMinute > 0 { // limited
		k := rate.Key
		if k == "" {
			k = t.Name
		}
		rateText += fmt.Sprintf(" (bucket %q)", k)
	}
	row("Rate", rateText+rateSrc)
	row("Availability", d.availability())
	if len(m.Origins) == 0 {
		row("Origins", "every origin")
	} else {
		names := make([]string, len(m.Origins))
		for i, o := range m.Origins {
			names[i] = string(o)
		}
		row("Origins", strings.Join(names, ", "))
	}
	row("Idempotent", yesNo(m.Idempotent))
	if len(m.Tags) > 0 {
		row("Tags", strings.Join(m.Tags, ", "))
	}
	if m.Version != "" {
		row("Version", m.Version)
	}
	row("Parameters", orNone(strings.Join(paramNames(t.Input), ", ")))
	a := export.Annotations(t)
	var hints []string
	for _, h := range []struct {
		on   bool
		name string
	}{{a.ReadOnlyHint, "read-only"}, {a.DestructiveHint, "destructive"}, {a.IdempotentHint, "idempotent"}, {a.OpenWorldHint, "open world"}} {
		if h.on {
			hints = append(hints, h.name)
		}
	}
	row("MCP hints", orNone(strings.Join(hints, ", ")))
	row("Calls", d.calls())
	return strings.TrimRight(b.String(), "\n")
}

func (d *detailScreen) availability() string {
	a, ok := d.c.avail[d.tool.Name]
	switch {
	case !ok || !a.checked:
		return "checking…"
	case a.code == "":
		return "yes, for origin " + string(d.c.origin)
	}
	return fmt.Sprintf("no (%s): %s", a.code, termtext.Line(a.reason))
}

func (d *detailScreen) calls() string {
	ts, ok := toolStats(d.c.reg, d.tool.Name)
	if !ok || ts.Calls == 0 {
		return "none yet"
	}
	parts := []string{fmt.Sprintf("%d", ts.Calls), fmt.Sprintf("ok %d", ts.OK)}
	names := make([]string, 0, len(ts.Errors))
	for c := range ts.Errors {
		names = append(names, string(c))
	}
	sort.Strings(names)
	for _, c := range names {
		parts = append(parts, fmt.Sprintf("%s %d", c, ts.Errors[codes.Code(c)]))
	}
	parts = append(parts, "last "+formatDuration(ts.Last), "p50 "+formatDuration(ts.P50), "p95 "+formatDuration(ts.P95))
	return strings.Join(parts, " · ")
}

// exportPane previews how the tool is exported in the pane's format.
func (d *detailScreen) exportPane() string {
	st := d.c.styles
	t := d.tool
	var v any
	switch d.pane {
	case paneMCP:
		v = export.MCPTool{Name: t.Name, Title: t.Title, Description: t.Description,
			InputSchema: inputSchema(t), OutputSchema: t.Output, Annotations: export.Annotations(t)}
	case paneOpenAI:
		v = export.OpenAITool{Type: "function", Function: export.OpenAIFunction{
			Name: toolname.Export(t.Name), Description: t.Description, Parameters: modelSchema(inputSchema(t))}}
	default:
		v = export.AnthropicTool{Name: toolname.Export(t.Name), Description: t.Description, InputSchema: modelSchema(inputSchema(t))}
	}
	b, err := jsonenc.Marshal(v)
	if err != nil {
		return st.Err.Render(err.Error())
	}
	var note string
	switch {
	case d.item.disabled:
		note = "left out of exports while disabled"
	case len(t.Meta.Origins) > 0 && !slices.Contains(t.Meta.Origins, tooling.OriginLLM):
		note = "left out of exports: origin llm may not call it"
	}
	out := highlightJSON(st, safeJSON(b))
	if note != "" {
		out = st.Warn.Render(note) + "\n\n" + out
	}
	return out
}

// modelSchema drops "$schema" and "$id" from the root of an input schema,
// as the model exports do, keeping the order of the other members.
func modelSchema(schema json.RawMessage) json.RawMessage {
	props := orderedProperties(schema)
	drop := false
	for _, p := range props {
		drop = drop || p.name == "$schema" || p.name == "$id"
	}
	if !drop {
		return schema
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, p := range props {
		if p.name == "$schema" || p.name == "$id" {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		k, _ := jsonenc.Marshal(p.name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(p.schema)
		n++
	}
	b.WriteByte('}')
	return b.Bytes()
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
