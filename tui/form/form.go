package form

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// Options configure a form.
type Options struct {
	Width, Height int     // the size to draw at; 0 means unbounded
	Styles        *Styles // nil means DefaultStyles; pass PlainStyles for NO_COLOR
	// Check is the validator the arguments must pass, the registry's
	// (Registry.ValidateArgs of the tool): the form runs it on its value
	// after each edit and shows its messages on the fields their JSON
	// pointers name, so that the form never accepts what the call would
	// refuse. The form checks nothing of the schema itself: nil means no
	// checks as you type beyond what a value needs to be built (a number
	// that does not parse, a map key given twice).
	Check func(args json.RawMessage) []tooling.FieldError
}

// SubmitMsg is what the form emits when a person submits it (ctrl+s, or
// enter on the last field) and the arguments parse. Args is the same JSON as
// [Model.Value] returns.
type SubmitMsg struct {
	Args json.RawMessage
}

// Model is the form of one schema. It is a Bubble Tea component used through
// a pointer: Update changes it in place and returns it.
type Model struct {
	env     *env
	node    *node // the root schema
	root    field
	rows    []field // the rows shown, in order
	parents []field // parents[i] is the row above rows[i] in the tree, or nil
	cur     field   // the focused row
	focus   int
	offset  int // the first body line shown
	width   int
	height  int
	labelW  int

	raw     bool
	area    *textEdit
	rawErr  string   // why the raw text cannot be used, as last tried
	rawErrs []string // the validator's messages, listed in raw mode
	asking  bool     // asking whether to drop raw edits the form cannot hold

	top       []string  // errors for paths with no field
	note      string    // what the last key did that is not in sight, until the next key
	removed   []removal // items and entries removed, the last one last, for undo
	checked   string    // the value Check last saw
	submitted bool
	initCmd   tea.Cmd
}

// New builds the form of a JSON Schema (drafts 2020-12 and 07). The only
// error is a schema that is not valid JSON; an empty schema means an object
// of any keys. Parts the form cannot render become JSON boxes (see
// [Coverage]).
func New(schema json.RawMessage, opts Options) (*Model, error) {
	var root any = newOmap(0)
	if len(bytes.TrimSpace(schema)) > 0 {
		v, err := decodeOrdered(schema)
		if err != nil {
			return nil, fmt.Errorf("form: the schema is not valid JSON: %w", err)
		}
		root = v
	}
	st := opts.Styles
	if st == nil {
		st = DefaultStyles()
	}
	e := &env{d: newDoc(root), st: st, keys: DefaultKeyMap(), inKeys: inputKeys(), check: opts.Check}
	m := &Model{env: e, width: opts.Width, height: opts.Height}
	m.node = e.d.resolve(sref{raw: root})
	m.root = m.newRoot()
	m.initCmd = m.relayout()
	m.recheck()
	return m, nil
}

// newRoot builds a fresh tree for the root schema. A root with no structure
// is an object of free keys: tool arguments are an object.
func (m *Model) newRoot() field {
	n := m.node
	if m.env.d.classify(n) == kindAny {
		n = n.clone()
		n.types = []string{"object"}
	}
	return m.env.build(n, fieldBase{label: "arguments", required: true, inline: true})
}

// Init returns the focused field's cursor blink.
func (m *Model) Init() tea.Cmd { return m.initCmd }

// SetSize sets the size the form draws at.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.relayout()
	m.sizeArea()
}

// Submitted reports whether the last Update submitted the form; the same
// Update returned a command that yields a [SubmitMsg].
func (m *Model) Submitted() bool { return m.submitted }

// Capturing reports whether the form takes every key, esc included: a
// picker is open or raw JSON is shown. A console routes esc (back) and its
// own letter keys to the form first while this is true.
func (m *Model) Capturing() bool { return m.raw || (m.cur != nil && m.cur.capturing()) }

// InputFocused reports whether the focused field takes text, so that
// printable keys (q, /, ?) are typing, not console commands.
func (m *Model) InputFocused() bool { return m.raw || (m.cur != nil && m.cur.takesText()) }

// Raw reports whether the form shows raw JSON.
func (m *Model) Raw() bool { return m.raw }

// Value returns the arguments as JSON, properties in schema order. Optional
// fields left empty are omitted, never sent as null or "". The error names
// the field whose input does not parse ("/count: not an integer"). In raw
// mode it is the raw text, which must be JSON.
func (m *Model) Value() (json.RawMessage, error) {
	if m.raw {
		v, err := decodeOrdered([]byte(m.area.Value()))
		if err != nil {
			return nil, fmt.Errorf("raw JSON: %w", err)
		}
		return json.RawMessage(compactJSON(v)), nil
	}
	return m.formValue()
}

// formValue is the value of the fields (raw mode aside).
func (m *Model) formValue() (json.RawMessage, error) {
	v, ok, err := m.root.value()
	if err != nil {
		return nil, err
	}
	if !ok { // nothing at all: an empty object for object roots, else null
		switch m.root.(type) {
		case *objectField, *mapField:
			v = newOmap(0)
		}
	}
	return json.RawMessage(compactJSON(v)), nil
}

// recheck runs Options.Check on the form's value when it changed since the
// last run, and puts the messages on the fields their pointers name: as
// hints while typing (a required field not filled in yet is not a mistake
// then), and in place of the errors shown after a submit or a call, which
// thus follow the edits: an error fixed goes, one still there stays. A
// value that does not parse is not checked: its field says why.
func (m *Model) recheck() {
	if m.env.check == nil || m.raw {
		return
	}
	v, err := m.formValue()
	if err != nil || string(v) == m.checked {
		return
	}
	m.checked = string(v)
	at := map[field][]tooling.FieldError{}
	var unplaced []string
	for _, fe := range m.env.check(v) {
		f, rest := m.find(fe.Path, false)
		if f == nil {
			unplaced = append(unplaced, pathText(fe.Path)+": "+fe.Message)
			continue
		}
		if rest != "" {
			fe.Message = rest + ": " + fe.Message
		}
		at[f] = append(at[f], fe)
	}
	walk(m.root, func(f field) {
		b := f.base()
		var all, live []string
		for _, fe := range at[f] {
			all = append(all, fe.Message)
			if fe.Keyword != "required" {
				live = append(live, fe.Message)
			}
		}
		if b.err != "" {
			b.err = strings.Join(all, "; ")
		}
		b.live = strings.Join(live, "; ")
	})
	if len(m.top) > 0 {
		m.top = unplaced
	}
}

// SetValue loads a JSON value into the form; Value then gives the same
// value back. On error (not JSON, or a value the schema has no place for)
// the form is unchanged.
func (m *Model) SetValue(v json.RawMessage) error {
	val, err := decodeOrdered(v)
	if err != nil {
		return fmt.Errorf("not valid JSON: %w", err)
	}
	root := m.newRoot()
	if err := root.set(val); err != nil {
		return err
	}
	path := ""
	if m.cur != nil {
		path = m.cur.base().path
	}
	if m.cur != nil {
		m.cur.blur()
	}
	m.root, m.cur, m.top, m.checked, m.removed = root, nil, nil, "", nil
	m.relayout()
	if f, rest := m.find(path, false); f != nil && rest == "" {
		m.focusField(f)
	}
	m.recheck()
	if m.raw {
		m.fillArea(val)
	}
	return nil
}

// SetErrors shows validator messages on the fields their JSON pointers name
// (opening collapsed objects on the way); messages for paths with no field
// are shown at the top. It replaces the messages shown before and focuses
// the first field with one.
//
// In raw mode, where no field is shown, the messages are listed above the
// JSON.
func (m *Model) SetErrors(errs []tooling.FieldError) {
	m.rawErrs = nil
	if m.raw {
		for _, fe := range errs {
			m.rawErrs = append(m.rawErrs, pathText(fe.Path)+": "+fe.Message)
		}
	}
	walk(m.root, func(f field) { f.base().err = "" })
	m.top, m.checked = nil, ""
	var first field
	for _, fe := range errs {
		f, rest := m.find(fe.Path, true)
		if f == nil {
			m.top = append(m.top, pathText(fe.Path)+": "+fe.Message)
			continue
		}
		msg := fe.Message
		if rest != "" {
			msg = rest + ": " + msg
		}
		b := f.base()
		if b.err != "" {
			b.err += "; "
		}
		b.err += msg
		if first == nil {
			first = f
		}
	}
	m.relayout()
	for _, f := range m.rows {
		if f.base().err != "" {
			m.focusField(f)
			return
		}
	}
	if first != nil { // the field is not a row: say it at the top
		m.top = append(m.top, pathText(first.base().path)+": "+first.base().err)
	}
}

// ToggleRaw switches between the form and raw JSON. Into raw mode the
// form's value must parse; back to the form the text must be JSON the form
// can hold, else the form stays in raw mode and shows why.
func (m *Model) ToggleRaw() error {
	if !m.raw {
		v, err := m.Value()
		if err != nil {
			m.showError(err)
			return err
		}
		val, _ := decodeOrdered(v)
		m.ensureArea()
		m.fillArea(val)
		if m.cur != nil {
			m.cur.blur()
		}
		m.raw, m.rawErr = true, ""
		m.area.Focus()
		return nil
	}
	text := m.area.Value()
	if strings.TrimSpace(text) == "" {
		text = "{}"
	}
	if err := m.SetValue(json.RawMessage(text)); err != nil {
		m.rawErr = err.Error()
		return err
	}
	m.raw, m.rawErr, m.rawErrs, m.asking = false, "", nil, false
	m.area.Blur()
	if m.cur != nil {
		m.cur.focus()
	}
	return nil
}

// leaveRaw goes back to the form with the raw text when the form can hold
// it; else it asks whether to drop the edits, and y (Discard) does.
func (m *Model) leaveRaw() tea.Cmd {
	if err := m.ToggleRaw(); err != nil {
		m.asking = true
		return nil
	}
	return m.focusCmd()
}

// discardRaw leaves raw mode without the raw text: the form is as it was
// when raw mode opened.
func (m *Model) discardRaw() tea.Cmd {
	m.raw, m.rawErr, m.rawErrs, m.asking = false, "", nil, false
	m.area.Blur()
	return m.focusCmd()
}

func (m *Model) ensureArea() {
	if m.area != nil {
		return
	}
	m.area = newTextEdit(&m.env.st.Area, true, "")
	m.sizeArea()
}

func (m *Model) sizeArea() {
	if m.area == nil {
		return
	}
	w, h := m.width, m.height-1
	if w <= 0 {
		w = 80
	}
	if m.height <= 0 {
		h = 20
	}
	m.area.SetWidth(w)
	m.area.SetHeight(max(h, 3))
}

func (m *Model) fillArea(v any) {
	var buf bytes.Buffer
	_ = json.Indent(&buf, []byte(compactJSON(v)), "", "  ")
	m.ensureArea()
	m.area.SetValue(buf.String())
	m.area.MoveToBegin()
}

// KeyMap returns the form's keys with those that do nothing on the focused
// field disabled, for the console's help.
func (m *Model) KeyMap() KeyMap {
	k := m.env.keys
	k.Discard.SetEnabled(m.asking)
	if m.raw {
		for _, b := range []*key.Binding{&k.Next, &k.Prev, &k.Down, &k.Up, &k.PageDown, &k.PageUp,
			&k.Toggle, &k.Choose, &k.Null, &k.Add, &k.Remove, &k.MoveUp, &k.MoveDown, &k.Undo} {
			b.SetEnabled(false)
		}
		k.Close.SetHelp("esc/ctrl+r", "back to the form")
		k.Raw.SetEnabled(false) // the same as esc here, said by Close
		if m.asking {
			k.Close.SetHelp("n/esc", "keep editing")
			k.Raw.SetEnabled(false)
			k.Submit.SetEnabled(false)
		}
		return k
	}
	f := m.cur
	var u field
	if f != nil {
		u = unwrap(f)
	}
	_, isNull := f.(*nullableField)
	item := f != nil && (f.base().owner != nil || m.entryOf(f) != nil)
	var toggles, chooses, container bool
	switch x := u.(type) {
	case *boolField, *multiField:
		toggles = true
	case *enumField, *unionField:
		toggles, chooses = true, true
	case *objectField:
		toggles = !x.inline
	case *arrayField, *mapField:
		container = true
	}
	if nf, ok := f.(*nullableField); ok && nf.null {
		toggles = !nf.in.takesText()
	}
	k.Toggle.SetEnabled(toggles)
	k.Choose.SetEnabled(chooses)
	k.Close.SetEnabled(f != nil && f.capturing())
	k.Null.SetEnabled(isNull)
	inItem := false
	if f != nil {
		it, _ := m.itemOf(m.enclosingItem(f))
		inItem = it != nil
	}
	k.Add.SetEnabled(inItem || container)
	k.Remove.SetEnabled(item)
	k.MoveUp.SetEnabled(item)
	k.MoveDown.SetEnabled(item)
	k.Undo.SetEnabled(len(m.removed) > 0)
	sf, isString := u.(*stringField)
	k.Text.SetEnabled(isString)
	k.Editor.SetEnabled(isString)
	k.Empty.SetEnabled(isString)
	if isString && sf.area != nil {
		k.Close.SetHelp("esc/ctrl+e", "close the editor")
		for _, b := range []*key.Binding{&k.Next, &k.Prev, &k.Down, &k.Up, &k.PageDown, &k.PageUp, &k.Text, &k.Empty, &k.Add, &k.Remove, &k.MoveUp, &k.MoveDown, &k.Undo, &k.Raw} {
			b.SetEnabled(false)
		}
	}
	return k
}
