package form

import tea "charm.land/bubbletea/v2"

// boolField is a checkbox. An optional boolean without a default has a third
// state, not set, so that leaving it alone omits it.
type boolField struct {
	fieldBase
	state int8 // -1 not set, 0 false, 1 true
	tri   bool
}

func newBool(fb fieldBase) *boolField {
	f := &boolField{fieldBase: fb, state: -1, tri: !fb.must() && !fb.n.hasDef}
	if fb.must() {
		f.state = 0
	}
	return f
}

func (f *boolField) value() (any, bool, error) {
	if f.state < 0 {
		return nil, false, nil
	}
	return f.state == 1, true, nil
}

func (f *boolField) set(v any) error {
	f.given = true
	b, ok := v.(bool)
	if !ok {
		return typeErr(f.path, "a boolean", v)
	}
	f.state = 0
	if b {
		f.state = 1
	}
	return nil
}

func (f *boolField) clear() { f.state, f.given = -1, false }

// key flips the box: false → true → false, and not set → true → false →
// not set for a three-state box.
func (f *boolField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	if !matches(k, f.env.keys.Toggle) {
		return false, nil
	}
	switch {
	case f.state == 1:
		f.state = 0
	case f.state == 0 && f.tri:
		f.state = -1
	default:
		f.state = 1
	}
	f.touch()
	return true, nil
}

func (f *boolField) widget(c *rctx) string {
	switch f.state {
	case 1:
		return c.st.Value.Render("[x] true")
	case 0:
		return c.st.Value.Render("[ ] false")
	}
	return c.st.Muted.Render("[ ] not set")
}
