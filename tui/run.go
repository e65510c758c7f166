package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// runPhase is where the run screen is: editing the arguments, waiting for
// the call, or showing its result.
type runPhase int

const (
	phaseEditing runPhase = iota
	phaseRunning
	phaseResult
)

// runScreen edits a tool's arguments, runs it and shows the result.
type runScreen struct {
	c      *common
	keys   runKeys
	tool   tooling.Tool
	editor argsEditor
	note   string // why the arguments are edited as raw JSON, if the form failed
	phase  runPhase
	errMsg string // the last problem with the arguments or the call

	// The call followed: in flight while phaseRunning (c.runOf(seq)),
	// shown while phaseResult. Other calls may run in the background.
	seq  int
	args json.RawMessage

	result   *tooling.Result
	finished time.Time // when the result came: a retry-after counts down from it
	out      *viewer.Model
	w, h     int

	// drafts are the editors of the other tools opened this session, with
	// what was typed in them.
	drafts map[string]draft

	// idem is the idempotency key of a tool that takes keys, with the keys
	// typed for each tool (kept for a retry); pre is the preflight of the
	// arguments as they are edited (runpreflight.go).
	idem     textinput.Model
	idemKeys map[string]string
	pre      preflight
}

// draft is a tool's arguments editor kept while another tool is open.
type draft struct {
	editor argsEditor
	note   string
}

func newRunScreen(c *common) *runScreen {
	return &runScreen{c: c, keys: newRunKeys(&c.global), out: viewer.New(c.styles.viewer), drafts: make(map[string]draft),
		idem: newIdemInput(c), idemKeys: make(map[string]string)}
}

// busy reports whether the screen follows a call in flight.
func (r *runScreen) busy() bool { return r.phase == phaseRunning }

// cur is the call followed, nil when none.
func (r *runScreen) cur() *activeRun { return r.c.runOf(r.seq) }

// follow shows the call a of tool t in flight.
func (r *runScreen) follow(t tooling.Tool, a *activeRun) tea.Cmd {
	cmd := r.setTool(t, nil)
	r.seq, r.args, r.phase = a.seq, a.args, phaseRunning
	return cmd
}

// setTool prepares the screen for t: a new editor unless t is already
// loaded, args in it when given, and the editing phase.
func (r *runScreen) setTool(t tooling.Tool, args json.RawMessage) tea.Cmd {
	var cmd tea.Cmd
	if r.tool.Name != t.Name {
		r.idem.SetValue(r.idemKeys[t.Name])
		r.idem.Blur()
		r.stopExplain()
		r.pre.res, r.pre.notJSON = nil, ""
	}
	if r.editor == nil || r.tool.Name != t.Name {
		if r.editor != nil { // the draft of the tool left, for when it comes back
			r.drafts[r.tool.Name] = draft{editor: r.editor, note: r.note}
		}
		r.tool = t
		if d, ok := r.drafts[t.Name]; ok {
			r.editor, r.note = d.editor, d.note
			r.editor.SetSize(r.w, r.editorHeight())
		} else {
			r.note = ""
			ed, err := r.c.newEditor(t.Name, inputSchema(t), r.w, r.editorHeight())
			if err != nil {
				r.note = err.Error() + " (editing raw JSON)"
				ed = newRawEditor(r.c.styles, inputSchema(t), r.w, r.editorHeight())
			}
			r.editor = ed
			cmd = ed.Init()
		}
	}
	r.phase, r.errMsg, r.result = phaseEditing, "", nil
	r.editor.SetErrors(nil)
	if args != nil {
		if err := r.editor.SetValue(args); err != nil {
			r.errMsg = "these arguments do not fit the form: " + err.Error()
		}
	}
	r.sizeEditor()
	return tea.Batch(cmd, r.changed())
}

func (r *runScreen) Title() string { return "Run " + r.tool.Name }

// Typing: while editing, as long as the editor's focus takes text or the
// editor takes every key (an open picker): q, ?, H and B are then the
// editor's.
func (r *runScreen) Typing() bool {
	if r.phase == phaseResult {
		return r.out.Typing()
	}
	return r.phase == phaseEditing && (r.idem.Focused() || r.editor != nil && (r.editor.InputFocused() || r.editor.Capturing()))
}

func (r *runScreen) KeyMap() help.KeyMap {
	k := r.keys
	k.phase, k.editor, k.searching, k.line = r.phase, r.editor, r.out.Typing(), r.out.LineHelp()
	k.IdemKey.SetEnabled(r.takesKeys())
	k.idemFocused = r.idem.Focused()
	return k
}

func (r *runScreen) SetSize(w, h int) {
	r.w, r.h = w, h
	r.sizeEditor()
	r.idem.SetWidth(max(r.editorWidth()-len(r.idem.Prompt)-2, 10))
	r.out.SetSize(w, max(h-2, 1))
	if r.phase == phaseResult && r.result != nil {
		head, tail := resultFrame(r.c.styles, r.framed(safeResult(r.result)), w)
		r.out.SetFrame(head, tail)
	}
}

// editorHeight leaves room for the title, the note, the idempotency key,
// the preflight and the error line.
func (r *runScreen) editorHeight() int {
	h := r.h - 5
	if r.takesKeys() {
		h--
	}
	if !r.side() && r.stepsShown() {
		h -= r.stepsBelow()
	}
	return max(h, 3)
}

// side reports whether the preflight's steps go beside the form, not
// below it.
func (r *runScreen) side() bool { return r.w >= runSideWidth }

// stepsShown reports whether the preflight's steps are shown: beside the
// form on a wide terminal, below it on a narrow one, where the key that
// toggles them shows them.
func (r *runScreen) stepsShown() bool { return r.side() != r.pre.toggled }

// editorWidth is the form's width: the preflight takes a column of wide
// terminals.
func (r *runScreen) editorWidth() int {
	if r.side() && r.stepsShown() {
		return r.w - preflightWidth - 2
	}
	return r.w
}

// stepsBelow is how many lines the steps take below a narrow form.
func (r *runScreen) stepsBelow() int { return min(max(len(r.pre.steps()), 1), max(r.h/3, 3)) }

func (r *runScreen) sizeEditor() {
	if r.editor != nil {
		r.editor.SetSize(r.editorWidth(), r.editorHeight())
	}
}

func (r *runScreen) Show() tea.Cmd { return nil }

func (r *runScreen) Hide() {}

func (r *runScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case startRunMsg:
		if msg.tool == r.tool.Name && !r.busy() {
			return r.startWith(msg.args, msg.consent, msg.session)
		}
		return nil
	case runDoneMsg:
		if msg.seq == r.seq && r.busy() {
			r.finish(msg.result)
			return r.retryTick()
		}
		return nil
	case explainTickMsg:
		return r.explain(msg.gen)
	case explainDoneMsg:
		r.explained(msg)
		if !r.side() && r.stepsShown() {
			r.sizeEditor() // the steps below the form may be more or fewer
		}
		return nil
	case retryTickMsg:
		if msg.seq == r.seq && r.phase == phaseResult {
			head, tail := resultFrame(r.c.styles, r.framed(safeResult(r.result)), r.w)
			r.out.SetFrame(head, tail)
			return r.retryTick()
		}
		return nil
	case tea.KeyPressMsg:
		switch r.phase {
		case phaseEditing:
			return r.updateEditing(msg)
		case phaseRunning:
			switch {
			case key.Matches(msg, r.keys.Cancel):
				if a := r.cur(); a != nil {
					a.stop()
				}
			case key.Matches(msg, r.keys.Background):
				// Back to the screen below; the call goes on, and its end is
				// a notification.
				r.phase = phaseEditing
				return tea.Batch(backCmd, statusCmd(fmt.Sprintf("call %d of %s runs in the background: %s lists the running calls", r.seq, r.tool.Name, keyName(r.c.global.Runs)), false))
			}
			return nil
		default:
			return r.updateResult(msg)
		}
	}
	if r.phase == phaseResult { // the wheel, pastes, the viewer's own messages
		cmd, _ := r.out.Update(msg)
		return cmd
	}
	if _, paste := msg.(tea.PasteMsg); paste && r.phase == phaseEditing {
		if r.idem.Focused() {
			var cmd tea.Cmd
			r.idem, cmd = r.idem.Update(msg)
			r.idemKeys[r.tool.Name] = r.idem.Value()
			return tea.Batch(cmd, r.changed())
		}
		if r.editor != nil {
			return tea.Batch(r.editor.Update(msg), r.changed())
		}
	}
	if r.phase == phaseEditing && r.editor != nil {
		return r.editor.Update(msg)
	}
	return nil
}

// updateEditing gives the editor every key but esc, which goes back unless
// the editor captures it, and runs the call when the editor submits.
func (r *runScreen) updateEditing(msg tea.KeyPressMsg) tea.Cmd {
	if r.idem.Focused() {
		return r.updateIdem(msg)
	}
	if !r.editor.Capturing() {
		switch {
		case key.Matches(msg, r.keys.Back):
			return backCmd
		case key.Matches(msg, r.keys.IdemKey) && r.takesKeys():
			return r.idem.Focus()
		case key.Matches(msg, r.keys.SaveForm):
			args, err := r.editor.Value()
			if err != nil {
				r.errMsg = "not saved: " + err.Error()
				return nil
			}
			return saveCallPrompt(r.c, &callRecord{tool: r.tool.Name, args: compactJSON(args), idemKey: r.idemKey()})
		case key.Matches(msg, r.keys.Preflight):
			r.pre.toggled = !r.pre.toggled
			r.sizeEditor()
			r.idem.SetWidth(max(r.editorWidth()-len(r.idem.Prompt)-2, 10))
			return nil
		}
	}
	cmd := r.editor.Update(msg)
	if r.editor.Submitted() {
		// The editor's own submit message is not needed: the call starts now.
		return r.submit()
	}
	r.errMsg = ""
	return tea.Batch(cmd, r.changed())
}

// updateResult gives the output viewer the keys it knows; e, r and esc
// (h, left) are the run screen's.
func (r *runScreen) updateResult(msg tea.KeyPressMsg) tea.Cmd {
	if r.out.Typing() {
		cmd, _ := r.out.Update(msg)
		return cmd
	}
	k := r.keys
	switch {
	case key.Matches(msg, k.Edit):
		r.phase = phaseEditing
		return r.changed() // the call made may change the preflight (a key taken)
	case key.Matches(msg, k.Again):
		return r.start(r.args, false)
	case key.Matches(msg, k.Save):
		rec := &callRecord{tool: r.tool.Name, args: compactJSON(r.args)}
		if made := r.c.record(r.seq); made != nil {
			rec = made
		}
		return saveCallPrompt(r.c, rec)
	case key.Matches(msg, k.Back, k.Left):
		r.phase = phaseEditing
		return r.changed()
	}
	cmd, _ := r.out.Update(msg)
	return cmd
}

// submit runs the editor's arguments.
func (r *runScreen) submit() tea.Cmd {
	args, err := r.editor.Value()
	if err != nil {
		r.errMsg = err.Error()
		return nil
	}
	return r.start(args, false)
}

// start calls the tool with args, or first asks for consent when the tool
// needs it and consent was not given.
func (r *runScreen) start(args json.RawMessage, consent bool) tea.Cmd {
	return r.startWith(args, consent, false)
}

// startWith is start; session says the person allowed the tool for this
// session, which the registry records through the console's consent
// function (see consoleConsent).
func (r *runScreen) startWith(args json.RawMessage, consent, session bool) tea.Cmd {
	// The {{variable}} references are filled from the environment chosen;
	// the call's record keeps them as written.
	sent, err := r.c.vars.Expand(args)
	if err != nil {
		r.phase = phaseEditing
		r.errMsg = strings.TrimPrefix(err.Error(), "collection: ") + " (V chooses an environment)"
		return nil
	}
	needs := r.tool.Meta.NeedsConsent()
	if !consent && needs && r.c.sessionConsent[sessionKey{r.tool.Name, r.c.origin, r.c.principal.Subject, r.c.principal.Tenant}] {
		consent = true // allowed earlier for this session
	} else if !consent && r.c.asksConsent(&r.tool) {
		// Arguments the call would refuse are shown first: consent is asked
		// for a call that can run.
		if fields, err := r.c.reg.ValidateArgs(r.tool.Name, sent); err == nil && len(fields) > 0 {
			r.phase = phaseEditing
			r.errMsg = "validation_error: " + plural(len(fields), "argument") + " to fix before consent is asked"
			r.editor.SetErrors(fields)
			return nil
		}
		var forSession tea.Msg
		if needs {
			forSession = startRunMsg{tool: r.tool.Name, args: args, consent: true, session: true}
		}
		return confirmCmd("Run "+r.tool.Name+"?", consentQuestion(r.c, &r.tool), args,
			startRunMsg{tool: r.tool.Name, args: args, consent: true}, forSession)
	}
	a, cmd := r.c.startRun(&r.tool, args, sent, consent, session, r.idemKey())
	r.seq, r.args = a.seq, args
	r.phase, r.errMsg, r.result = phaseRunning, "", nil
	r.editor.SetErrors(nil)
	return cmd
}

// consentAnswer is the context key under which a call carries the
// person's answer in the consent dialog to consoleConsent.
type consentAnswer struct{}

// consoleConsent is the consent function the console gives its registry:
// it answers with what the person chose in the dialog for this call, and
// denies calls that carry no choice.
func consoleConsent(ctx context.Context, _ tooling.ConsentRequest) (tooling.ConsentDecision, error) {
	d, _ := ctx.Value(consentAnswer{}).(tooling.ConsentDecision)
	return d, nil
}

// consentQuestion says what the person consents to; the dialog shows the
// arguments under it.
func consentQuestion(c *common, t *tooling.Tool) string {
	m := &t.Meta
	var b strings.Builder
	fmt.Fprintf(&b, "%s has %s effects at %s risk", t.Name, m.Effects, m.EffectiveSafety())
	switch {
	case m.Consent:
		b.WriteString(" and asks for consent.")
	case m.NeedsConsent():
		b.WriteString(" and needs consent.")
	default:
		b.WriteString("; the config asks before every tool with side effects.")
	}
	if p, err := c.reg.Policy(t.Name); err == nil {
		fmt.Fprintf(&b, "\nTimeout: %v", p.Timeout)
	}
	return b.String()
}

// finish shows the result of the call in flight. Validation errors go back
// to the editor, on the fields they concern.
func (r *runScreen) finish(res *tooling.Result) {
	r.result = res
	if res.Code == codes.ValidationError {
		r.phase = phaseEditing
		r.errMsg = termtext.Line(res.Message)
		if n := len(res.Fields); n > 0 && res.Fields[0].Path != "" {
			where := "marked on the fields"
			if r.editor.Raw() {
				where = "listed with the JSON"
			}
			r.errMsg = "validation_error: " + plural(n, "argument") + " to fix, " + where
			if res.MoreFields > 0 {
				r.errMsg = fmt.Sprintf("validation_error: %s to fix, the first %d %s (config max_field_errors)", plural(n+res.MoreFields, "argument"), n, where)
			}
		}
		fields := slices.Clone(res.Fields)
		for i := range fields {
			fields[i].Message = termtext.Line(fields[i].Message) // the path must still match a field
		}
		r.editor.SetErrors(fields)
		return
	}
	r.phase, r.finished = phaseResult, r.c.now()
	res = safeResult(res)
	head, tail := resultFrame(r.c.styles, r.framed(res), r.w)
	out, fields := shownOutput(res)
	r.out.SetOutput(out, fields, head, tail)
}

// shownOutput is the output a result shows: the tool's output, or for
// output_invalid the output that failed its schema with the failing fields.
func shownOutput(res *tooling.Result) (json.RawMessage, []tooling.FieldError) {
	if res.Code == codes.OutputInvalid && len(res.InvalidOutput) > 0 {
		return res.InvalidOutput, res.Fields
	}
	return res.Output, nil
}

// retryTickMsg redraws the retry-after countdown of call seq.
type retryTickMsg struct{ seq int }

// retryLeft is how long until the call refused with a retry-after may be
// made again; 0 when it may, or when the result has none.
func (r *runScreen) retryLeft() time.Duration {
	if r.result == nil || r.result.RetryAfter <= 0 {
		return 0
	}
	return max(r.result.RetryAfter-r.c.now().Sub(r.finished), 0)
}

// retryTick asks for a redraw of the countdown in a second, while there
// is one.
func (r *runScreen) retryTick() tea.Cmd {
	if r.retryLeft() <= 0 {
		return nil
	}
	seq := r.seq
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return retryTickMsg{seq: seq} })
}

// framed is the result as its frame shows it: the wait a rate limit's
// message names counts down with the retry line, where it stayed at the
// wait of the moment the call was refused.
func (r *runScreen) framed(res *tooling.Result) *tooling.Result {
	if res.RetryAfter <= 0 {
		return res
	}
	msg, ok := strings.CutSuffix(res.Message, ": retry in "+res.RetryAfter.Round(time.Millisecond).String())
	if !ok {
		return res
	}
	live := *res
	live.Message = msg + ": " + r.retryLine()
	return &live
}

// retryLine counts down the retry-after of a refused call.
func (r *runScreen) retryLine() string {
	if r.result == nil || r.result.RetryAfter <= 0 {
		return ""
	}
	if left := r.retryLeft(); left > 0 {
		return "retry in " + left.Round(time.Second).String()
	}
	return "the limit allows a call again: " + keyName(r.keys.Again) + " runs it again"
}

func (r *runScreen) View() string {
	st := r.c.styles
	var b strings.Builder
	title := st.Title.Render("Run " + r.tool.Name)
	if r.tool.Title != "" {
		title += st.Subtle.Render(" · " + termtext.Line(r.tool.Title))
	}
	if r.c.asksConsent(&r.tool) {
		title += "  " + st.BadgeConsent.Render("asks consent")
	}
	title += originNote(r.c, r.tool.Name)
	switch r.phase {
	case phaseEditing:
		mode := "form"
		if r.editor.Raw() {
			mode = "raw JSON"
		}
		b.WriteString(title + "  " + st.Faint.Render("arguments: "+mode))
		b.WriteByte('\n')
		if r.note != "" {
			b.WriteString(st.Warn.Render(cut(r.note, r.w)))
		}
		b.WriteByte('\n')
		if r.takesKeys() {
			b.WriteString(r.idemLine() + "\n")
		}
		b.WriteString(r.editingBody())
		b.WriteString("\n" + cut(r.preflightSummary(), r.w))
		if r.errMsg != "" {
			b.WriteByte('\n')
			b.WriteString(st.Err.Render(ansi.Wrap(r.errMsg, max(r.w, 20), "")))
		}
	case phaseRunning:
		b.WriteString(title)
		b.WriteString("\n\n")
		b.WriteString(r.runningView())
	default:
		b.WriteString(resultHeader(st, r.result))
		b.WriteString("\n")
		line := r.retryLine()
		if line == "" {
			line = r.out.ModeLine()
		}
		b.WriteString(st.Subtle.Render(line))
		b.WriteString("\n")
		b.WriteString(r.out.View())
	}
	return b.String()
}

func (r *runScreen) runningView() string {
	st := r.c.styles
	a := r.cur()
	if a == nil {
		return ""
	}
	now := r.c.now()
	state, wait := a.state(), "no queue wait"
	switch {
	case a.queued && a.waiting:
		wait = "queue wait " + formatDuration(a.wait(now))
	case a.queued:
		wait = "no queue wait so far"
	case a.waited:
		wait = "queue wait ≈" + formatDuration(a.queueWait)
	}
	line := fmt.Sprintf("%s %s %s · %s", r.c.spin.View(), state, formatDuration(a.elapsed(now)), wait)
	if p, err := r.c.reg.Policy(r.tool.Name); err == nil {
		line += " · timeout " + p.Timeout.String()
	}
	var b strings.Builder
	b.WriteString(line)
	if a.waitingOn != "" {
		b.WriteString("\n  " + st.Subtle.Render(a.waitingOn))
	}
	if p := a.progressLine(); p != "" {
		b.WriteString("\n  " + st.Subtle.Render("progress "+p))
	}
	b.WriteString("\n\n" + st.Faint.Render(keyName(r.keys.Cancel)+" cancels the call · "+keyName(r.keys.Background)+" goes back and leaves it running · "+keyName(r.c.global.Board)+" shows governance"))
	b.WriteString("\n\n" + st.Label.Render("arguments ") + string(compactJSON(r.args)))
	return b.String()
}

// resultHeader is the one-line summary of a result.
func resultHeader(st *styles, res *tooling.Result) string {
	if res == nil {
		return ""
	}
	var status string
	switch res.Status {
	case "ok":
		status = st.OK.Render("✓ ok")
	case "denied":
		status = st.Err.Render("⊘ denied " + string(res.Code))
	default:
		status = st.Err.Render("✗ error " + string(res.Code))
	}
	if res.Replayed {
		// The outcome of an earlier call with the same idempotency key: the
		// tool did not run.
		status += st.Warn.Render(" ↺ replayed")
	}
	parts := []string{status, res.Tool, "call " + res.CallID, "wait " + formatDuration(res.Wait), "run " + formatDuration(res.Run)}
	if res.Timeout > 0 {
		parts = append(parts, "timeout "+res.Timeout.String())
	}
	return strings.Join(parts, st.Faint.Render(" · "))
}

// resultFrame is the text the output viewer shows around the output,
// wrapped to w: what went wrong and the "Output" heading before it, the
// plan and the governance decisions after it.
func resultFrame(st *styles, res *tooling.Result, w int) (head, tail []string) {
	// Wrapped once, at the width the lines get below.
	h, t := resultSections(st, res, max(w-2, 1))
	if out, _ := shownOutput(res); len(out) > 0 {
		if h != "" {
			h += "\n\n"
		}
		if blocks := viewer.ContentLines(out, w); blocks != nil {
			h += st.Label.Render("Content") + st.Subtle.Render(fmt.Sprintf(" (%s from the MCP server)", plural(len(blocks), "block"))) +
				"\n  " + strings.Join(blocks, "\n  ") + "\n\n"
		}
		h += st.Label.Render("Output")
		if res.Code == codes.OutputInvalid {
			h += st.Subtle.Render(" (✗ marks what does not match the output schema)")
		}
	}
	if out, _ := shownOutput(res); t != "" && (h != "" || len(out) > 0) {
		t = "\n" + t
	}
	if h != "" {
		head = wrapLines(h, max(w-2, 1))
	}
	if t != "" {
		tail = wrapLines(t, max(w-2, 1))
	}
	return head, tail
}

// resultSections are the parts of a result before its output (what went
// wrong and how to fix it) and after it (the plan and the governance
// decisions).
func resultSections(st *styles, res *tooling.Result, w int) (head, tail string) {
	var b strings.Builder
	wrap := func(s string) string { return ansi.Wrap(s, max(w, 20), "") }
	section := func(name string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(st.Label.Render(name))
		b.WriteByte('\n')
	}
	if !res.OK() {
		b.WriteString(st.Err.Render(wrap(string(res.Code) + ": " + res.Message)))
		if res.Hint != "" {
			b.WriteString("\n" + st.Warn.Render(wrap("hint: "+res.Hint)))
		}
		if res.Abandoned && res.Hint == "" {
			b.WriteString("\n" + st.Subtle.Render("the tool still runs: it is counted as abandoned until it returns"))
		}
		if len(res.Fields) > 0 {
			section("Fields")
			for i, f := range res.Fields {
				if i > 0 {
					b.WriteByte('\n')
				}
				b.WriteString("  " + wrap(f.String()))
			}
			if res.MoreFields > 0 {
				b.WriteString("\n  " + st.Subtle.Render(fmt.Sprintf("... and %d more (config max_field_errors)", res.MoreFields)))
			}
		}
		if res.Stack != "" {
			section("Stack")
			b.WriteString(st.Subtle.Render(strings.TrimRight(res.Stack, "\n")))
		}
	}
	head = b.String()
	b.Reset()
	if len(res.Plan) > 0 {
		section("Follow-up plan")
		b.WriteString(highlightJSON(st, res.Plan))
	}
	if len(res.Governance) > 0 {
		section("Governance")
		for i, d := range res.Governance {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString("  " + pad(d.Step, 13) + d.Detail)
		}
	}
	return head, b.String()
}
