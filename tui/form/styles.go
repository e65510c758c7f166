package form

import (
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// Styles are every style the form draws with. The console passes
// [PlainStyles] when NO_COLOR is set; nil in [Options] means [DefaultStyles].
type Styles struct {
	Label        lipgloss.Style // a field's name
	FocusedLabel lipgloss.Style // the focused field's name
	Required     lipgloss.Style // the mark after a required field's name
	Cursor       lipgloss.Style // the marker in front of the focused field
	Value        lipgloss.Style // values that are not typed: booleans, choices, consts
	Muted        lipgloss.Style // counts, placeholders, "not set"
	Null         lipgloss.Style // an explicit null
	Desc         lipgloss.Style // titles and descriptions
	Hint         lipgloss.Style // checks as you type
	Error        lipgloss.Style // validator and parse errors
	Picked       lipgloss.Style // the highlighted line of an open picker
	Title        lipgloss.Style // the raw mode heading
	Input        textinput.Styles
	Area         textarea.Styles
	// PlaceholderQuotes go around a placeholder's text. Without colour a
	// placeholder would read as a typed value: PlainStyles quotes it
	// ‹like this› and draws it faint.
	PlaceholderQuotes [2]string
}

// DefaultStyles are the form's colours for a dark or light terminal.
func DefaultStyles() *Styles {
	accent := lipgloss.Color("12")
	muted := lipgloss.Color("8")
	s := &Styles{
		Label:        lipgloss.NewStyle(),
		FocusedLabel: lipgloss.NewStyle().Bold(true).Foreground(accent),
		Required:     lipgloss.NewStyle().Foreground(lipgloss.Color("9")),
		Cursor:       lipgloss.NewStyle().Bold(true).Foreground(accent),
		Value:        lipgloss.NewStyle().Foreground(lipgloss.Color("14")),
		Muted:        lipgloss.NewStyle().Foreground(muted),
		Null:         lipgloss.NewStyle().Italic(true).Foreground(lipgloss.Color("13")),
		Desc:         lipgloss.NewStyle().Foreground(muted),
		Hint:         lipgloss.NewStyle().Foreground(lipgloss.Color("11")),
		Error:        lipgloss.NewStyle().Foreground(lipgloss.Color("9")),
		Picked:       lipgloss.NewStyle().Reverse(true),
		Title:        lipgloss.NewStyle().Bold(true),
		Input:        textinput.DefaultDarkStyles(),
		Area:         textarea.DefaultDarkStyles(),
	}
	s.Input.Cursor.Color = accent
	s.Input.Focused.Placeholder = lipgloss.NewStyle().Foreground(muted)
	s.Input.Blurred.Placeholder = lipgloss.NewStyle().Foreground(muted)
	return s
}

// PlainStyles draw without colour (for NO_COLOR, and for golden files):
// only bold and reverse video mark focus and selection.
func PlainStyles() *Styles {
	p := lipgloss.NewStyle()
	in := textinput.Styles{
		Focused: textinput.StyleState{Text: p, Placeholder: p.Faint(true), Suggestion: p, Prompt: p},
		Blurred: textinput.StyleState{Text: p, Placeholder: p.Faint(true), Suggestion: p, Prompt: p},
		Cursor:  textinput.CursorStyle{Shape: tea.CursorBlock},
	}
	ta := textarea.DefaultDarkStyles()
	plainState := textarea.StyleState{
		Base: p, Text: p, LineNumber: p, CursorLineNumber: p, CursorLine: p,
		EndOfBuffer: p, Placeholder: p, Prompt: p, Selection: p.Reverse(true),
	}
	ta.Focused, ta.Blurred = plainState, plainState
	ta.Cursor = textarea.CursorStyle{Shape: tea.CursorBlock}
	return &Styles{
		Label: p, FocusedLabel: p.Bold(true), Required: p, Cursor: p.Bold(true),
		Value: p, Muted: p, Null: p, Desc: p, Hint: p, Error: p,
		Picked: p.Reverse(true), Title: p.Bold(true),
		Input: in, Area: ta,
		PlaceholderQuotes: [2]string{"‹", "›"},
	}
}
