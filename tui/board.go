package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// boardInterval is how often the open board refreshes.
const boardInterval = 100 * time.Millisecond

// boardScreen shows governance live: slots, resource locks, the main
// thread, rate buckets and every tool's counters. It refreshes every
// boardInterval while it is on screen, and not at all otherwise.
type boardScreen struct {
	c      *common
	keys   boardKeys
	vp     viewport.Model
	stats  tooling.Stats
	gen    int // bumped by Show and Hide: ticks of an older generation are dropped
	open   bool
	paused bool
	w, h   int
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

// Show reads the stats and starts the ticks.
func (b *boardScreen) Show() tea.Cmd {
	b.gen++
	b.open = true
	b.refresh()
	if b.paused {
		return nil
	}
	return boardTickCmd(b.gen)
}

// Hide stops the ticks: the one in flight is dropped when it arrives.
func (b *boardScreen) Hide() {
	b.gen++
	b.open = false
}

func (b *boardScreen) refresh() {
	b.stats = b.c.governance()
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
		return boardTickCmd(b.gen)
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

// atMost shows a bound: "≤256µs", "—" when nothing ran.
func atMost(d time.Duration) string {
	if d <= 0 {
		return "—"
	}
	return "≤" + formatDuration(d)
}

// errorCounts lists counts by code, sorted by code.
func errorCounts(m map[tooling.Code]uint64) string {
	if len(m) == 0 {
		return "—"
	}
	codes := make([]string, 0, len(m))
	for c := range m {
		codes = append(codes, string(c))
	}
	sort.Strings(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s %d", c, m[tooling.Code(c)])
	}
	return strings.Join(parts, ", ")
}

// tokenBar draws the tokens left in a bucket, ten cells wide.
func tokenBar(tokens float64, burst int) string {
	const cells = 10
	n := int(tokens / float64(burst) * cells)
	n = min(max(n, 0), cells)
	return "[" + strings.Repeat("█", n) + strings.Repeat("·", cells-n) + "]"
}
