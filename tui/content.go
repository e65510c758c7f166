package tui

import (
	"encoding/json"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// contentScreen shows what a server returned outside of a call (a
// resource read, a prompt's messages, a message of the traffic) in the
// output viewer, with a line or two above saying what it is.
type contentScreen struct {
	c     *common
	keys  contentKeys
	title string
	head  []string
	out   *viewer.Model
	w, h  int
}

func newContentScreen(c *common) *contentScreen {
	return &contentScreen{c: c, keys: newContentKeys(&c.global), out: viewer.New(c.styles.viewer)}
}

// set shows out (JSON) under head.
func (s *contentScreen) set(title string, head []string, out json.RawMessage) {
	s.title, s.head = title, head
	s.out.SetOutput(safeJSON(out), nil, head, nil)
}

func (s *contentScreen) Title() string { return s.title }

func (s *contentScreen) Typing() bool { return s.out.Typing() }

func (s *contentScreen) KeyMap() help.KeyMap {
	k := s.keys
	k.out, k.searching, k.line = s.out.Keys, s.out.Typing(), s.out.LineHelp()
	return k
}

func (s *contentScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.out.SetSize(w, h)
}

func (s *contentScreen) Show() tea.Cmd { return nil }

func (s *contentScreen) Hide() {}

func (s *contentScreen) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && !s.out.Typing() && key.Matches(k, s.c.global.Back) {
		return backCmd
	}
	cmd, _ := s.out.Update(msg)
	return cmd
}

func (s *contentScreen) View() string { return s.out.View() }

// contentKeys are the output viewer's keys, and back.
type contentKeys struct {
	out       viewer.Keys
	searching bool
	line      []key.Binding
	g         *globalKeys
}

func newContentKeys(g *globalKeys) contentKeys { return contentKeys{g: g, out: viewer.DefaultKeys()} }

func (k contentKeys) ShortHelp() []key.Binding {
	if k.searching {
		return k.line
	}
	return []key.Binding{short(k.out.Search, "search"), short(k.out.Text, "text/JSON"), short(k.out.Copy, "copy"),
		k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k contentKeys) FullHelp() [][]key.Binding { return k.out.Columns() }

var (
	_ help.KeyMap = contentKeys{}
	_ screen      = (*contentScreen)(nil)
)
