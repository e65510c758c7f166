package tui

import (
	"encoding/json"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui/form"
)

// formEditor is the schema-generated form as the run screen's editor.
type formEditor struct{ m *form.Model }

// newFormEditor builds the form of schema, checked as it is edited by
// check, the registry's validator of the tool; without colours under
// NO_COLOR.
func newFormEditor(st *styles, schema json.RawMessage, w, h int, check func(json.RawMessage) []tooling.FieldError) (argsEditor, error) {
	fs := form.DefaultStyles()
	if !st.color {
		fs = form.PlainStyles()
	}
	m, err := form.New(schema, form.Options{Width: w, Height: h, Styles: fs, Check: check})
	if err != nil {
		return nil, err
	}
	return &formEditor{m: m}, nil
}

func (f *formEditor) Init() tea.Cmd { return f.m.Init() }

func (f *formEditor) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	f.m, cmd = f.m.Update(msg)
	return cmd
}

func (f *formEditor) View() string                     { return f.m.View() }
func (f *formEditor) SetSize(w, h int)                 { f.m.SetSize(w, h) }
func (f *formEditor) Value() (json.RawMessage, error)  { return f.m.Value() }
func (f *formEditor) SetValue(v json.RawMessage) error { return f.m.SetValue(v) }
func (f *formEditor) SetErrors(e []tooling.FieldError) { f.m.SetErrors(e) }
func (f *formEditor) Raw() bool                        { return f.m.Raw() }
func (f *formEditor) ToggleRaw() error                 { return f.m.ToggleRaw() }
func (f *formEditor) KeyMap() help.KeyMap              { return f.m.KeyMap() }
func (f *formEditor) Submitted() bool                  { return f.m.Submitted() }
func (f *formEditor) Capturing() bool                  { return f.m.Capturing() }
func (f *formEditor) InputFocused() bool               { return f.m.InputFocused() }

var _ argsEditor = (*formEditor)(nil)
