package tui

import (
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// The command palette (: or ctrl+p) goes anywhere in a few keys: to a
// tool's form, to a screen, or runs an action of the tool list, each
// found by a fuzzy filter over its name and what it does (the tool list's
// scoring, fuzzy.go).

// The kinds of palette entries, in the order they are listed.
const (
	paletteScreen = iota
	paletteAction
	paletteTool
)

var paletteKinds = [...]string{paletteScreen: "screen", paletteAction: "action", paletteTool: "tool"}

// paletteEntry is one thing the palette goes to.
type paletteEntry struct {
	kind  int
	name  string // what the entry is called: a tool's name, a screen's title
	desc  string // what it does
	key   string // the key that does the same, "" for none
	text  filterText
	order int // in the list before any query
	run   func(m *Model) tea.Cmd
}

// paletteDialog is the open palette.
type paletteDialog struct {
	c       *common
	entries []paletteEntry
	shown   []int // indexes into entries, best first
	input   textinput.Model
	cursor  int
	keys    keyList
	done    bool
}

// paletteEntries are the screens, the actions and the tools, as the
// console is now.
func (m *Model) paletteEntries() []paletteEntry {
	g := &m.c.global
	lk := &m.list.keys
	var out []paletteEntry
	add := func(kind int, name, desc string, b *key.Binding, run func(m *Model) tea.Cmd) {
		k := ""
		if b != nil && b.Enabled() {
			k = keyName(*b)
		}
		out = append(out, paletteEntry{kind: kind, name: name, desc: desc, key: k, order: len(out),
			text: newFilterText(name, "", desc, nil), run: run})
	}
	add(paletteScreen, "Tools", "the tool list", &g.Tools, func(m *Model) tea.Cmd { return m.home() })
	add(paletteScreen, "History", "the calls made, this session and before", &g.History, func(m *Model) tea.Cmd { return m.push(m.history) })
	add(paletteScreen, "Saved calls", "the calls saved under a name", nil, func(m *Model) tea.Cmd {
		cmd := m.push(m.history)
		m.history.tab = tabSaved
		return cmd
	})
	add(paletteScreen, "Runs", "the calls running in the background", &g.Runs, func(m *Model) tea.Cmd { return m.push(m.runs) })
	add(paletteScreen, "Governance board", "slots, locks, the main thread, rate buckets", &g.Board, func(m *Model) tea.Cmd { return m.push(m.board) })
	add(paletteScreen, "MCP servers", "the servers whose tools are listed", &g.Servers, func(m *Model) tea.Cmd { return m.push(m.servers) })
	add(paletteScreen, "Ledger", "the evidence of every call", &g.Ledger, func(m *Model) tea.Cmd { return m.openLedger("") })
	add(paletteScreen, "Environments", "the {{variables}} of each environment, and which fills the arguments", &g.Environments, func(m *Model) tea.Cmd { return m.push(m.envs) })
	m.mcp.paletteEntries(&m.servers.keys, add)
	if len(m.c.problems) > 0 {
		add(paletteScreen, "Load problems", "what went wrong while loading", &lk.Problems, func(m *Model) tea.Cmd { return m.push(m.problems) })
	}
	add(paletteScreen, "Help", "every key of the screen", &g.Help, func(m *Model) tea.Cmd { m.openHelp(); return nil })

	add(paletteAction, "Next origin", "call as ui, llm, app, system… (now "+string(m.c.origin)+")", &lk.Origin, func(m *Model) tea.Cmd {
		return tea.Batch(m.home(), m.list.nextOrigin())
	})
	add(paletteAction, "Call as", "another subject or tenant (now "+m.c.principal.String()+")", &lk.CallAs, func(m *Model) tea.Cmd {
		l := m.list
		return tea.Batch(m.home(), promptCmd("Call as SUBJECT[@TENANT] [ROLE,...] (empty: "+l.c.home.String()+")", l.c.principal.String(), l.callAs))
	})
	add(paletteAction, "Clear the filter and facets", "list every tool", nil, func(m *Model) tea.Cmd {
		l := m.list
		l.filter.SetValue("")
		l.facets = [numFacets]bool{}
		l.source = sourceAll
		l.apply()
		return m.home()
	})
	if m.c.toolFiles != nil {
		add(paletteAction, "Reload tools files", "read the tools files again", &lk.Reload, func(m *Model) tea.Cmd {
			return tea.Batch(m.home(), reloadToolFilesCmd(m.c.toolFiles))
		})
		add(paletteAction, "Shadow mode on/off", "writes of the tools files' tools go nowhere", &lk.Shadow, func(m *Model) tea.Cmd {
			return toggleShadow(m.c.toolFiles)
		})
	}
	if m.c.store != nil {
		add(paletteAction, "Export the history", "every kept call as JSON Lines", nil, func(m *Model) tea.Cmd { return exportPrompt(m.c, "") })
	}
	add(paletteAction, "Quit", "leave the console", &g.Quit, func(m *Model) tea.Cmd { return m.askQuit() })

	for i := range m.list.items {
		t := &m.list.items[i].tool
		name := t.Name
		e := paletteEntry{kind: paletteTool, name: name, desc: firstLine(t.Title), order: len(out), text: m.list.items[i].text,
			run: func(m *Model) tea.Cmd { return tea.Batch(m.home(), openRunCmd(name, nil, false)) }}
		if e.desc == "" {
			e.desc = firstLine(t.Description)
		}
		out = append(out, e)
	}
	return out
}

func newPaletteDialog(c *common, entries []paletteEntry) *paletteDialog {
	ti := newTextInput(c, ": ")
	ti.Placeholder = "a tool, a screen or an action"
	ti.Focus()
	p := &paletteDialog{c: c, entries: entries, input: ti,
		keys: keyList{bind([]string{"enter"}, "enter", "go"), bind([]string{"esc"}, "esc", "close"),
			bind([]string{"up", "ctrl+k"}, "↑/↓", "choose")}}
	p.filter()
	return p
}

// filter lists the entries that match the query, best first; with no
// query, every entry in its order.
func (p *paletteDialog) filter() {
	q := parseQuery(p.input.Value())
	p.shown, p.cursor = p.shown[:0], 0
	type scored struct{ i, score int }
	var ranked []scored
	for i := range p.entries {
		e := &p.entries[i]
		s := 1
		if len(q.words) > 0 {
			s = e.text.score(&q)
		}
		if s > 0 {
			ranked = append(ranked, scored{i, s})
		}
	}
	slices.SortStableFunc(ranked, func(a, b scored) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return p.entries[a.i].order - p.entries[b.i].order
	})
	for _, r := range ranked {
		p.shown = append(p.shown, r.i)
	}
}

// Update handles a message while the palette is open; enter runs the
// entry chosen, esc closes it.
func (p *paletteDialog) Update(msg tea.Msg) (run func(*Model) tea.Cmd, cmd tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			p.done = true
			if p.cursor < len(p.shown) {
				return p.entries[p.shown[p.cursor]].run, nil
			}
			return nil, nil
		case "esc":
			p.done = true
			return nil, nil
		case "up", "ctrl+k", "shift+tab":
			p.cursor = max(p.cursor-1, 0)
			return nil, nil
		case "down", "ctrl+j", "ctrl+n", "tab":
			p.cursor = min(p.cursor+1, max(len(p.shown)-1, 0))
			return nil, nil
		}
	}
	before := p.input.Value()
	p.input, cmd = p.input.Update(msg)
	if p.input.Value() != before {
		p.filter()
	}
	return nil, cmd
}

// View draws the palette near the top of a w×h area.
func (p *paletteDialog) View(w, h int) string {
	st := p.c.styles
	inner := min(max(w-8, 20), 76)
	p.input.SetWidth(inner - 3)
	rows := max(min(h-7, 14), 1)
	var b strings.Builder
	b.WriteString(p.input.View())
	b.WriteByte('\n')
	if len(p.shown) == 0 {
		b.WriteString("\n" + st.Subtle.Render("nothing matches"))
	}
	off := max(p.cursor-rows+1, 0)
	end := min(off+rows, len(p.shown))
	for row := off; row < end; row++ {
		e := &p.entries[p.shown[row]]
		marker := "  "
		if row == p.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		right := st.Faint.Render(pad(paletteKinds[e.kind], 6))
		if e.key != "" {
			right = st.Bold.Render(padLeft(e.key, 3)) + " " + right
		} else {
			right = "    " + right
		}
		nameW := min(max(inner/2-4, 12), 32)
		name := pad(termtext.Line(e.name), nameW)
		if row == p.cursor {
			name = st.Bold.Render(name)
		}
		left := marker + name + " " + st.Subtle.Render(termtext.Line(e.desc))
		b.WriteString("\n" + pad(left, inner-width(right)-1) + " " + right)
	}
	if n := len(p.shown); n > rows {
		b.WriteString("\n" + st.Faint.Render(cut(strconv.Itoa(n)+" entries · ↑/↓ for more", inner)))
	}
	box := st.Dialog.Width(inner + 4).Render(b.String())
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Top, "\n"+box)
}

// home goes straight back to the tool list, from any screen.
func (m *Model) home() tea.Cmd {
	if m.top() == m.list {
		return nil
	}
	m.top().Hide()
	m.stack = m.stack[:1]
	m.sizeSplit()
	return m.list.Show()
}

// openPalette opens the command palette over the screen.
func (m *Model) openPalette() {
	m.palette = newPaletteDialog(m.c, m.paletteEntries())
}
