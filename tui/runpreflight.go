package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// While the arguments are edited, the run screen shows the preflight of
// the call they would make (tooling.Registry.Explain, as the console's
// principal and origin): each step as would pass, wait, replay or refuse,
// with its code. It is asked once typing pauses (explainDelay), in its own
// goroutine; the answer for older input is dropped, so the latest input
// wins, and a key is never held up by it.

// explainDelay is the pause in typing after which the preflight is asked.
const explainDelay = 150 * time.Millisecond

// preflightWidth is the width of the preflight's column beside the form,
// from runSideWidth columns.
const (
	preflightWidth = 44
	runSideWidth   = 110
)

// preflight is the run screen's last preflight and the one on its way.
type preflight struct {
	gen     int                // of the latest input
	asked   int                // the generation last asked
	pending bool               // an answer for gen is still to come
	res     *tooling.Result    // the answer for asked (nil: none yet)
	notJSON string             // why the arguments are not a call yet
	consent bool               // the console gives consent (its dialog)
	cancel  context.CancelFunc // of the question on its way
	toggled bool               // the steps are shown below a narrow form, hidden beside a wide one
}

// explainTickMsg ends the pause after input gen.
type explainTickMsg struct{ gen int }

// explainDoneMsg brings the preflight of input gen.
type explainDoneMsg struct {
	gen int
	res *tooling.Result
}

// explainTick waits for the pause after input gen; tests replace it.
func explainTick(gen int) tea.Cmd {
	return tea.Tick(explainDelay, func(time.Time) tea.Msg { return explainTickMsg{gen: gen} })
}

// changed notes new input and asks for the preflight once typing pauses.
func (r *runScreen) changed() tea.Cmd {
	if r.editor == nil {
		return nil
	}
	r.pre.gen++
	r.pre.pending = true
	return r.c.explainTimer(r.pre.gen)
}

// explain asks the registry for the preflight of the arguments as they
// are now, in its own goroutine; an older question still running is
// canceled.
func (r *runScreen) explain(gen int) tea.Cmd {
	if gen != r.pre.gen || r.phase != phaseEditing || r.editor == nil {
		return nil // newer input came, or the form is gone
	}
	if r.pre.cancel != nil {
		r.pre.cancel()
		r.pre.cancel = nil
	}
	args, err := r.editor.Value()
	if err != nil {
		r.pre.pending, r.pre.notJSON, r.pre.res = false, err.Error(), nil
		return nil
	}
	if args, err = r.c.vars.Expand(args); err != nil {
		r.pre.pending, r.pre.notJSON, r.pre.res = false, strings.TrimPrefix(err.Error(), "collection: "), nil
		return nil
	}
	r.pre.notJSON = ""
	opts := []tooling.Option{tooling.WithOrigin(r.c.origin), tooling.WithPrincipal(r.c.principal)}
	// The console asks for consent in a dialog before the call, so the call
	// it makes carries it.
	r.pre.consent = r.c.asksConsent(&r.tool)
	if r.pre.consent {
		opts = append(opts, tooling.WithConsent())
	}
	if k := r.idemKey(); k != "" {
		opts = append(opts, tooling.WithIdempotencyKey(k))
	}
	ctx, cancel := context.WithCancel(r.c.ctx)
	r.pre.cancel, r.pre.asked = cancel, gen
	reg, name := r.c.reg, r.tool.Name
	return func() tea.Msg {
		defer cancel()
		res, _ := reg.Explain(ctx, name, args, opts...)
		return explainDoneMsg{gen: gen, res: res}
	}
}

// explained takes the preflight of input gen, unless newer input came.
func (r *runScreen) explained(msg explainDoneMsg) {
	if msg.gen != r.pre.gen {
		return
	}
	r.pre.pending, r.pre.res, r.pre.cancel = false, msg.res, nil
}

// stopExplain cancels the question on its way.
func (r *runScreen) stopExplain() {
	if r.pre.cancel != nil {
		r.pre.cancel()
		r.pre.cancel = nil
	}
	r.pre.gen++ // an answer on its way is for older input
	r.pre.pending = false
}

// preflightStep is one step of a preflight for people.
type preflightStep struct {
	mark, step, detail string
	refuse             bool
}

// steps are the preflight's steps: ✓ would pass, ⋯ would wait, ↺ would
// replay, ✗ would refuse (with its code).
func (p *preflight) steps() []preflightStep {
	if p.res == nil {
		return nil
	}
	var out []preflightStep
	for _, d := range p.res.Governance {
		s := preflightStep{mark: "·", step: d.Step, detail: d.Detail}
		switch {
		case strings.HasPrefix(d.Detail, "would pass: "):
			s.mark, s.detail = "✓", strings.TrimPrefix(d.Detail, "would pass: ")
			if d.Step == "consent" && p.consent {
				s.detail = "asked in a dialog before the call"
			}
		case strings.HasPrefix(d.Detail, "would wait"):
			s.mark, s.detail = "⋯", strings.TrimPrefix(strings.TrimPrefix(d.Detail, "would wait"), ": ")
		case strings.HasPrefix(d.Detail, "would replay"):
			s.mark, s.detail = "↺", strings.TrimPrefix(strings.TrimPrefix(d.Detail, "would replay"), ": ")
		case strings.HasPrefix(d.Detail, "would refuse"):
			s.mark, s.refuse = "✗", true
			s.detail = strings.TrimPrefix(d.Detail, "would refuse ")
			if code, rest, ok := strings.Cut(strings.TrimPrefix(s.detail, "("), "): "); ok && strings.HasPrefix(s.detail, "(") {
				s.detail = code + ": " + rest
			}
		}
		out = append(out, s)
	}
	return out
}

// preflightSummary is the preflight in one line.
func (r *runScreen) preflightSummary() string {
	st := r.c.styles
	p := &r.pre
	who := "as " + string(r.c.origin)
	if r.c.principal.Subject != "" {
		who += " · " + r.c.principal.String()
	}
	head := st.Label.Render("preflight") + st.Faint.Render(" ("+who+"): ")
	switch {
	case p.notJSON != "":
		return head + st.Subtle.Render("the arguments are not a call yet: "+termtext.Line(p.notJSON))
	case p.res == nil:
		return head + st.Subtle.Render("checking…")
	}
	var line string
	res := p.res
	switch {
	case res.Code != "" && res.Code != codes.OK && res.Status != "ok" && !replays(res):
		at := ""
		for _, s := range p.steps() {
			if s.refuse {
				at = " at " + s.step
			}
		}
		line = st.Err.Render("✗ would be refused" + at + " (" + string(res.Code) + ")")
		if res.Message != "" {
			line += st.Subtle.Render(": " + termtext.Line(res.Message))
		}
	case replays(res):
		line = st.Warn.Render("↺ would replay an earlier call with this idempotency key, without running")
	default:
		waits := 0
		for _, s := range p.steps() {
			if s.mark == "⋯" {
				waits++
			}
		}
		line = st.OK.Render("✓ would run")
		if waits > 0 {
			line += st.Warn.Render(" after waiting (" + plural(waits, "step") + ")")
		}
		line += st.Faint.Render(" · " + plural(len(res.Governance), "step") + " checked")
	}
	if p.pending {
		line += st.Faint.Render(" · checking…")
	}
	return head + line
}

// replays reports whether a preflight says an idempotency key would
// replay an earlier call.
func replays(res *tooling.Result) bool {
	for _, d := range res.Governance {
		if strings.HasPrefix(d.Detail, "would replay") {
			return true
		}
	}
	return false
}

// preflightLines are the steps, one a line, w columns wide.
func (r *runScreen) preflightLines(w int) []string {
	st := r.c.styles
	steps := r.pre.steps()
	nameW := 4
	for _, s := range steps {
		nameW = max(nameW, len(s.step))
	}
	nameW = min(nameW, 13)
	var out []string
	for _, s := range steps {
		mark := st.OK.Render(s.mark)
		switch s.mark {
		case "✗":
			mark = st.Err.Render(s.mark)
		case "⋯", "↺":
			mark = st.Warn.Render(s.mark)
		case "·":
			mark = st.Faint.Render(s.mark)
		}
		out = append(out, cut(mark+" "+pad(s.step, nameW)+" "+st.Subtle.Render(termtext.Line(s.detail)), w))
	}
	return out
}

// editingBody is the form, with the preflight's steps beside it (a wide
// terminal) or below it, when they are shown.
func (r *runScreen) editingBody() string {
	ed := r.editor.View()
	if !r.stepsShown() {
		return ed
	}
	st := r.c.styles
	if !r.side() {
		lines := r.preflightLines(r.w)
		if n := r.stepsBelow(); len(lines) > n {
			lines = append(lines[:n-1], st.Faint.Render(cut("… "+plural(len(lines)-n+1, "more step")+" ("+keyName(r.keys.Preflight)+" hides them)", r.w)))
		}
		if len(lines) == 0 {
			lines = []string{st.Subtle.Render("checking…")}
		}
		return ed + "\n" + strings.Join(lines, "\n")
	}
	edW := r.editorWidth()
	panel := append([]string{st.Label.Render("Preflight") + st.Faint.Render(" ("+keyName(r.keys.Preflight)+" hides)")}, r.preflightLines(preflightWidth)...)
	edLines := strings.Split(ed, "\n")
	n := max(len(edLines), len(panel))
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte('\n')
		}
		left := ""
		if i < len(edLines) {
			left = edLines[i]
		}
		right := ""
		if i < len(panel) {
			right = panel[i]
		}
		b.WriteString(pad(left, edW) + "  " + right)
	}
	return b.String()
}

// idemLine is the idempotency key's field, and what it does.
func (r *runScreen) idemLine() string {
	if r.idem.Focused() {
		return r.idem.View()
	}
	st := r.c.styles
	k := keyName(r.keys.IdemKey)
	if v := r.idemKey(); v != "" {
		return st.Label.Render("idempotency key: ") + termtext.Line(v) + st.Faint.Render("  ("+k+" edits; a repeat with it replays)")
	}
	return st.Label.Render("idempotency key: ") + st.Faint.Render("none · "+k+" sets one: a repeat with the same key and arguments replays instead of running")
}

// newIdemInput is the idempotency key's field.
func newIdemInput(c *common) textinput.Model {
	ti := newTextInput(c, "idempotency key: ")
	ti.Placeholder = "none (a key makes a repeat replay instead of running)"
	ti.CharLimit = 256
	return ti
}

// takesKeys reports whether the tool edited takes idempotency keys.
func (r *runScreen) takesKeys() bool { return r.tool.Meta.IdempotencyKeys }

// idemKey is the idempotency key the next call gets, "" for none.
func (r *runScreen) idemKey() string {
	if !r.takesKeys() {
		return ""
	}
	return strings.TrimSpace(r.idem.Value())
}

// setIdemKey puts key in the idempotency key of the tool loaded, as the
// key of a call made again (none clears it).
func (r *runScreen) setIdemKey(key string) {
	r.idem.SetValue(key)
	r.idemKeys[r.tool.Name] = key
}

// updateIdem edits the idempotency key while it has the focus: enter,
// tab, esc or the key that focused it give the focus back to the form;
// ctrl+s runs the call.
func (r *runScreen) updateIdem(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter", "tab", "esc", "shift+tab":
		r.idem.Blur()
		return nil
	}
	switch {
	case key.Matches(msg, r.keys.IdemKey):
		r.idem.Blur()
		return nil
	case msg.String() == "ctrl+s" && r.editor != nil:
		r.idem.Blur()
		return r.submit()
	}
	before := r.idem.Value()
	var cmd tea.Cmd
	r.idem, cmd = r.idem.Update(msg)
	if r.idem.Value() != before {
		r.idemKeys[r.tool.Name] = r.idem.Value()
		return tea.Batch(cmd, r.changed())
	}
	return cmd
}
