package tui

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// boardInterval is how often the open board refreshes.
const boardInterval = 100 * time.Millisecond

// budgetTicks is how many ticks of the open board pass between two reads
// of the budgets (a second): they may be kept in a store that other
// processes share, and are read in a command, off the update loop.
const budgetTicks = 10

// Budget is what one budget leaves the principal the console calls as,
// in its current window (Options.Budgets).
type Budget struct {
	Name string
	// Per is "subject" or "tenant"; Who is the subject or tenant counted.
	Per, Who string
	// Window is how long a count lasts; Refill how long until it starts
	// again.
	Window, Refill time.Duration
	Counts         []BudgetCount
}

// BudgetCount is one bounded count of a Budget: What is "calls",
// "bytes_in", "bytes_out" or "cpu_ms". Used may be past Bound: the bytes
// out and CPU time of a call are counted after it ran.
type BudgetCount struct {
	What        string
	Used, Bound int64
}

// boardScreen shows governance live: slots, resource locks, the main
// thread, rate buckets, the budgets of the console's principal and every
// tool's counters. It refreshes every boardInterval while it is on
// screen, and not at all otherwise.
type boardScreen struct {
	c      *common
	keys   boardKeys
	vp     viewport.Model
	stats  tooling.Stats
	shared string // Options.SharedState, read with stats
	gen    int    // bumped by Show and Hide: ticks of an older generation are dropped
	open   bool
	paused bool
	w, h   int

	// budgets are what Options.Budgets read last, for budgetsFor;
	// budgetsErr why it could not. reading is set while a read is in
	// flight; ticks counts the ticks since the last.
	budgets    []Budget
	budgetsFor tooling.Principal
	budgetsErr error
	reading    bool
	ticks      int
}

// budgetsMsg carries what the budgets leave p.
type budgetsMsg struct {
	p    tooling.Principal
	list []Budget
	err  error
}

// readBudgetsCmd reads the budgets of the console's principal, unless a
// read is in flight or there are none to read.
func (b *boardScreen) readBudgetsCmd() tea.Cmd {
	read := b.c.budgets
	if read == nil || b.reading {
		return nil
	}
	b.reading, b.ticks = true, 0
	ctx, p := b.c.ctx, b.c.principal
	if b.budgets == nil && b.budgetsErr == nil {
		b.budgetsFor = p // named while the first read is in flight
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		list, err := read(ctx, p)
		return budgetsMsg{p: p, list: list, err: err}
	}
}

func newBoardScreen(c *common) *boardScreen {
	b := &boardScreen{c: c, keys: newBoardKeys(&c.global), vp: viewport.New()}
	b.vp.KeyMap = viewportKeys()
	b.vp.SoftWrap = true
	return b
}

func (b *boardScreen) Title() string { return "Governance" }

func (b *boardScreen) Typing() bool { return false }

func (b *boardScreen) KeyMap() help.KeyMap { return b.keys }

func (b *boardScreen) SetSize(w, h int) {
	b.w, b.h = w, h
	b.vp.SetWidth(w)
	b.vp.SetHeight(max(h-2, 1))
	b.render()
}

// Show reads the stats and the budgets, and starts the ticks.
func (b *boardScreen) Show() tea.Cmd {
	b.gen++
	b.open = true
	b.refresh()
	read := b.readBudgetsCmd()
	if b.paused {
		return read
	}
	return tea.Batch(boardTickCmd(b.gen), read)
}

// Hide stops the ticks: the one in flight is dropped when it arrives.
func (b *boardScreen) Hide() {
	b.gen++
	b.open = false
}

func (b *boardScreen) refresh() {
	b.stats = b.c.governance()
	if b.c.sharedState != nil {
		b.shared = b.c.sharedState()
	}
	b.render()
}

func (b *boardScreen) render() {
	y := b.vp.YOffset()
	b.vp.SetContent(b.content())
	b.vp.SetYOffset(y)
}

func (b *boardScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case boardTickMsg:
		if msg.gen != b.gen || !b.open || b.paused {
			return nil
		}
		b.refresh()
		var read tea.Cmd
		if b.ticks++; b.ticks >= budgetTicks {
			read = b.readBudgetsCmd()
		}
		return tea.Batch(boardTickCmd(b.gen), read)
	case budgetsMsg:
		b.reading = false
		b.budgets, b.budgetsFor, b.budgetsErr = msg.list, msg.p, msg.err
		b.render()
		return nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, b.keys.Pause):
			b.paused = !b.paused
			if b.paused {
				b.gen++
				b.render()
				return nil
			}
			return b.Show()
		case key.Matches(msg, b.c.global.Back):
			return backCmd
		}
	}
	return b.keys.scroll(&b.vp, msg)
}

func (b *boardScreen) View() string {
	st := b.c.styles
	state := fmt.Sprintf("live, every %v", boardInterval)
	if b.paused {
		state = "paused (p resumes)"
	}
	g := &b.stats
	head := st.Title.Render("Governance") + st.Subtle.Render(" · "+state) +
		st.Faint.Render(fmt.Sprintf(" · in flight %d · abandoned %d", g.InFlight, g.Abandoned))
	return head + "\n\n" + b.vp.View()
}

// content renders the stats; every age is measured from the snapshot's
// own time, so a snapshot always renders the same.
func (b *boardScreen) content() string {
	st := b.c.styles
	g := &b.stats
	var out strings.Builder
	section := func(name string) {
		if out.Len() > 0 {
			out.WriteString("\n\n")
		}
		out.WriteString(st.Label.Render(name))
	}
	line := func(s string) {
		out.WriteString("\n  ")
		out.WriteString(s)
	}
	since := func(t time.Time) string {
		if t.IsZero() || g.Time.IsZero() {
			return ""
		}
		return " for " + formatDuration(g.Time.Sub(t))
	}

	section("Slots")
	limit := "unlimited"
	if g.Slots.Limit > 0 {
		limit = fmt.Sprintf("%d", g.Slots.Limit)
	}
	line(fmt.Sprintf("%d in use of %s · %d waiting", g.Slots.Used, limit, g.Slots.Waiting))

	section("Main thread")
	mt := &g.MainThread
	switch {
	case !mt.Started:
		line("not started (no main-thread call yet)")
	default:
		where := "its own locked thread"
		if mt.OnMainThread {
			where = "the process main thread"
		}
		line(fmt.Sprintf("on %s · queue %d · served %d", where, mt.QueueDepth, mt.Served))
		if mt.Current == "" {
			line("idle")
		} else {
			cur := "running " + mt.Current + since(mt.CurrentSince)
			if mt.Stuck {
				cur += "  " + st.Err.Render("STUCK")
			}
			line(cur)
		}
	}

	section("Resources")
	if len(g.Locks) == 0 {
		line(st.Subtle.Render("none held"))
	}
	for _, l := range g.Locks {
		holder := "free"
		if l.Holder != nil {
			holder = "held by " + l.Holder.Name + " (" + l.Holder.ID + ")" + since(l.HeldSince)
		}
		line(pad(l.Key, 16) + " " + holder)
		if len(l.Waiters) > 0 {
			names := make([]string, len(l.Waiters))
			for i, w := range l.Waiters {
				names[i] = w.Name + " (" + w.ID + ")"
			}
			line(pad("", 16) + " waiting: " + strings.Join(names, ", "))
		}
	}

	section("Rate buckets")
	if len(g.Buckets) == 0 {
		line(st.Subtle.Render("none in use (every tool called so far is unlimited)"))
	}
	for _, bk := range g.Buckets {
		burst := max(bk.Rate.Burst, 1)
		line(fmt.Sprintf("%s %s %4.1f of %d tokens · %g/min", pad(bk.Key, 16), tokenBar(bk.Tokens, burst), bk.Tokens, burst, bk.Rate.PerMinute))
	}

	b.budgetLines(section, line)

	if b.shared != "" {
		section("Shared state")
		line(b.shared)
	}

	section("Tools")
	if len(g.Tools) == 0 {
		line(st.Subtle.Render("no calls yet"))
		return out.String()
	}
	nameW := 4
	for _, t := range g.Tools {
		nameW = max(nameW, len(t.Tool))
	}
	nameW = min(nameW, 28)
	// The registry's quantiles are the upper bounds of histogram buckets
	// (powers of two): shown as such, "≤ 256µs", never as a measurement.
	line(st.Faint.Render(pad("TOOL", nameW) + "  CALLS     OK  RUN PEAK    LAST      P50      P95  ERRORS"))
	for _, t := range g.Tools {
		line(fmt.Sprintf("%s %6d %6d %4d %4d %7s %8s %8s  %s", pad(t.Tool, nameW), t.Calls, t.OK, t.Running, t.Peak,
			formatDuration(t.Last), atMost(t.P50), atMost(t.P95), errorCounts(t.Errors)))
	}
	line(st.Faint.Render("P50, P95: upper bounds (latencies are counted in buckets that double)"))
	return out.String()
}

// budgetLines renders the budgets section: each budget of the console's
// principal with its window and when it refills, and each count with
// what is used and left; nothing without Options.Budgets.
func (b *boardScreen) budgetLines(section, line func(string)) {
	if b.c.budgets == nil {
		return
	}
	st := b.c.styles
	section("Budgets of " + principalText(b.budgetsFor))
	switch {
	case b.budgetsErr != nil:
		line(st.Err.Render("cannot be read: " + b.budgetsErr.Error()))
		return
	case b.budgets == nil && b.reading:
		line(st.Subtle.Render("reading…"))
		return
	case len(b.budgets) == 0:
		line(st.Subtle.Render("none"))
		return
	}
	for _, bg := range b.budgets {
		who := bg.Who
		switch {
		case who == "" && bg.Per == "tenant":
			who = "(none)"
		case who == "":
			who = "anonymous"
		}
		line(fmt.Sprintf("%s %s %s · per %s · refills in %s", pad(bg.Name, 16), bg.Per, who, windowName(bg.Window), formatDuration(bg.Refill.Round(time.Second))))
		for _, c := range bg.Counts {
			left := max(c.Bound-c.Used, 0)
			state := fmt.Sprintf("%d left", left)
			if c.Used > c.Bound {
				state = st.Err.Render(fmt.Sprintf("%d past the budget: calls are refused until it refills", c.Used-c.Bound))
			} else if left == 0 {
				state = st.Warn.Render("spent: calls are refused until it refills")
			}
			line(fmt.Sprintf("  %s %s %d of %d used · %s", pad(strings.ReplaceAll(c.What, "_", " "), 14), fillBar(float64(left)/float64(c.Bound)), c.Used, c.Bound, state))
		}
	}
}

// windowName is a budget's window for people: "minute", "hour", "day",
// else the duration.
func windowName(d time.Duration) string {
	switch d {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case 24 * time.Hour:
		return "day"
	}
	return d.String()
}

// atMost shows a bound: "≤256µs", "—" when nothing ran.
func atMost(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return "≤" + formatDuration(d)
}

// errorCounts lists counts by code, sorted by code.
func errorCounts(m map[codes.Code]uint64) string {
	if len(m) == 0 {
		return "—"
	}
	names := make([]string, 0, len(m))
	for c := range m {
		names = append(names, string(c))
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, c := range names {
		parts[i] = fmt.Sprintf("%s %d", c, m[codes.Code(c)])
	}
	return strings.Join(parts, ", ")
}

// tokenBar draws the tokens left in a bucket, ten cells wide.
func tokenBar(tokens float64, burst int) string { return fillBar(tokens / float64(burst)) }

// fillBar draws a fraction from 0 to 1, ten cells wide.
func fillBar(frac float64) string {
	const cells = 10
	if math.IsNaN(frac) {
		frac = 0
	}
	n := int(frac * cells)
	n = min(max(n, 0), cells)
	return "[" + strings.Repeat("█", n) + strings.Repeat("·", cells-n) + "]"
}
