package tui

import (
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// callScreen shows one call of the history as it was made: its request
// (tool, time, origin, consent, the files in force, the arguments) and its
// result, the output in the output viewer. Nothing runs until r or e.
type callScreen struct {
	c    *common
	keys callKeys
	rec  *callRecord
	args bool // the viewer shows the arguments, not the output
	out  *viewer.Model
	w, h int
}

func newCallScreen(c *common) *callScreen {
	return &callScreen{c: c, keys: newCallKeys(&c.global), out: viewer.New(c.styles.viewer)}
}

func (s *callScreen) setCall(rec *callRecord) {
	s.rec, s.args = rec, false
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
	k.out, k.searching, k.line = s.out.Keys, s.out.Typing(), s.out.LineHelp()
	k.Ledger.SetEnabled(s.c.ledger != nil)
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
		s.out.SetFrame(head, tail)
	}
}

// show gives the viewer the call; anew puts it at the top.
func (s *callScreen) show(anew bool) {
	if s.rec == nil {
		return
	}
	head, tail := s.frame()
	if !anew {
		s.out.SetFrame(head, tail)
		return
	}
	var out []byte
	var fields []tooling.FieldError
	switch res := s.rec.result; {
	case s.args:
		out = safeJSON(callArgs(s.rec))
	case res != nil:
		out, fields = shownOutput(safeResult(res))
	}
	s.out.SetOutput(out, fields, head, tail)
}

func (s *callScreen) Update(msg tea.Msg) tea.Cmd {
	if s.rec == nil {
		return nil
	}
	if k, ok := msg.(tea.KeyPressMsg); ok && !s.out.Typing() {
		switch {
		case key.Matches(k, s.keys.Rerun):
			return againCmd(s.rec, true)
		case key.Matches(k, s.keys.Edit):
			return againCmd(s.rec, false)
		case key.Matches(k, s.keys.Save):
			return saveCallPrompt(s.c, s.rec)
		case key.Matches(k, s.keys.Args):
			s.args = !s.args
			s.show(true)
			return nil
		case key.Matches(k, s.keys.Ledger):
			return ledgerOfCmd(s.c, s.rec)
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
		row("tools files", strings.Join(k.ToolsFiles, ", "))
		row("server", k.Server)
		row("source", k.Source)
		if k.OutputOmitted > 0 {
			row("output", "not kept: "+plural(k.OutputOmitted, "byte")+", above the history's bound")
		}
	}
	b.WriteString("\n\n" + st.Label.Render("Arguments"))
	args := safeJSON(callArgs(rec))
	switch {
	case s.args:
		b.WriteString(st.Faint.Render("  below, in the viewer: " + keyName(s.keys.Args) + " goes back to the output"))
		return wrapLines(b.String(), max(s.w-2, 1)), nil
	case len(args) > maxInlineArgs:
		b.WriteString("\n  " + st.Subtle.Render(plural(len(args), "byte")+": "+keyName(s.keys.Args)+" shows them in the viewer (folding, "+keyName(s.out.Keys.Text)+" for strings as text)"))
	default:
		b.WriteString("  " + st.Faint.Render("("+keyName(s.keys.Args)+": in the viewer)") + "\n")
		b.WriteString(highlightJSON(st, args))
	}
	request := wrapLines(b.String(), max(s.w-2, 1))
	if rec.result == nil {
		return append(request, "", st.Subtle.Render("the call is still running: "+keyName(s.c.global.Runs)+" lists the running calls")), nil
	}
	head, tail = resultFrame(st, safeResult(rec.result), s.w)
	return append(append(request, ""), head...), tail
}

// maxInlineArgs is the size of the largest arguments shown with the
// request; larger ones would bury the output, and a shows them.
const maxInlineArgs = 1024

// callKeys are the keys of a call opened from the history; the output
// viewer's keys do the rest.
type callKeys struct {
	Rerun     key.Binding
	Edit      key.Binding
	Save      key.Binding
	Args      key.Binding
	Ledger    key.Binding
	Back      key.Binding
	out       viewer.Keys
	searching bool
	line      []key.Binding // the keys of the viewer's line, while searching
	g         *globalKeys
}

func newCallKeys(g *globalKeys) callKeys {
	return callKeys{
		g:      g,
		Rerun:  bind([]string{"r"}, "r", "re-run the call"),
		Edit:   bind([]string{"e"}, "e", "edit the arguments and run"),
		Save:   bind([]string{"s"}, "s", "save the call under a name"),
		Args:   bind([]string{"a"}, "a", "the arguments in the viewer / back to the output"),
		Ledger: bind([]string{"L"}, "L", "the call's record in the ledger"),
		Back:   bind([]string{"esc"}, "esc", "back"),
		out:    viewer.DefaultKeys(),
	}
}

func (k callKeys) ShortHelp() []key.Binding {
	if k.searching {
		return k.line
	}
	return []key.Binding{short(k.Rerun, "re-run"), short(k.Edit, "edit"), short(k.Save, "save"), short(k.out.Search, "search"),
		short(k.out.Copy, "copy"), short(k.Ledger, "ledger"), k.Back, k.g.short(helpKey, "help")}
}

func (k callKeys) FullHelp() [][]key.Binding {
	return append(k.out.Columns(), []key.Binding{k.Rerun, k.Edit, k.Save, k.Args, k.Ledger, k.Back})
}

var (
	_ help.KeyMap = callKeys{}
	_ screen      = (*callScreen)(nil)
)
