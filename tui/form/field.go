package form

import (
	"encoding/json"
	"slices"
	"strconv"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// field is one node of the form: a row that can take focus, and the rows of
// its children. A field's value is its part of the arguments.
type field interface {
	base() *fieldBase
	// value returns the field's JSON value and whether it has one; an empty
	// optional field has none and is omitted. err is input that does not
	// parse, at the field's path.
	value() (v any, ok bool, err error)
	// set loads a decoded JSON value; clear empties the field.
	set(v any) error
	clear()
	// kids are the child fields: shown ones only (all false: collapsed
	// objects hide theirs) or every built one (all true).
	kids(all bool) []field
	// child finds the child at one JSON pointer token, building and (with
	// expand) opening what it has to.
	child(tok string, expand bool) field
	widget(c *rctx) string
	extra(c *rctx) []string // lines under the row: an open picker
	key(k tea.KeyPressMsg) (handled bool, cmd tea.Cmd)
	update(msg tea.Msg) tea.Cmd // other messages while focused (cursor blink, paste)
	focus() tea.Cmd
	blur()
	check() string    // why the input does not make a value yet, "" when it does
	takesText() bool  // printable keys are input, not commands
	capturing() bool  // a picker is open and takes every key
	setPath(p string) // the field's JSON pointer, set before its kids'
	setWidth(w int)   // the width of the widget column
	marker() string   // drawn before the label (▾/▸ on objects)
}

// container holds items a person adds, removes and reorders: arrays and maps.
type container interface {
	insertAfter(after field) field
	remove(f field) int     // where f was, -1 when it was not there
	restore(i int, f field) // puts a removed f back at index i
	move(f field, delta int) bool
}

// fieldBase is what every field has; its methods are the defaults.
type fieldBase struct {
	env      *env
	n        *node
	label    string
	token    string // the JSON pointer token under the parent; "" for the parent's own value
	path     string
	required bool
	item     bool // an array item or map value: it must produce a value
	depth    int
	anc      []string  // schema locations open above and at this field
	owner    container // the array or map this field is an item of
	err      string    // the validator's message after a submit or a call
	live     string    // the validator's message as the value stands (Options.Check)
	given    bool      // holds something loaded or typed, not only its initial state
	inline   bool      // an object shown without its own row: the root, a union's variant
}

// touch records that a person changed the field.
func (b *fieldBase) touch() { b.given = true }

// forget marks f and everything under it as holding only initial values
// (defaults count as initial: an optional object filled only with defaults is
// still omitted).
func forget(f field) {
	f.base().given = false
	for _, k := range f.kids(true) {
		forget(k)
	}
}

// restart puts f back as it was built: its schema's default when it has
// one, else empty with the defaults of everything under it.
func restart(f field) {
	f.clear()
	if n := f.base().n; n != nil && n.hasDef {
		if err := f.set(n.def); err != nil {
			f.clear()
		}
	} else {
		for _, k := range f.kids(true) {
			restart(k)
		}
	}
	forget(f)
}

// givenIn reports whether f or anything under it holds a loaded or typed value.
func givenIn(f field) bool {
	if f.base().given {
		return true
	}
	for _, k := range f.kids(true) {
		if givenIn(k) {
			return true
		}
	}
	return false
}

func (b *fieldBase) base() *fieldBase                    { return b }
func (b *fieldBase) kids(bool) []field                   { return nil }
func (b *fieldBase) child(string, bool) field            { return nil }
func (b *fieldBase) extra(*rctx) []string                { return nil }
func (b *fieldBase) key(tea.KeyPressMsg) (bool, tea.Cmd) { return false, nil }
func (b *fieldBase) update(tea.Msg) tea.Cmd              { return nil }
func (b *fieldBase) focus() tea.Cmd                      { return nil }
func (b *fieldBase) blur()                               {}
func (b *fieldBase) check() string                       { return "" }
func (b *fieldBase) takesText() bool                     { return false }
func (b *fieldBase) capturing() bool                     { return false }
func (b *fieldBase) setPath(p string)                    { b.path = p }
func (b *fieldBase) setWidth(int)                        {}
func (b *fieldBase) marker() string                      { return "" }

// must reports whether an empty field still has to produce a value.
func (b *fieldBase) must() bool { return b.required || b.item }

// childBase is the base of a child field under b.
func (b *fieldBase) childBase(label, token string, depth int) fieldBase {
	return fieldBase{env: b.env, label: label, token: token, depth: depth, anc: b.anc}
}

func joinPath(parent, tok string) string {
	if tok == "" {
		return parent
	}
	return parent + "/" + jsonpointer.Escape(tok)
}

// env is what every field of one form shares.
type env struct {
	d      *doc
	st     *Styles
	keys   KeyMap
	inKeys textinput.KeyMap
	check  func(json.RawMessage) []tooling.FieldError // Options.Check
}

// maxDepth bounds nesting; deeper values are edited as JSON.
const maxDepth = 48

// build makes the field for schema n. fb carries the label, token, depth,
// required mark and the schema locations open above.
func (e *env) build(n *node, fb fieldBase) field {
	fb.env, fb.n = e, n
	above := fb.anc
	rec := n.recursive(above)
	fb.anc = append(append(slices.Clip(above), n.loc), n.refs...)
	k := e.d.classify(n)
	if fb.depth > maxDepth || len(above) > 8*maxDepth {
		k = kindFallback
	}
	var f field
	switch k {
	case kindNullable:
		in, _ := e.d.nullSplit(n)
		f = newNullable(e, fb, in, above)
	case kindConst:
		f = &constField{fieldBase: fb, v: n.cnst}
	case kindNull:
		f = &constField{fieldBase: fb}
	case kindEnum:
		f = newEnum(fb, n.enum)
	case kindMulti:
		f = newMulti(fb, e.d.list(n.items))
	case kindUnion:
		vars := e.d.variants(n)
		if opts, labels, ok := constChoices(vars); ok {
			f = newEnum(fb, opts) // oneOf of titled consts: an enum with labels
			f.(*enumField).relabel(labels)
		} else {
			f = newUnion(fb, vars, rec)
		}
	case kindObject:
		f = newObject(fb, rec)
	case kindMap:
		f = newMap(fb)
	case kindArray:
		f = newArray(fb)
	case kindString:
		f = newString(fb)
	case kindInteger:
		f = newNumber(fb, true)
	case kindNumber:
		f = newNumber(fb, false)
	case kindBool:
		f = newBool(fb)
	case kindFallback:
		f = newJSON(fb, false)
	default:
		f = newJSON(fb, true)
	}
	if n.hasDef {
		if err := f.set(n.def); err != nil {
			f.clear()
		}
		forget(f)
	}
	return f
}

// newInput is a one-line text input with the form's keys and styles.
func (e *env) newInput(placeholder string) textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	if placeholder != "" {
		q := e.st.PlaceholderQuotes
		placeholder = q[0] + placeholder + q[1]
	}
	in.Placeholder = placeholder
	in.KeyMap = e.inKeys
	in.SetStyles(e.st.Input)
	return in
}

// textKey is a key press that edits text rather than commanding the form.
func textKey(k tea.KeyPressMsg) bool {
	if k.Text != "" {
		return true
	}
	switch k.String() {
	case "backspace", "delete", "left", "right", "home", "end", "ctrl+a", "ctrl+e",
		"ctrl+b", "ctrl+f", "ctrl+h", "ctrl+k", "ctrl+u", "ctrl+w", "ctrl+v",
		"alt+left", "alt+right", "alt+b", "alt+f", "alt+backspace", "alt+delete", "alt+d",
		"ctrl+left", "ctrl+right", "ctrl+backspace", "ctrl+delete":
		return true
	}
	return false
}

// moveKey reports whether k, a textKey, only moves the cursor.
func moveKey(k tea.KeyPressMsg) bool {
	switch k.String() {
	case "left", "right", "home", "end", "ctrl+a", "ctrl+b", "ctrl+f",
		"alt+left", "alt+right", "alt+b", "alt+f", "ctrl+left", "ctrl+right":
		return true
	}
	return false
}

// inputKey passes a key to a text input and reports whether its text changed.
func inputKey(in *textinput.Model, k tea.KeyPressMsg) (bool, bool, tea.Cmd) {
	if !textKey(k) {
		return false, false, nil
	}
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(k)
	return true, in.Value() != before, cmd
}

func matches(k tea.KeyPressMsg, b key.Binding) bool { return key.Matches(k, b) }

// indexLabel is the label of array item i.
func indexLabel(i int) string { return "[" + strconv.Itoa(i) + "]" }

// unwrap looks through a nullable field that holds a value.
func unwrap(f field) field {
	if nf, ok := f.(*nullableField); ok && !nf.null {
		return unwrap(nf.in)
	}
	return f
}
