package form

import (
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// jsonField is one value typed as JSON. It serves a schema with no structure
// to render (any value: text that is not JSON is sent as a string), and, as a
// fallback, a schema location the form cannot render ([Coverage] lists those),
// where the text must be JSON.
type jsonField struct {
	fieldBase
	in      textinput.Model
	lenient bool
}

func newJSON(fb fieldBase, lenient bool) *jsonField {
	ph := "JSON (the form cannot render this schema part)"
	if lenient {
		ph = "any JSON value, or text"
	}
	return &jsonField{fieldBase: fb, in: fb.env.newInput(ph), lenient: lenient}
}

func (f *jsonField) value() (any, bool, error) {
	raw := f.in.Value()
	s := strings.TrimSpace(raw)
	if s == "" {
		if f.item {
			return nil, false, errAt(f.path, "is empty: type a value or remove it")
		}
		return nil, false, nil
	}
	v, err := decodeOrdered([]byte(s))
	if err == nil {
		return v, true, nil
	}
	if f.lenient {
		return raw, true, nil
	}
	return nil, false, errAt(f.path, "not valid JSON: %v", err)
}

func (f *jsonField) set(v any) error {
	f.given = true
	f.in.SetValue(compactJSON(v))
	f.in.CursorEnd()
	return nil
}

func (f *jsonField) clear() {
	f.in.SetValue("")
	f.given = false
}

func (f *jsonField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	handled, changed, cmd := inputKey(&f.in, k)
	if changed {
		f.touch()
	}
	return handled, cmd
}

func (f *jsonField) update(msg tea.Msg) tea.Cmd {
	before := f.in.Value()
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	if f.in.Value() != before {
		f.touch()
	}
	return cmd
}

func (f *jsonField) check() string {
	if f.lenient || strings.TrimSpace(f.in.Value()) == "" {
		return ""
	}
	if _, _, err := f.value(); err != nil {
		return "not valid JSON yet"
	}
	return ""
}

func (f *jsonField) widget(*rctx) string { return f.in.View() }
func (f *jsonField) focus() tea.Cmd      { return f.in.Focus() }
func (f *jsonField) blur()               { f.in.Blur() }
func (f *jsonField) takesText() bool     { return true }
func (f *jsonField) setWidth(w int)      { f.in.SetWidth(max(w-1, 1)) }
