package tui

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// argsEditor edits the arguments of a call. The schema-generated form
// (tui/form) implements it through formEditor; rawEditor, a JSON text
// area, is the fallback for a schema the form cannot read.
//
// The run screen gives the editor every key but its own (esc to go back,
// unless the editor is capturing) and the console's (ctrl+c; q, ?, H and B
// while no text field has the focus), and runs the call when an Update
// reports Submitted.
type argsEditor interface {
	// Init returns the editor's first command (a cursor blink, say).
	Init() tea.Cmd
	// Update handles a message while the editor has the focus.
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	// Value returns the arguments as a JSON object, or why they are not one.
	Value() (json.RawMessage, error)
	SetValue(json.RawMessage) error
	// SetErrors shows the validator's field errors on the fields they
	// concern; nil clears them.
	SetErrors([]tooling.FieldError)
	// Raw reports whether the editor shows raw JSON.
	Raw() bool
	// ToggleRaw switches between the form and raw JSON.
	ToggleRaw() error
	KeyMap() help.KeyMap
	// Submitted reports whether the last Update asked to run the call.
	Submitted() bool
	// Capturing reports whether the editor takes every key, esc included
	// (an open picker, say).
	Capturing() bool
	// InputFocused reports whether printable keys are text now.
	InputFocused() bool
}

// errNoForm is what the raw editor says when asked for a form.
var errNoForm = errors.New("tui: no form for this schema: the arguments are edited as raw JSON")

// rawEditor edits the arguments as JSON text.
type rawEditor struct {
	st        *styles
	ta        textarea.Model
	errs      []tooling.FieldError
	keys      rawEditorKeys
	submitted bool
	w, h      int
}

type rawEditorKeys struct {
	Submit  key.Binding
	Newline key.Binding
	Move    key.Binding
	Start   key.Binding
	End     key.Binding
	Delete  key.Binding
}

func (k rawEditorKeys) ShortHelp() []key.Binding { return []key.Binding{k.Submit, k.Newline} }

func (k rawEditorKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Submit, k.Newline, k.Move, k.Start, k.End, k.Delete}}
}

// newRawEditor returns a JSON editor holding the schema's template: the
// defaults, and the required properties with an empty value of their type.
func newRawEditor(st *styles, schema json.RawMessage, w, h int) *rawEditor {
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = 0
	ta.MaxHeight = 0
	ta.Placeholder = "{}"
	ta.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "alt+enter", "shift+enter"), key.WithHelp("ctrl+j", "new line"))
	ta.SetStyles(textareaStyles(st))
	ta.Focus()
	e := &rawEditor{st: st, ta: ta, keys: rawEditorKeys{
		Submit:  key.NewBinding(key.WithKeys("ctrl+s", "enter"), key.WithHelp("ctrl+s/enter", "run")),
		Newline: ta.KeyMap.InsertNewline,
		Move:    key.NewBinding(key.WithKeys("up", "down", "left", "right"), key.WithHelp("←↑↓→", "move")),
		Start:   key.NewBinding(key.WithKeys("home", "ctrl+a"), key.WithHelp("home", "line start")),
		End:     key.NewBinding(key.WithKeys("end", "ctrl+e"), key.WithHelp("end", "line end")),
		Delete:  key.NewBinding(key.WithKeys("ctrl+k"), key.WithHelp("ctrl+k", "delete to line end")),
	}}
	e.ta.SetValue(prettyJSON(schemaTemplate(schema)))
	e.ta.MoveToBegin()
	e.SetSize(w, h)
	return e
}

func textareaStyles(st *styles) textarea.Styles {
	s := textarea.DefaultDarkStyles()
	s.Cursor.Blink = false
	if !st.color {
		plain := lipgloss.NewStyle()
		state := textarea.StyleState{Base: plain, Text: plain, LineNumber: plain, CursorLineNumber: plain,
			CursorLine: plain, EndOfBuffer: plain, Placeholder: plain.Faint(true), Prompt: plain, Selection: plain.Reverse(true)}
		s.Focused, s.Blurred = state, state
		s.Cursor.Color = nil
	}
	return s
}

func (e *rawEditor) Init() tea.Cmd { return nil }

func (e *rawEditor) Update(msg tea.Msg) tea.Cmd {
	e.submitted = false
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, e.keys.Submit) {
		e.submitted = true
		return nil
	}
	var cmd tea.Cmd
	e.ta, cmd = e.ta.Update(msg)
	return cmd
}

func (e *rawEditor) Submitted() bool { return e.submitted }

func (e *rawEditor) Capturing() bool { return false }

func (e *rawEditor) InputFocused() bool { return true }

func (e *rawEditor) View() string {
	var b strings.Builder
	b.WriteString(e.ta.View())
	for _, f := range e.errs {
		b.WriteString("\n")
		b.WriteString(e.st.Err.Render("✗ " + f.String()))
	}
	return b.String()
}

func (e *rawEditor) SetSize(w, h int) {
	e.w, e.h = w, h
	e.ta.SetWidth(max(w, 10))
	e.ta.SetHeight(max(h-len(e.errs), 3))
}

func (e *rawEditor) Value() (json.RawMessage, error) {
	text := strings.TrimSpace(e.ta.Value())
	if text == "" {
		return json.RawMessage(`{}`), nil
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(text, int(se.Offset)-1)
			return nil, fmt.Errorf("the arguments are not valid JSON: line %d, column %d: %s", line, col, se.Error())
		}
		return nil, fmt.Errorf("the arguments are not valid JSON: %v", err)
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, errors.New("the arguments must be a JSON object: {...}")
	}
	return compactJSON([]byte(text)), nil
}

// position turns a byte offset into a 1-based line and column.
func position(s string, off int) (line, col int) {
	off = min(max(off, 0), len(s))
	before := s[:off]
	line = strings.Count(before, "\n") + 1
	col = off - strings.LastIndexByte(before, '\n')
	return line, col
}

func (e *rawEditor) SetValue(v json.RawMessage) error {
	if len(bytes.TrimSpace(v)) == 0 {
		v = json.RawMessage(`{}`)
	}
	if !json.Valid(v) {
		return errors.New("tui: SetValue: not valid JSON")
	}
	e.ta.SetValue(prettyJSON(v))
	e.ta.MoveToBegin()
	e.SetErrors(nil)
	return nil
}

func (e *rawEditor) SetErrors(errs []tooling.FieldError) {
	e.errs = errs
	e.SetSize(e.w, e.h)
}

func (e *rawEditor) Raw() bool { return true }

func (e *rawEditor) ToggleRaw() error { return errNoForm }

func (e *rawEditor) KeyMap() help.KeyMap { return e.keys }

// schemaTemplate returns a starting value for a schema's arguments: every
// top-level property with a default, and every required one without a
// default as the empty value of its type, in the schema's order.
func schemaTemplate(schema json.RawMessage) json.RawMessage {
	var s struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if len(schema) == 0 || json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return json.RawMessage(`{}`)
	}
	required := make(map[string]bool, len(s.Required))
	for _, r := range s.Required {
		required[r] = true
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for _, p := range orderedProperties(s.Properties) {
		var prop struct {
			Default json.RawMessage `json:"default"`
			Type    json.RawMessage `json:"type"`
			Enum    []json.RawMessage
			Const   json.RawMessage `json:"const"`
		}
		_ = json.Unmarshal(p.schema, &prop)
		var v json.RawMessage
		switch {
		case len(prop.Default) > 0:
			v = prop.Default
		case !required[p.name]:
			continue
		case len(prop.Const) > 0:
			v = prop.Const
		case len(prop.Enum) > 0:
			v = prop.Enum[0]
		default:
			v = emptyOfType(prop.Type)
		}
		if n > 0 {
			b.WriteByte(',')
		}
		name, _ := jsonenc.Marshal(p.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(v)
		n++
	}
	b.WriteByte('}')
	return b.Bytes()
}

func emptyOfType(t json.RawMessage) json.RawMessage {
	var name string
	if json.Unmarshal(t, &name) != nil {
		var names []string
		if json.Unmarshal(t, &names) == nil {
			for _, n := range names {
				if n != "null" {
					name = n
					break
				}
			}
		}
	}
	switch name {
	case "string":
		return json.RawMessage(`""`)
	case "integer", "number":
		return json.RawMessage(`0`)
	case "boolean":
		return json.RawMessage(`false`)
	case "array":
		return json.RawMessage(`[]`)
	case "object":
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(`null`)
}

type property struct {
	name   string
	schema json.RawMessage
}

// orderedProperties returns the members of a JSON object in the order they
// are written.
func orderedProperties(obj json.RawMessage) []property {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []property
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return out
		}
		out = append(out, property{name: name, schema: v})
	}
	return out
}

// paramNames returns the top-level property names of an input schema,
// sorted.
func paramNames(schema json.RawMessage) []string {
	if len(schema) == 0 {
		return nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	out := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

var _ argsEditor = (*rawEditor)(nil)
