package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// diffScreen shows how two calls differ: their arguments and their
// outputs as indented JSON, line by line, each change with the lines
// around it, in the output viewer (search, copy and the pager work on it).
// D on a call of the history or of the runs panel marks it; D on another
// opens the difference.
type diffScreen struct {
	c    *common
	keys diffKeys
	a, b *callRecord
	out  *viewer.Model
	w, h int
}

func newDiffScreen(c *common) *diffScreen {
	return &diffScreen{c: c, keys: newDiffKeys(), out: viewer.New(c.styles.viewer)}
}

// markOrDiffCmd is D on rec: it marks rec, or opens the difference between
// the call marked before and rec.
func markOrDiffCmd(c *common, rec *callRecord, b key.Binding) tea.Cmd {
	switch mark := c.diffMark; {
	case rec == nil:
		return nil
	case mark == nil || mark == rec:
		c.diffMark = rec
		return statusCmd(fmt.Sprintf("marked %s: %s on another call shows how they differ", rec.name(), keyName(b)), false)
	default:
		c.diffMark = nil
		return msgCmd(openDiffMsg{a: mark, b: rec})
	}
}

// openDiffMsg opens the difference between two calls.
type openDiffMsg struct{ a, b *callRecord }

func (s *diffScreen) setCalls(a, b *callRecord) {
	s.a, s.b = a, b
	s.out.SetOutput(nil, nil, s.lines(), nil)
}

func (s *diffScreen) Title() string { return "Difference" }
func (s *diffScreen) Typing() bool  { return s.out.Typing() }
func (s *diffScreen) Hide()         {}
func (s *diffScreen) Show() tea.Cmd { return nil }

func (s *diffScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.out.SetSize(w, max(h, 1))
	if s.a != nil {
		s.out.SetFrame(s.lines(), nil)
	}
}

func (s *diffScreen) KeyMap() help.KeyMap {
	k := s.keys
	k.out, k.line = s.out.Keys, s.out.LineHelp()
	return k
}

func (s *diffScreen) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && !s.out.Typing() && key.Matches(k, s.keys.Back) {
		return backCmd
	}
	cmd, _ := s.out.Update(msg)
	return cmd
}

func (s *diffScreen) View() string { return s.out.View() }

// lines are the two calls named, then the difference of their arguments
// and of their outputs.
func (s *diffScreen) lines() []string {
	st := s.c.styles
	name := func(mark string, rec *callRecord) string {
		what := rec.name() + " · " + rec.tool + " · " + rec.started.In(s.c.now().Location()).Format(time.DateTime)
		if res := rec.result; res != nil {
			what += " · " + string(res.Status)
			if res.Code != "" {
				what += " " + string(res.Code)
			}
		}
		return mark + " " + termtext.Line(what)
	}
	out := []string{st.StatusErr.Render(name("-", s.a)), st.BadgeRO.Render(name("+", s.b)), ""}
	section := func(title, a, b string) {
		d := viewer.DiffText(a, b)
		added, removed := 0, 0
		for _, l := range d {
			switch l.Op {
			case '+':
				added++
			case '-':
				removed++
			}
		}
		summary := "the same"
		if added+removed > 0 {
			summary = plural(removed, "line") + " removed, " + plural(added, "line") + " added"
		}
		out = append(out, st.Label.Render(title)+"  "+st.Faint.Render(summary))
		for _, l := range viewer.Hunks(d) {
			l = cut(l, max(s.w-3, 10))
			switch {
			case strings.HasPrefix(l, "- "):
				l = st.StatusErr.Render(l)
			case strings.HasPrefix(l, "+ "):
				l = st.BadgeRO.Render(l)
			case strings.HasPrefix(l, "⋯"):
				l = st.Faint.Render(l)
			}
			out = append(out, l)
		}
		out = append(out, "")
	}
	section("Arguments", prettyJSON(safeJSON(callArgs(s.a))), prettyJSON(safeJSON(callArgs(s.b))))
	section("Output", diffOutput(s.a), diffOutput(s.b))
	return out
}

// diffOutput is a call's output as the difference compares it: indented
// JSON, or what the call said when it made none.
func diffOutput(rec *callRecord) string {
	res := rec.result
	if res == nil {
		return "(still running)"
	}
	res = safeResult(res)
	if out, _ := shownOutput(res); len(out) > 0 {
		return prettyJSON(out)
	}
	return fmt.Sprintf("(no output: %s %s)", res.Code, res.Message)
}

// diffKeys are the viewer's keys and back.
type diffKeys struct {
	Back key.Binding
	out  viewer.Keys
	line []key.Binding // the keys of the viewer's line, while searching
}

func newDiffKeys() diffKeys {
	return diffKeys{Back: bind([]string{"esc"}, "esc", "back"), out: viewer.DefaultKeys()}
}

func (k diffKeys) ShortHelp() []key.Binding {
	if k.line != nil {
		return k.line
	}
	return []key.Binding{short(k.out.Search, "search"), short(k.out.Next, "next"), short(k.out.Open, "pager"), k.Back}
}

func (k diffKeys) FullHelp() [][]key.Binding {
	return append(k.out.Columns(), []key.Binding{k.Back})
}
