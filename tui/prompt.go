package tui

import (
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// promptMsg opens a one-line prompt over the screen: enter sends what
// submit returns for the text typed, esc closes it and does nothing.
type promptMsg struct {
	title   string
	suggest string // shown in the empty input: enter takes it, typing replaces it, tab edits it
	submit  func(text string) tea.Cmd
}

func promptCmd(title, suggest string, submit func(string) tea.Cmd) tea.Cmd {
	return msgCmd(promptMsg{title: title, suggest: suggest, submit: submit})
}

// promptDialog is the open prompt.
type promptDialog struct {
	c       *common
	title   string
	suggest string
	input   textinput.Model
	submit  func(string) tea.Cmd
	keys    keyList
	done    bool
}

func newPromptDialog(c *common, msg promptMsg) *promptDialog {
	ti := newTextInput(c, "")
	ti.Placeholder = msg.suggest
	ti.Focus()
	return &promptDialog{c: c, title: msg.title, suggest: msg.suggest, input: ti, submit: msg.submit,
		keys: keyList{bind([]string{"enter"}, "enter", "ok"), bind([]string{"esc"}, "esc", "cancel"),
			bind([]string{"tab"}, "tab", "edit the suggestion")}}
}

// untouched says the input is empty: enter takes the suggestion.
func (p *promptDialog) untouched() bool { return p.input.Value() == "" && p.suggest != "" }

// Update handles a message while the prompt is open; on enter or esc the
// prompt is done.
func (p *promptDialog) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(k, p.keys[0]):
			p.done = true
			if p.untouched() {
				return p.submit(p.suggest)
			}
			return p.submit(p.input.Value())
		case key.Matches(k, p.keys[1]):
			p.done = true
			return nil
		case key.Matches(k, p.keys[2]):
			if p.untouched() {
				p.input.SetValue(p.suggest)
				p.input.CursorEnd()
			}
			return nil
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	return cmd
}

// View draws the prompt centred in a w×h area.
func (p *promptDialog) View(w, h int) string {
	st := p.c.styles
	inner := min(max(w-8, 20), 72)
	p.input.SetWidth(inner - 2)
	body := st.Title.Render(ansi.Truncate(p.title, inner, "…")) + "\n\n" + p.input.View()
	if p.untouched() {
		body += "\n" + st.Faint.Render(ansi.Truncate("enter takes it · typing replaces it · tab edits it", inner, "…"))
	}
	box := st.Dialog.Width(inner + 4).Render(body)
	return lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, box)
}

// newTextInput is a one-line input in the console's styles: no blinking,
// and plain without colours.
func newTextInput(c *common, prompt string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	s := ti.Styles()
	s.Cursor.Blink = false
	if !c.styles.color {
		plain := lipgloss.NewStyle()
		s.Focused = textinput.StyleState{Text: plain, Placeholder: plain.Faint(true), Suggestion: plain, Prompt: plain.Bold(true)}
		s.Blurred = s.Focused
		s.Cursor.Color = nil
	}
	ti.SetStyles(s)
	return ti
}
