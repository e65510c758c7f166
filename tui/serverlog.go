package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// logScreen is a server's log: the log messages it sends
// (notifications/message), the lines of its stderr and the updates of the
// resources subscribed to, newest at the bottom, followed as they come
// until the person scrolls up. v asks the server for another level.
type logScreen struct {
	c      *common
	v      *mcpViews
	keys   logKeys
	server string
	lines  []int // indexes into v.logLines of the server's lines
	offset int   // the first line shown
	follow bool  // the end stays in view
	level  int   // index into logLevels of the level asked for; -1: none asked
	w, h   int
}

// logLevels are MCP's log levels, from the lowest.
var logLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func newLogScreen(c *common, v *mcpViews) *logScreen {
	return &logScreen{c: c, v: v, keys: newLogKeys(&c.global), follow: true, level: -1}
}

func (s *logScreen) open(server string) {
	if s.server != server {
		s.follow, s.level = true, -1
	}
	s.server = server
	s.refresh()
}

// refresh finds the server's lines again (more came).
func (s *logScreen) refresh() {
	s.lines = s.lines[:0]
	for i, l := range s.v.logLines {
		if l.Server == s.server {
			s.lines = append(s.lines, i)
		}
	}
	s.clamp()
}

func (s *logScreen) page() int { return max(s.h-3, 1) }

func (s *logScreen) clamp() {
	last := max(len(s.lines)-s.page(), 0)
	if s.follow {
		s.offset = last
	}
	s.offset = min(max(s.offset, 0), last)
	s.follow = s.offset == last
}

func (s *logScreen) Title() string { return "Log of " + s.server }

func (s *logScreen) Typing() bool { return false }

func (s *logScreen) KeyMap() help.KeyMap { return s.keys }

func (s *logScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.clamp()
}

func (s *logScreen) Show() tea.Cmd {
	s.refresh()
	return nil
}

func (s *logScreen) Hide() {}

// logLevelMsg says whether the server took the level asked for.
type logLevelMsg struct {
	server string
	level  int
	err    error
}

func (logLevelMsg) mcpViews() {}

func (s *logScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case logLevelMsg:
		if msg.err != nil {
			return statusCmd(fmt.Sprintf("server %s: log level %s: %v", msg.server, logLevels[msg.level], msg.err), true)
		}
		if msg.server == s.server {
			s.level = msg.level
		}
		return statusCmd("server "+msg.server+" logs from "+logLevels[msg.level]+" up", false)
	case tea.KeyPressMsg:
		k := s.keys
		switch {
		case key.Matches(msg, k.Up):
			s.offset--
			s.follow = false
		case key.Matches(msg, k.Down):
			s.offset++
		case key.Matches(msg, k.PageUp):
			s.offset -= s.page()
			s.follow = false
		case key.Matches(msg, k.PageDown):
			s.offset += s.page()
		case key.Matches(msg, k.Top):
			s.offset, s.follow = 0, false
		case key.Matches(msg, k.Bottom):
			s.follow = true
		case key.Matches(msg, k.Level):
			return s.nextLevel()
		case key.Matches(msg, s.c.global.Back):
			return backCmd
		}
		s.clamp()
	}
	return nil
}

// nextLevel asks the server for the next level, debug after emergency.
func (s *logScreen) nextLevel() tea.Cmd {
	if s.c.features == nil {
		return nil
	}
	level := (s.level + 1) % len(logLevels)
	f, server := s.c.features, s.server
	ctx, cancel := s.c.callCtx()
	return func() tea.Msg {
		defer cancel()
		return logLevelMsg{server: server, level: level, err: f.SetLogLevel(ctx, server, logLevels[level])}
	}
}

func (s *logScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	level := "the server's own"
	if s.level >= 0 {
		level = logLevels[s.level] + " and up"
	}
	b.WriteString(st.Title.Render("Log of "+termtext.Line(s.server)) + st.Subtle.Render(fmt.Sprintf(" · %s · level: %s (%s changes it)", plural(len(s.lines), "line"), level, keyName(s.keys.Level))) + "\n\n")
	if len(s.lines) == 0 {
		b.WriteString(st.Subtle.Render("nothing yet: the server's log messages, its stderr and the updates of the resources subscribed to come here"))
		return b.String()
	}
	loc := s.c.now().Location()
	for _, i := range s.lines[s.offset:min(s.offset+s.page(), len(s.lines))] {
		l := s.v.logLines[i]
		what, style := l.Source, st.Faint
		switch {
		case l.Source == "log":
			what, style = l.Level, levelStyle(st, l.Level)
		case l.Source == "update":
			style = st.Warn
		}
		text := termtext.Line(l.Text)
		if l.Logger != "" {
			text = st.Faint.Render(termtext.Line(l.Logger)+": ") + text
		}
		b.WriteString(cut(st.Faint.Render(l.Time.In(loc).Format("15:04:05.000"))+" "+style.Render(pad(what, 9))+" "+text, s.w) + "\n")
	}
	if !s.follow {
		b.WriteString(st.Faint.Render(fmt.Sprintf("… %s below: %s follows the end", plural(len(s.lines)-s.offset-s.page(), "line"), keyName(s.keys.Bottom))))
	}
	return b.String()
}

// levelStyle colours a log level: errors and worse red, warnings yellow.
func levelStyle(st *styles, level string) lipgloss.Style {
	switch level {
	case "warning", "notice":
		return st.Warn
	case "error", "critical", "alert", "emergency":
		return st.Err
	}
	return st.Value
}

// logKeys are the keys of the log.
type logKeys struct {
	navKeys
	Level key.Binding
	g     *globalKeys
}

func newLogKeys(g *globalKeys) logKeys {
	k := logKeys{g: g, navKeys: newNavKeys(), Level: bind([]string{"v"}, "v", "ask the server for the next log level")}
	k.Bottom.SetHelp(k.Bottom.Help().Key, "the end, and follow it")
	return k
}

func (k logKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "scroll"), short(k.Bottom, "follow"), short(k.Level, "level"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k logKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.column(), {k.Level}} }

var (
	_ help.KeyMap = logKeys{}
	_ screen      = (*logScreen)(nil)
)
