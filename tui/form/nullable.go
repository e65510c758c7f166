package form

import tea "charm.land/bubbletea/v2"

// nullableField wraps a field whose schema also allows null
// ({"type": ["string", "null"]}, or anyOf/oneOf with {"type": "null"}) with
// an explicit null: ctrl+t switches between null and a value, and typing
// into a null text field gives it a value. Its row is the inner field's row.
type nullableField struct {
	fieldBase
	in   field
	null bool
}

// newNullable builds the inner field of schema in; anc are the schema
// locations open above the wrapper (the inner field is the same location).
func newNullable(e *env, fb fieldBase, in *node, anc []string) *nullableField {
	ib := fb
	ib.anc, ib.required, ib.item, ib.owner = anc, false, false, nil
	f := &nullableField{fieldBase: fb, in: e.build(in, ib), null: fb.must()}
	return f
}

func (f *nullableField) value() (any, bool, error) {
	if f.null {
		return nil, true, nil
	}
	v, ok, err := f.in.value()
	if err != nil || ok {
		return v, ok, err
	}
	if f.must() {
		return nil, true, nil
	}
	return nil, false, nil
}

func (f *nullableField) set(v any) error {
	f.given = true
	if v == nil {
		f.null = true
		f.in.clear()
		return nil
	}
	f.null = false
	return f.in.set(v)
}

func (f *nullableField) clear() {
	f.null, f.given = false, false
	f.in.clear()
}

func (f *nullableField) kids(all bool) []field {
	if f.null {
		return nil
	}
	return f.in.kids(all)
}

func (f *nullableField) child(tok string, expand bool) field {
	if f.null {
		return nil
	}
	return f.in.child(tok, expand)
}

func (f *nullableField) setPath(p string) {
	f.path = p
	f.in.setPath(p)
}

func (f *nullableField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	e := f.env
	if matches(k, e.keys.Null) {
		f.null = !f.null
		f.touch()
		return true, nil
	}
	if f.null {
		takes := f.in.takesText()
		switch {
		case takes && k.Text != "":
			f.null = false
			f.touch()
			return f.in.key(k)
		case !takes && matches(k, e.keys.Toggle):
			f.null = false
			f.touch()
			return true, nil
		}
		return false, nil
	}
	return f.in.key(k)
}

func (f *nullableField) widget(c *rctx) string {
	if f.null {
		return c.st.Null.Render("null") + c.st.Muted.Render("  ctrl+t gives a value")
	}
	return f.in.widget(c)
}

func (f *nullableField) extra(c *rctx) []string {
	if f.null {
		return nil
	}
	return f.in.extra(c)
}

func (f *nullableField) update(msg tea.Msg) tea.Cmd {
	if f.null {
		if _, ok := msg.(tea.PasteMsg); ok && f.in.takesText() {
			f.null = false
		}
	}
	return f.in.update(msg)
}

func (f *nullableField) check() string {
	if f.null {
		return ""
	}
	return f.in.check()
}

func (f *nullableField) marker() string {
	if f.null {
		return ""
	}
	return f.in.marker()
}

func (f *nullableField) focus() tea.Cmd  { return f.in.focus() }
func (f *nullableField) blur()           { f.in.blur() }
func (f *nullableField) takesText() bool { return f.in.takesText() }
func (f *nullableField) capturing() bool { return !f.null && f.in.capturing() }
func (f *nullableField) setWidth(w int)  { f.in.setWidth(w) }
