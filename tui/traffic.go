package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// trafficScreen lists the JSON-RPC messages exchanged with a server,
// oldest first, followed as they come until the cursor leaves the end: /
// filters them by method, enter opens one in the output viewer, c copies
// it.
type trafficScreen struct {
	c      *common
	v      *mcpViews
	keys   trafficKeys
	server string
	method string // the filter: a part of the method, "" for all
	shown  []int  // indexes into v.messages
	cursor int    // index into shown
	follow bool   // the cursor stays on the last message
	w, h   int
}

func newTrafficScreen(c *common, v *mcpViews) *trafficScreen {
	return &trafficScreen{c: c, v: v, keys: newTrafficKeys(&c.global), follow: true}
}

func (s *trafficScreen) open(server string) {
	if s.server != server {
		s.method, s.follow = "", true
	}
	s.server = server
	s.refresh()
}

// refresh finds the messages shown again (more came, or the filter
// changed), keeping the cursor on its message.
func (s *trafficScreen) refresh() {
	at := -1
	if s.cursor < len(s.shown) {
		at = s.shown[s.cursor]
	}
	s.shown = s.shown[:0]
	s.cursor = 0
	for i, m := range s.v.messages {
		if m.Server != s.server || s.method != "" && !strings.Contains(strings.ToLower(m.Method), s.method) {
			continue
		}
		if i <= at {
			s.cursor = len(s.shown)
		}
		s.shown = append(s.shown, i)
	}
	if s.follow {
		s.cursor = max(len(s.shown)-1, 0)
	}
}

func (s *trafficScreen) Title() string { return "Traffic of " + s.server }

func (s *trafficScreen) Typing() bool { return false }

func (s *trafficScreen) KeyMap() help.KeyMap { return s.keys }

func (s *trafficScreen) SetSize(w, h int) { s.w, s.h = w, h }

func (s *trafficScreen) Show() tea.Cmd {
	s.refresh()
	return nil
}

func (s *trafficScreen) Hide() {}

func (s *trafficScreen) selected() (Message, bool) {
	if s.cursor >= len(s.shown) {
		return Message{}, false
	}
	return s.v.messages[s.shown[s.cursor]], true
}

func (s *trafficScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	keys, last := s.keys, max(len(s.shown)-1, 0)
	switch {
	case key.Matches(k, keys.Up):
		s.cursor = max(s.cursor-1, 0)
	case key.Matches(k, keys.Down):
		s.cursor = min(s.cursor+1, last)
	case key.Matches(k, keys.PageUp):
		s.cursor = max(s.cursor-s.page(), 0)
	case key.Matches(k, keys.PageDown):
		s.cursor = min(s.cursor+s.page(), last)
	case key.Matches(k, keys.Top):
		s.cursor = 0
	case key.Matches(k, keys.Bottom):
		s.cursor = last
	case key.Matches(k, keys.Filter):
		return promptCmd("Show the messages whose method holds (empty: all)", s.method, func(text string) tea.Cmd {
			s.method = strings.ToLower(strings.TrimSpace(text))
			s.follow = true
			s.refresh()
			return nil
		})
	case key.Matches(k, keys.Open):
		m, ok := s.selected()
		if !ok {
			return nil
		}
		s.v.content.set("Message "+orName(m.Method, m.Kind), []string{s.describe(m)}, m.Raw)
		return pushCmd(s.v.content)
	case key.Matches(k, keys.Copy):
		m, ok := s.selected()
		if !ok {
			return nil
		}
		return msgCmd(viewer.CopyMsg{Text: string(m.Raw), What: "the " + m.Kind + " " + orName(m.Method, m.ID)})
	case key.Matches(k, s.c.global.Back):
		return backCmd
	}
	s.follow = s.cursor == last
	return nil
}

func (s *trafficScreen) page() int { return max(s.h-4, 1) }

// describe is one line about m: its direction, kind, method and id.
func (s *trafficScreen) describe(m Message) string {
	st := s.c.styles
	dir := "← from " + m.Server
	if m.Sent {
		dir = "→ to " + m.Server
	}
	line := st.Label.Render(m.Kind) + " " + termtext.Line(m.Method) + st.Faint.Render(" · "+dir+" · "+m.Time.In(s.c.now().Location()).Format("15:04:05.000"))
	if m.ID != "" {
		line += st.Faint.Render(" · id " + termtext.Line(m.ID))
	}
	return line
}

func (s *trafficScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	filter := ""
	if s.method != "" {
		filter = " · method holds " + fmt.Sprintf("%q", s.method)
	}
	b.WriteString(st.Title.Render("Traffic of "+termtext.Line(s.server)) + st.Subtle.Render(" · "+plural(len(s.shown), "message")+filter) + "\n\n")
	if len(s.shown) == 0 {
		if s.method != "" {
			b.WriteString(st.Subtle.Render("no message's method holds " + fmt.Sprintf("%q", s.method) + ": " + keyName(s.keys.Filter) + " changes the filter"))
		} else {
			b.WriteString(st.Subtle.Render("no messages seen yet"))
		}
		return b.String()
	}
	b.WriteString(st.Faint.Render("  "+pad("TIME", 12)+"   "+pad("KIND", 12)+" "+pad("METHOD", 34)+" "+pad("ID", 6)+" SIZE") + "\n")
	page := s.page()
	first := max(0, min(s.cursor-page/2, len(s.shown)-page))
	if s.follow {
		first = max(len(s.shown)-page, 0)
	}
	loc := s.c.now().Location()
	for i := first; i < min(first+page, len(s.shown)); i++ {
		m := s.v.messages[s.shown[i]]
		marker := "  "
		if i == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		dir := st.OK.Render("→")
		if !m.Sent {
			dir = st.Value.Render("←")
		}
		kind := pad(m.Kind, 12)
		if m.Kind == "error" {
			kind = st.Err.Render(kind)
		}
		line := marker + st.Faint.Render(m.Time.In(loc).Format("15:04:05.000")) + " " + dir + " " + kind + " " + pad(cut(termtext.Line(m.Method), 34), 34) + " " +
			pad(cut(termtext.Line(m.ID), 6), 6) + " " + st.Faint.Render(byteSize(len(m.Raw)))
		b.WriteString(cut(line, s.w) + "\n")
	}
	return b.String()
}

// byteSize says n bytes shortly: 512 B, 3.1 KB.
func byteSize(n int) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1000)
}

// trafficKeys are the keys of the traffic view.
type trafficKeys struct {
	navKeys
	Filter key.Binding
	Open   key.Binding
	Copy   key.Binding
	g      *globalKeys
}

func newTrafficKeys(g *globalKeys) trafficKeys {
	return trafficKeys{g: g, navKeys: newNavKeys(),
		Filter: bind([]string{"/"}, "/", "filter by method"),
		Open:   bind([]string{"enter"}, "enter", "open the message in the viewer"),
		Copy:   bind([]string{"c"}, "c", "copy the message"),
	}
}

func (k trafficKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "move"), short(k.Filter, "method"), short(k.Open, "open"), short(k.Copy, "copy"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k trafficKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.column(), {k.Filter, k.Open, k.Copy}}
}

var (
	_ help.KeyMap = trafficKeys{}
	_ screen      = (*trafficScreen)(nil)
)
