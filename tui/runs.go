package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history/collection"
	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// activeRun is a call started from the console: in flight until its
// result comes. Several run at once; the run screen follows one of them,
// the runs panel (R) lists them all.
type activeRun struct {
	seq       int
	tool      string
	main      bool // the tool runs on the main thread
	args      json.RawMessage
	cancel    context.CancelFunc
	canceling bool
	started   time.Time
	queued    bool          // not seen running yet
	waiting   bool          // waiting now for a slot, a lock or the main thread
	waited    bool          // seen waiting at least once
	queueWait time.Duration // how long it waited, once it runs
	waitingOn string        // what it waits for, when known
	// progress is the tool's last progress report; the tool's goroutine
	// stores it, Update and View read it.
	progress atomic.Pointer[tooling.Progress]
	result   *tooling.Result // nil while it runs
	ended    time.Time
}

func (a *activeRun) running() bool { return a.result == nil }

// stop cancels the call, once.
func (a *activeRun) stop() {
	if a.running() && a.cancel != nil && !a.canceling {
		a.cancel()
		a.canceling = true
	}
}

// state says where the call is: starting, queued, running, canceling, or
// its outcome once ended.
func (a *activeRun) state() string {
	switch {
	case !a.running():
		return outcome(a.result)
	case a.canceling:
		return "canceling"
	case a.queued && a.waiting:
		return "queued"
	case a.queued:
		return "starting"
	}
	return "running"
}

// elapsed is how long the call has run, or ran.
func (a *activeRun) elapsed(now time.Time) time.Duration {
	if !a.running() {
		return a.result.Wait + a.result.Run
	}
	return now.Sub(a.started)
}

// wait is the call's queue wait: so far while it waits, as measured once
// it runs.
func (a *activeRun) wait(now time.Time) time.Duration {
	switch {
	case !a.running():
		return a.result.Wait
	case a.queued && a.waiting:
		return now.Sub(a.started)
	}
	return a.queueWait
}

// progressLine is the last progress report, "" when none.
func (a *activeRun) progressLine() string {
	p := a.progress.Load()
	if p == nil || !a.running() {
		return ""
	}
	var s string
	switch {
	case p.Total > 0:
		s = fmt.Sprintf("%.0f%% (%g of %g)", 100*p.Done/p.Total, p.Done, p.Total)
	default:
		s = fmt.Sprintf("%g done", p.Done)
	}
	if p.Message != "" {
		s += " · " + termtext.Line(p.Message)
	}
	return s
}

// startRun makes a call of t in the background and returns the command
// that makes it, with the first frame of the spinner when none turns yet.
//
// args are the arguments as written, {{variable}} references and all,
// which the call's record keeps; sent are those the tool gets, the
// references filled from the environment chosen. idemKey is the call's
// idempotency key, "" for none.
func (c *common) startRun(t *tooling.Tool, args, sent json.RawMessage, consent, session bool, idemKey string) (*activeRun, tea.Cmd) {
	seq := c.nextSeq()
	now := c.now()
	env := ""
	if len(collection.Refs(args)) > 0 {
		env = c.env
	}
	c.history = append(c.history, &callRecord{seq: seq, tool: t.Name, args: compactJSON(args), consent: consent, started: now, as: c.origin, idemKey: idemKey, env: env})
	ctx, cancel := context.WithCancel(c.ctx)
	a := &activeRun{seq: seq, tool: t.Name, main: t.Meta.Concurrency == tooling.MainThread, args: args, cancel: cancel, started: now, queued: true}
	opts := []tooling.Option{tooling.WithOrigin(c.origin), tooling.WithPrincipal(c.principal), tooling.WithCallID(c.callID(seq)),
		tooling.WithProgress(func(p tooling.Progress) { a.progress.Store(&p) })}
	if idemKey != "" {
		opts = append(opts, tooling.WithIdempotencyKey(idemKey))
	}
	switch {
	case session && t.Meta.NeedsConsent():
		// No WithConsent: the registry asks the console's consent function,
		// which answers with the person's choice, and keeps it for the session;
		// the console's next calls of the tool from this origin skip the dialog.
		ctx = context.WithValue(ctx, consentAnswer{}, tooling.ConsentSession)
		if c.sessionConsent == nil {
			c.sessionConsent = make(map[sessionKey]bool)
		}
		c.sessionConsent[sessionKey{t.Name, c.origin, c.principal.Subject, c.principal.Tenant}] = true
	case consent:
		opts = append(opts, tooling.WithConsent())
	}
	c.runs = append(c.runs, a)
	cmd := executeCmd(ctx, c.reg, seq, t.Name, sent, opts...)
	if !c.ticking {
		c.ticking = true
		cmd = tea.Batch(cmd, c.spin.Tick)
	}
	return a, cmd
}

// runOf is the call seq, nil when there is none.
func (c *common) runOf(seq int) *activeRun {
	for i := len(c.runs) - 1; i >= 0; i-- {
		if c.runs[i].seq == seq {
			return c.runs[i]
		}
	}
	return nil
}

// running lists the calls in flight, oldest first.
func (c *common) running() []*activeRun {
	var out []*activeRun
	for _, a := range c.runs {
		if a.running() {
			out = append(out, a)
		}
	}
	return out
}

// ended records the result of a call.
func (c *common) ended(seq int, res *tooling.Result) {
	if a := c.runOf(seq); a != nil && a.running() {
		a.result, a.ended = res, c.now()
		if a.cancel != nil {
			a.cancel()
		}
	}
}

// cancelAll cancels every call in flight.
func (c *common) cancelAll() {
	for _, a := range c.runs {
		if a.running() && a.cancel != nil {
			a.cancel()
		}
	}
}

// tick turns the spinner and looks at what each call in flight waits for;
// the ticks stop when none runs.
func (c *common) tick(msg spinner.TickMsg) tea.Cmd {
	run := c.running()
	if len(run) == 0 && c.loading == 0 {
		c.ticking = false
		return nil
	}
	var cmd tea.Cmd
	c.spin, cmd = c.spin.Update(msg)
	if cmd == nil { // a tick of another spinner: this one's goes on
		return nil
	}
	g := c.governance()
	for _, a := range run {
		c.poll(a, &g)
	}
	return cmd
}

// poll updates what a call in flight waits for, from the governance
// picture g: a resource lock it waits for (by call id), or a slot or the
// main thread when its tool waits and none of its calls runs.
func (c *common) poll(a *activeRun, g *tooling.Stats) {
	if !a.queued {
		return
	}
	id := c.callID(a.seq)
	held, lockWait := false, ""
	for _, l := range g.Locks {
		if l.Holder != nil && l.Holder.ID == id {
			held = true
		}
		for _, w := range l.Waiters {
			if w.ID == id && l.Holder != nil {
				lockWait = fmt.Sprintf("waiting for resource %q held by %s (%s)", l.Key, l.Holder.Name, l.Holder.ID)
			}
		}
	}
	ts, ok := toolStats(c.reg, a.tool)
	a.waitingOn = ""
	switch {
	case lockWait != "":
		a.waiting, a.waitingOn = true, lockWait
	case !held && ok && ts.Waiting > 0 && ts.Running == 0:
		a.waiting = true
		switch {
		case a.main && g.MainThread.Current != "":
			a.waitingOn = fmt.Sprintf("waiting for the main thread (running %s, %d queued)", g.MainThread.Current, g.MainThread.QueueDepth)
		case g.Slots.Limit > 0 && g.Slots.Used >= g.Slots.Limit:
			a.waitingOn = fmt.Sprintf("waiting for a slot (%d of %d in use)", g.Slots.Used, g.Slots.Limit)
		}
	case held || ok && ts.Running > 0:
		// Seen running: the queue wait is known to within a spinner frame.
		a.waiting, a.queued = false, false
		if a.waited {
			a.queueWait = c.now().Sub(a.started)
		}
		return
	}
	a.waited = a.waited || a.waiting
}

// followRunMsg opens the run screen on the call seq in flight.
type followRunMsg struct{ seq int }

// runsScreen is the runs panel: every call of this session started from
// the console, the newest first, with their state, elapsed time,
// queue wait and progress. Enter follows one (or opens its result), x
// cancels it.
type runsScreen struct {
	c      *common
	keys   runsKeys
	cursor int
	offset int
	picked int // the call under the cursor: it stays there as rows move
	w, h   int
}

func newRunsScreen(c *common) *runsScreen { return &runsScreen{c: c, keys: newRunsKeys(&c.global)} }

func (s *runsScreen) Title() string       { return "Runs" }
func (s *runsScreen) Typing() bool        { return false }
func (s *runsScreen) KeyMap() help.KeyMap { return s.keys }
func (s *runsScreen) Hide()               {}
func (s *runsScreen) SetSize(w, h int)    { s.w, s.h = w, h; s.clamp() }

func (s *runsScreen) Show() tea.Cmd {
	s.cursor, s.offset, s.picked = 0, 0, 0
	return nil
}

// follow puts the cursor back on the picked call: a call started since
// adds a row above it.
func (s *runsScreen) follow(rows []*activeRun) {
	for i, a := range rows {
		if a.seq == s.picked {
			s.cursor = i
			break
		}
	}
	s.clamp()
}

// rows are the calls listed, the newest first: by number, whether in
// flight or ended, so that no row moves when a call ends.
func (s *runsScreen) rows() []*activeRun {
	out := make([]*activeRun, 0, len(s.c.runs))
	for i := len(s.c.runs) - 1; i >= 0; i-- {
		out = append(out, s.c.runs[i])
	}
	return out
}

func (s *runsScreen) page() int { return max(s.h-2, 1) }

func (s *runsScreen) clamp() {
	n := len(s.c.runs)
	s.cursor = min(max(s.cursor, 0), max(n-1, 0))
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+s.page() {
		s.offset = s.cursor - s.page() + 1
	}
	s.offset = max(min(s.offset, n-s.page()), 0)
}

func (s *runsScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	rows := s.rows()
	s.follow(rows)
	var sel *activeRun
	if s.cursor < len(rows) {
		sel = rows[s.cursor]
	}
	defer func() {
		if s.cursor < len(rows) {
			s.picked = rows[s.cursor].seq
		}
	}()
	switch {
	case key.Matches(k, s.keys.Up):
		s.cursor--
	case key.Matches(k, s.keys.Down):
		s.cursor++
	case key.Matches(k, s.keys.Top):
		s.cursor = 0
	case key.Matches(k, s.keys.Bottom):
		s.cursor = len(rows) - 1
	case key.Matches(k, s.keys.PageUp):
		s.cursor -= s.page()
	case key.Matches(k, s.keys.PageDown):
		s.cursor += s.page()
	case key.Matches(k, s.keys.Back):
		return backCmd
	case sel == nil:
	case key.Matches(k, s.keys.Open):
		if sel.running() {
			return msgCmd(followRunMsg{seq: sel.seq})
		}
		if rec := s.c.record(sel.seq); rec != nil {
			return msgCmd(openCallMsg{rec: rec})
		}
	case key.Matches(k, s.keys.Diff):
		return markOrDiffCmd(s.c, s.c.record(sel.seq), s.keys.Diff)
	case key.Matches(k, s.keys.Cancel):
		if !sel.running() {
			return statusCmd("call "+strconv.Itoa(sel.seq)+" has ended already", true)
		}
		// The row says canceling; its end is the notification. (A status
		// line, made by a command, could come after that notification.)
		sel.stop()
	}
	s.clamp()
	return nil
}

// runsStateWidth is the widest the runs panel's state column grows to, as
// its rows need: a badge with the longest code (✗ sandbox_unavailable)
// fits whole.
const runsStateWidth = 21

func (s *runsScreen) View() string {
	st := s.c.styles
	rows := s.rows()
	s.follow(rows)
	n := len(s.c.running())
	var b strings.Builder
	b.WriteString(st.Title.Render("Runs") + st.Subtle.Render(" · "+plural(n, "call")+" in flight, "+strconv.Itoa(len(rows)-n)+" ended this session"))
	b.WriteByte('\n')
	if len(rows) == 0 {
		b.WriteString(st.Subtle.Render("no calls yet: a call started with ctrl+s shows here; b on its run screen leaves it running"))
		return b.String()
	}
	toolW := 4
	for _, a := range rows {
		toolW = max(toolW, len(a.tool))
	}
	toolW = min(toolW, max(s.w/4, 12))
	const numW, timeW = 4, 8
	stateW := 16
	for _, a := range rows {
		if !a.running() {
			stateW = max(stateW, min(width(outcomeBadge(st, a.result)), runsStateWidth))
		}
	}
	b.WriteString(st.Faint.Render(cut("  "+padLeft("#", numW)+"  "+pad("TOOL", toolW)+"  "+pad("STATE", stateW)+" "+padLeft("ELAPSED", timeW)+" "+padLeft("WAIT", timeW)+"  PROGRESS", s.w)))
	now := s.c.now()
	end := min(s.offset+s.page(), len(rows))
	for i := s.offset; i < end; i++ {
		a := rows[i]
		marker := "  "
		if i == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		state := st.Status.Render(s.c.spin.View() + " " + a.state())
		if !a.running() {
			state = outcomeBadge(st, a.result)
		}
		line := marker + padLeft(strconv.Itoa(a.seq), numW) + "  " + pad(a.tool, toolW) + "  " + pad(state, stateW) + " " +
			padLeft(formatDuration(a.elapsed(now)), timeW) + " " + padLeft(formatDuration(a.wait(now)), timeW) + "  "
		detail := a.progressLine()
		if a.waitingOn != "" && a.running() {
			detail = a.waitingOn
		}
		line += st.Subtle.Render(cut(detail, max(s.w-width(line), 0)))
		b.WriteByte('\n')
		b.WriteString(line)
	}
	return b.String()
}

// runsKeys are the keys of the runs panel.
type runsKeys struct {
	navKeys
	Open   key.Binding
	Cancel key.Binding
	Diff   key.Binding
	Back   key.Binding
	g      *globalKeys
}

func newRunsKeys(g *globalKeys) runsKeys {
	return runsKeys{
		g:       g,
		navKeys: newNavKeys(),
		Open:    bind([]string{"enter"}, "enter", "follow the call (or open its result)"),
		Cancel:  bind([]string{"x"}, "x", "cancel the call"),
		Diff:    bind([]string{"D"}, "D", "compare two calls (D on each)"),
		Back:    bind([]string{"esc"}, "esc", "back"),
	}
}

func (k runsKeys) ShortHelp() []key.Binding {
	return []key.Binding{short(k.Open, "follow"), short(k.Cancel, "cancel"), moveKey(k.Up, k.Down, "move"), k.Back, k.g.short(helpKey, "help")}
}

func (k runsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.navKeys.column(), {k.Open, k.Cancel, k.Diff, k.Back}}
}

var (
	_ help.KeyMap = runsKeys{}
	_ screen      = (*runsScreen)(nil)
)
