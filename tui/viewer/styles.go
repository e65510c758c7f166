package viewer

import (
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// Styles are the styles the viewer draws with; the console fills them
// from its own, in one place. With Color off no style should set a
// colour: the viewer then marks the cursor's row and matches in reverse
// video only.
type Styles struct {
	Color bool // colours are on

	Faint    lipgloss.Style // hints, the search line's summary, "⏎ 5 lines"
	Label    lipgloss.Style // the copy panel's title
	Panel    lipgloss.Style // the copy panel
	Err      lipgloss.Style // the output schema's complaints
	Selected lipgloss.Style // the row under the cursor
	Cursor   lipgloss.Style // the "›" marker

	JSONKey    lipgloss.Style
	JSONString lipgloss.Style
	JSONNumber lipgloss.Style
	JSONBool   lipgloss.Style
	JSONNull   lipgloss.Style
	JSONPunct  lipgloss.Style
}

// newTextInput is a one-line input with the console's look.
func newTextInput(st *Styles, prompt string) textinput.Model {
	ti := textinput.New()
	ti.Prompt = prompt
	s := ti.Styles()
	s.Cursor.Blink = false
	if !st.Color {
		plain := lipgloss.NewStyle()
		s.Focused = textinput.StyleState{Text: plain, Placeholder: plain.Faint(true), Suggestion: plain, Prompt: plain.Bold(true)}
		s.Blurred = s.Focused
		s.Cursor.Color = nil
	}
	ti.SetStyles(s)
	return ti
}
