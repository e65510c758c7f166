package tui

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// rootsScreen is the list of roots the console gives the MCP servers (the
// directories they may work in), which the servers' roots/list is answered
// from: a adds one, d removes the one under the cursor, and the servers
// are told.
type rootsScreen struct {
	c      *common
	keys   rootsKeys
	roots  []Root
	cursor int
	w, h   int
}

func newRootsScreen(c *common) *rootsScreen { return &rootsScreen{c: c, keys: newRootsKeys(&c.global)} }

func (s *rootsScreen) Title() string { return "Roots" }

func (s *rootsScreen) Typing() bool { return false }

func (s *rootsScreen) KeyMap() help.KeyMap { return s.keys }

func (s *rootsScreen) SetSize(w, h int) { s.w, s.h = w, h }

func (s *rootsScreen) Show() tea.Cmd {
	s.refresh()
	return nil
}

func (s *rootsScreen) Hide() {}

func (s *rootsScreen) refresh() {
	s.roots = nil
	if s.c.features != nil {
		s.roots = s.c.features.Roots()
	}
	s.cursor = min(s.cursor, max(len(s.roots)-1, 0))
}

// rootsSetMsg says whether the roots were changed.
type rootsSetMsg struct {
	what string
	err  error
}

func (rootsSetMsg) mcpViews() {}

func (s *rootsScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case rootsSetMsg:
		s.refresh()
		if msg.err != nil {
			return statusCmd("roots: "+msg.err.Error(), true)
		}
		return statusCmd(msg.what+": the servers are told", false)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Up):
			s.cursor = max(s.cursor-1, 0)
		case key.Matches(msg, s.keys.Down):
			s.cursor = min(s.cursor+1, max(len(s.roots)-1, 0))
		case key.Matches(msg, s.keys.Add):
			return promptCmd("Add a root: a directory or a file:// URI, then a name if you like", "", s.add)
		case key.Matches(msg, s.keys.Remove):
			if len(s.roots) == 0 {
				return nil
			}
			gone := s.roots[s.cursor]
			return s.set(slices.Delete(slices.Clone(s.roots), s.cursor, s.cursor+1), "removed "+gone.URI)
		case key.Matches(msg, s.c.global.Back):
			return backCmd
		}
	}
	return nil
}

// add adds the root text names: a directory (made absolute) or a file://
// URI, and a name after a space.
func (s *rootsScreen) add(text string) tea.Cmd {
	where, name, _ := strings.Cut(strings.TrimSpace(text), " ")
	if where == "" {
		return nil
	}
	uri := where
	if !strings.HasPrefix(where, "file://") {
		abs, err := filepath.Abs(where)
		if err != nil {
			return statusCmd("roots: "+err.Error(), true)
		}
		uri = (&url.URL{Scheme: "file", Path: abs}).String()
	}
	return s.set(append(slices.Clone(s.roots), Root{URI: uri, Name: strings.TrimSpace(name)}), "added "+uri)
}

func (s *rootsScreen) set(roots []Root, what string) tea.Cmd {
	f := s.c.features
	if f == nil {
		return nil
	}
	return func() tea.Msg { return rootsSetMsg{what: what, err: f.SetRoots(roots)} }
}

func (s *rootsScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	b.WriteString(st.Title.Render("Roots") + st.Subtle.Render(" · "+plural(len(s.roots), "root")+" given to every MCP server, which asks for them with roots/list") + "\n\n")
	if len(s.roots) == 0 {
		b.WriteString(st.Subtle.Render("none: a server that asks is told of none; " + keyName(s.keys.Add) + " adds one"))
		return b.String()
	}
	for i, r := range s.roots {
		marker := "  "
		if i == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		line := marker + st.Value.Render(termtext.Line(r.URI))
		if r.Name != "" {
			line += st.Subtle.Render(" " + termtext.Line(r.Name))
		}
		b.WriteString(cut(line, s.w) + "\n")
	}
	return b.String()
}

// rootsKeys are the keys of the roots screen.
type rootsKeys struct {
	Up, Down    key.Binding
	Add, Remove key.Binding
	g           *globalKeys
}

func newRootsKeys(g *globalKeys) rootsKeys {
	return rootsKeys{g: g,
		Up:     bind([]string{"up", "k"}, "↑/k", "up"),
		Down:   bind([]string{"down", "j"}, "↓/j", "down"),
		Add:    bind([]string{"a"}, "a", "add a root"),
		Remove: bind([]string{"d"}, "d", "remove the root"),
	}
}

func (k rootsKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "move"), short(k.Add, "add"), short(k.Remove, "remove"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k rootsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Add, k.Remove}}
}

var (
	_ help.KeyMap = rootsKeys{}
	_ screen      = (*rootsScreen)(nil)
)
