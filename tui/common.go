package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/history/collection"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// common is what every screen shares: the registry, the styles, the
// clock, the availability of tools and this session's calls. It is owned
// by the root Model and only touched from Update and View.
type common struct {
	ctx    context.Context
	reg    *tooling.Registry
	styles *styles
	global globalKeys

	// now is the clock of views (elapsed times); tests fix it.
	now func() time.Time
	// callID names call seq; nil lets the registry choose.
	callID func(seq int) string
	// newEditor builds the arguments editor of the named tool's schema.
	newEditor func(tool string, schema json.RawMessage, width, height int) (argsEditor, error)
	// explainTimer waits for a pause in typing before the form's preflight
	// is asked (explainTick); tests replace it.
	explainTimer func(gen int) tea.Cmd
	// governance reads the live governance picture for the board.
	governance func() tooling.Stats
	// sharedState is Options.SharedState; nil: none.
	sharedState func() string

	// problems are what went wrong while loading (Options.Problems).
	problems []string
	// toolsFiles and configFile are Options.ToolsFiles and ConfigFile.
	toolsFiles []string
	configFile string
	// toolDirs and demo are Options.ToolDirs and Demo.
	toolDirs []string
	demo     bool
	// serverFlags are Options.ServerFlags.
	serverFlags []string

	// origin is who the console calls as (Options.Origin).
	origin tooling.Origin
	// principal is who the console calls as: Options.Principal, home, or
	// another the list's call-as key asserts.
	principal, home tooling.Principal
	// dangerous is Options.ConfirmDangerous.
	dangerous bool
	// sessionConsent holds the tools the person allowed for the session,
	// each from the origin it was allowed for.
	sessionConsent map[sessionKey]bool
	// avail is the last availability check of each tool, for origin.
	avail map[string]availState
	// history is this session's calls, oldest first.
	history []*callRecord
	seq     int
	// store keeps the calls beyond the session; nil: none.
	store *history.Store
	// saved is the collection of saved calls; nil: none.
	saved *history.Collection
	// diffMark is the call marked to be compared with the next one marked.
	diffMark *callRecord

	// runs are the calls started this session, in flight or ended, oldest
	// first; spin turns while one is in flight (ticking).
	runs    []*activeRun
	spin    spinner.Model
	ticking bool
	// servers are Options.Servers; nil: none.
	servers Servers
	// asker is Options.Asker; nil: none.
	asker *Asker
	// features and feed are Options.Features and Options.Feed; nil: none.
	features Features
	feed     *Feed
	// toolFiles are Options.ToolFiles; nil: none.
	toolFiles ToolFiles
	// budgets are Options.Budgets; nil: none.
	budgets func(ctx context.Context, p tooling.Principal) ([]Budget, error)
	// ledger is Options.Ledger; nil: none.
	ledger Ledger
	// envs are Options.Environments, env the one chosen ("" for none),
	// vars its variables resolved with getenv.
	envs   map[string]collection.Environment
	env    string
	vars   collection.Vars
	getenv func(string) string
	// loading counts the reads in progress off the UI goroutine (the
	// ledger): the spinner turns while there are some.
	loading int
}

// useEnv chooses the environment name, "" for none (or one there is not).
func (c *common) useEnv(name string) {
	e, ok := c.envs[name]
	if !ok {
		c.env, c.vars = "", collection.Vars{}
		return
	}
	c.env, c.vars = name, collection.Resolve(name, e, c.getenv)
}

// startLoading counts a read in progress and starts the spinner.
func (c *common) startLoading() tea.Cmd {
	c.loading++
	if c.ticking {
		return nil
	}
	c.ticking = true
	return c.spin.Tick
}

// stopLoading counts a read done; the spinner stops at its next tick when
// nothing else turns it.
func (c *common) stopLoading() { c.loading = max(c.loading-1, 0) }

// availState is what the last availability check of a tool said.
type availState struct {
	checked bool
	code    codes.Code // "" when the tool can run
	reason  string
}

// callRecord is one call: made from the console in this session, or
// read from the history store.
type callRecord struct {
	seq     int // this session's number of the call; 0 for a kept call
	tool    string
	args    json.RawMessage // compact JSON
	consent bool
	started time.Time
	result  *tooling.Result // nil while the call runs
	kept    *history.Entry  // the call as kept in the store, for a call of an earlier session or of the command line
	as      tooling.Origin  // the origin the console called as; "" for ui
	idemKey string          // the idempotency key the call was made with, "" for none
	env     string          // the environment whose variables filled args' references, "" for none
}

// origin is who the call was made as: ui from the console.
func (r *callRecord) origin() tooling.Origin {
	if r.kept != nil && r.kept.Origin != "" {
		return r.kept.Origin
	}
	if r.as != "" {
		return r.as
	}
	return tooling.OriginUI
}

// name is how a status line speaks of the call.
func (r *callRecord) name() string {
	if r.seq > 0 {
		return "call " + fmt.Sprint(r.seq)
	}
	return "the call of " + r.tool
}

func (c *common) nextSeq() int {
	c.seq++
	return c.seq
}

func (c *common) record(seq int) *callRecord {
	for i := len(c.history) - 1; i >= 0; i-- {
		if c.history[i].seq == seq {
			return c.history[i]
		}
	}
	return nil
}

// asksConsent reports whether the console asks before running t: the tool
// needs consent, or config dangerous_tool_confirmation is on and the tool
// has side effects.
func (c *common) asksConsent(t *tooling.Tool) bool {
	if t.Meta.NeedsConsent() {
		return true
	}
	return c.dangerous && dangerous(&t.Meta)
}

// sessionKey is a tool, an origin and a principal, which consent for the
// session is scoped to: consent one principal gave never serves another.
type sessionKey struct {
	tool            string
	origin          tooling.Origin
	subject, tenant string
}

// dangerous reports whether a tool has side effects beyond reading (write,
// network, filesystem or process) or needs consent: what config
// dangerous_tool_confirmation asks about.
func dangerous(m *tooling.Meta) bool {
	return m.NeedsConsent() || m.Effects&(tooling.EffectWrite|tooling.EffectNetwork|tooling.EffectFilesystem|tooling.EffectProcess) != 0
}

// fit makes s exactly w columns wide and h lines high: longer lines are
// cut, missing lines added. It keeps frames steady (no wrapping, no
// flicker) at any terminal size.
func fit(s string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	var b strings.Builder
	for i := 0; i < h; i++ {
		if i > 0 {
			b.WriteByte('\n')
		}
		if i >= len(lines) {
			continue
		}
		b.WriteString(cut(lines[i], w))
	}
	return b.String()
}

// width is the display width of plain or styled s, fast for plain ASCII.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// cut truncates one line to w columns, with an ellipsis when it is cut.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if len(s) <= w || width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// wrapLines splits s into lines at most w columns wide, breaking long
// lines between words where it can. A viewport given these lines draws
// only the ones it shows, however long a line of s is (a 1 MiB string in
// a tool's output): wrapping is paid once per content or width, not on
// every key.
func wrapLines(s string, w int) []string {
	w = max(w, 1)
	var out []string
	for line := range strings.SplitSeq(s, "\n") {
		if len(line) <= w || width(line) <= w {
			out = append(out, line)
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(line, w, ""), "\n")...)
	}
	return out
}

// pad cuts or pads plain or styled s to exactly w columns.
func pad(s string, w int) string {
	s = cut(s, w)
	if n := w - width(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// padLeft right-aligns s in w columns.
func padLeft(s string, w int) string {
	s = cut(s, w)
	if n := w - width(s); n > 0 {
		s = strings.Repeat(" ", n) + s
	}
	return s
}

// firstLine returns the first line of s, trimmed.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// formatDuration prints d with three significant digits at most, so that
// it fits in seven columns below an hour: 850µs, 1.23ms, 12.3ms, 123ms,
// 1.23s, 2m3s.
func formatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < 10*time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d < 100*time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// plural is "1 call", "2 calls".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// toolStats returns the counters of the named tool, and false when it has
// not been called yet.
func toolStats(reg *tooling.Registry, name string) (tooling.ToolStats, bool) {
	for _, ts := range reg.Stats().Tools {
		if ts.Tool == name {
			return ts, true
		}
	}
	return tooling.ToolStats{}, false
}
