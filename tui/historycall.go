package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// callScreen shows one call of the history as it was made: its request
// (tool, time, origin, consent, the files in force, the arguments) and its
// result, the output in the output viewer. Nothing runs until r or e.
type callScreen struct {
	c    *common
	keys callKeys
	rec  *callRecord
	out  *outputViewer
	w, h int
}

func newCallScreen(c *common) *callScreen {
	return &callScreen{c: c, keys: newCallKeys(), out: newOutputViewer(c)}
}

func (s *callScreen) setCall(rec *callRecord) {
	s.rec = rec
	s.show(true)
}

func (s *callScreen) Title() string {
	if s.rec == nil {
		return "Call"
	}
	return "Call of " + s.rec.tool
}

func (s *callScreen) Typing() bool { return s.out.Typing() }

func (s *callScreen) KeyMap() help.KeyMap {
	k := s.keys
	k.out, k.searching = s.out.keys, s.out.Typing()
	return k
}

func (s *callScreen) Hide() {}

// Show redraws: a call of this session may have ended since.
func (s *callScreen) Show() tea.Cmd {
	s.show(false)
	return nil
}

func (s *callScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.out.SetSize(w, max(h-1, 1))
	if s.rec != nil {
		head, tail := s.frame()
		s.out.setFrame(head, tail)
	}
}

// show gives the viewer the call; anew puts it at the top.
func (s *callScreen) show(anew bool) {
	if s.rec == nil {
		return
	}
	head, tail := s.frame()
	if !anew {
		s.out.setFrame(head, tail)
		return
	}
	var out []byte
	var fields []tooling.FieldError
	if res := s.rec.result; res != nil {
		out, fields = shownOutput(safeResult(res))
	}
	s.out.setOutput(out, fields, head, tail)
}

func (s *callScreen) Update(msg tea.Msg) tea.Cmd {
	if s.rec == nil {
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && !s.out.Typing() {
		switch {
		case key.Matches(k, s.keys.Rerun):
			return openRunCmd(s.rec.tool, s.rec.args, true)
		case key.Matches(k, s.keys.Edit):
			return openRunCmd(s.rec.tool, s.rec.args, false)
		case key.Matches(k, s.keys.Save):
			return saveCallPrompt(s.c, s.rec)
		case key.Matches(k, s.keys.Back):
			return backCmd
		}
	}
	cmd, _ := s.out.Update(msg)
	return cmd
}

func (s *callScreen) View() string {
	if s.rec == nil {
		return ""
	}
	head := s.c.styles.Status.Render("… running " + s.rec.tool)
	if s.rec.result != nil {
		head = resultHeader(s.c.styles, s.rec.result)
	}
	return head + "\n" + s.out.View()
}

// frame is what the viewer shows around the output: the request and what
// went wrong before it, the plan and the governance decisions after it.
func (s *callScreen) frame() (head, tail []string) {
	st := s.c.styles
	rec := s.rec
	var b strings.Builder
	row := func(name, value string) {
		if value != "" {
			b.WriteString("\n  " + st.Faint.Render(pad(name, 11)) + termtext.Line(value))
		}
	}
	b.WriteString(st.Label.Render("Request"))
	row("tool", rec.tool)
	row("time", rec.started.In(s.c.now().Location()).Format(time.DateTime+" MST"))
	how := "origin " + string(rec.origin())
	if rec.consent {
		how += " · with consent"
	}
	via := "this console"
	if rec.kept != nil {
		via = rec.kept.Via
	}
	row("made", how+" · by "+via)
	if k := rec.kept; k != nil {
		row("config", k.Config)
		row("tools file", k.ToolsFile)
		row("source", k.Source)
		if k.OutputOmitted > 0 {
			row("output", "not kept: "+plural(k.OutputOmitted, "byte")+", above the history's bound")
		}
	}
	b.WriteString("\n\n" + st.Label.Render("Arguments") + "\n")
	b.WriteString(highlightJSON(st, safeJSON(callArgs(rec))))
	request := wrapLines(b.String(), max(s.w-2, 1))
	if rec.result == nil {
		return append(request, "", st.Subtle.Render("the call is still running: R lists the running calls")), nil
	}
	head, tail = resultFrame(st, safeResult(rec.result), s.w)
	return append(append(request, ""), head...), tail
}

// callKeys are the keys of a call opened from the history; the output
// viewer's keys do the rest.
type callKeys struct {
	Rerun     key.Binding
	Edit      key.Binding
	Save      key.Binding
	Back      key.Binding
	out       viewerKeys
	searching bool
}

func newCallKeys() callKeys {
	return callKeys{
		Rerun: bind([]string{"r"}, "r", "re-run the call"),
		Edit:  bind([]string{"e"}, "e", "edit the arguments and run"),
		Save:  bind([]string{"s"}, "s", "save the call under a name"),
		Back:  bind([]string{"esc"}, "esc", "back"),
		out:   newViewerKeys(),
	}
}

func (k callKeys) ShortHelp() []key.Binding {
	if k.searching {
		return []key.Binding{bind([]string{"enter"}, "enter", "search"), bind([]string{"esc"}, "esc", "cancel")}
	}
	return []key.Binding{short(k.Rerun, "re-run"), short(k.Edit, "edit"), short(k.Save, "save"), short(k.out.Search, "search"),
		short(k.out.Copy, "copy"), k.Back, bind([]string{"?"}, "?", "help")}
}

func (k callKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.out.navKeys.column(), k.out.column(), {k.Rerun, k.Edit, k.Save, k.Back}}
}

var (
	_ help.KeyMap = callKeys{}
	_ screen      = (*callScreen)(nil)
)
