package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// helpView is the full help of a screen: its keys, the keys of every
// screen, and on the list the meaning of the badges.
func helpView(c *common, s screen, w int) string {
	st := c.styles
	h := help.New()
	h.Styles = st.Help
	h.SetWidth(w)
	g := c.global
	var b strings.Builder
	b.WriteString(st.Title.Render("Keys · " + s.Title()))
	b.WriteString("\n\n")
	b.WriteString(fullHelpView(h, s.KeyMap().FullHelp(), w))
	b.WriteString("\n\n")
	b.WriteString(st.Label.Render("On every screen"))
	b.WriteString("\n")
	if s.Typing() {
		// Letters type into the field: only f1 and ctrl+c act.
		b.WriteString(fullHelpView(h, [][]key.Binding{{g.HelpAlways}, {g.ForceQuit, g.PaletteAlways}}, w))
		var letters []string
		for _, k := range []key.Binding{g.Help, g.Quit, g.History, g.Board, g.Runs, g.Servers, g.Ledger, g.Environments, g.Palette, g.Tools} {
			letters = append(letters, keyName(k))
		}
		b.WriteString("\n" + st.Faint.Render(ansi.Wordwrap(fmt.Sprintf("A text field has the focus: %s and %s type into it; %s, %s and %s work everywhere.",
			strings.Join(letters[:len(letters)-1], ", "), letters[len(letters)-1], keyName(g.HelpAlways), keyName(g.PaletteAlways), keyName(g.ForceQuit)), w, "")))
	} else {
		b.WriteString(fullHelpView(h, [][]key.Binding{{g.Help, g.HelpAlways, g.Palette, g.PaletteAlways, g.Tools},
			{g.History, g.Board, g.Runs, g.Servers, g.Ledger, g.Environments}, {g.Back, g.Quit, g.ForceQuit}}, w))
	}
	if l, ok := s.(*listScreen); ok {
		b.WriteString("\n\n")
		b.WriteString(st.Label.Render("Badges"))
		for _, l := range [][2]string{
			{"ro", "read-only: runs in parallel with anything"},
			{"main", "runs on the main thread, one call at a time"},
			{"excl", "exclusive: never overlaps a call sharing its resources"},
			{"jail", "confined: runs in a child under landlock, seccomp and limits"},
			{"remote", "a tool of an MCP server (" + keyName(g.Servers) + " lists the servers)"},
			{"fx", "side effects: write, network, file system or process"},
			{"consent", "needs consent: the console asks before running it"},
			{"n/a", "unavailable now (see the detail for why)"},
			{"⊘ui", "the origin the console calls as (" + keyName(l.keys.Origin) + " changes it) may not call it"},
			{"off", "disabled by the config or at runtime (" + keyName(l.keys.Toggle) + " toggles)"},
		} {
			b.WriteString("\n  " + st.Bold.Render(pad(l[0], 8)) + l[1])
		}
		b.WriteString("\n\n" + st.Faint.Render(ansi.Wordwrap("The filter matches names, titles, descriptions and parameter names; facets 3-5 are alternatives for concurrency.", w, "")))
	}
	b.WriteString("\n\n" + st.Faint.Render(keyName(g.Back)+" or "+keyName(g.Help)+" closes this help · ↑/↓ scroll"))
	return b.String()
}

// fullHelpView shows the columns of keys side by side as long as they fit
// the width w, and the columns that do not fit below them, in as many
// blocks as it takes: every key shows, where help's FullHelpView leaves
// the columns past the width out behind an ellipsis. A column wider than
// w on its own is shown whole, in a block of its own.
func fullHelpView(h help.Model, cols [][]key.Binding, w int) string {
	whole := h
	whole.SetWidth(0) // no limit: the widths are measured here
	var blocks []string
	var block [][]key.Binding
	for _, col := range cols {
		if whole.FullHelpView([][]key.Binding{col}) == "" {
			continue // no key of it is enabled
		}
		if len(block) > 0 && lipgloss.Width(whole.FullHelpView(append(slices.Clip(block), col))) > w {
			blocks = append(blocks, whole.FullHelpView(block))
			block = nil
		}
		block = append(block, col)
	}
	if len(block) > 0 {
		blocks = append(blocks, whole.FullHelpView(block))
	}
	return strings.Join(blocks, "\n")
}

// shortHelpView is the one-line help at the bottom of every screen.
// While a text field has the focus, q types and only ctrl+c quits. When
// the keys do not fit the width, their descriptions are shortened to their
// first word, then the screen's last keys are left out, the help key last
// of all: the line is never cut in the middle of a key.
func shortHelpView(c *common, km help.KeyMap, w int, typing bool) string {
	h := help.New()
	h.Styles = c.styles.Help
	quit := short(c.global.Quit, "quit")
	if typing {
		quit = short(c.global.ForceQuit, "quit")
	}
	var keys []key.Binding
	for _, b := range km.ShortHelp() {
		if b.Enabled() {
			keys = append(keys, b)
		}
	}
	line := h.ShortHelpView(append(keys, quit))
	if lipgloss.Width(line) <= w {
		return line
	}
	for i := range keys {
		first, _, _ := strings.Cut(keys[i].Help().Desc, " ")
		keys[i].SetHelp(keys[i].Help().Key, first)
	}
	// The help key stays last: the keys before it are left out.
	var tail []key.Binding
	if n := len(keys); n > 0 && keys[n-1].Help().Key == "?" {
		keys, tail = keys[:n-1], keys[n-1:]
	}
	for {
		if line = h.ShortHelpView(slices.Concat(keys, tail, []key.Binding{quit})); lipgloss.Width(line) <= w || len(keys) == 0 && len(tail) == 0 {
			break
		}
		if len(keys) > 0 {
			keys = keys[:len(keys)-1]
		} else {
			tail = nil
		}
	}
	if lipgloss.Width(line) > w {
		return h.ShortHelpView([]key.Binding{quit})
	}
	return line
}
