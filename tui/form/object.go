package form

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"
)

// objectField is a nested object: a header that expands and collapses, and
// a field per property. A recursive object (one whose schema is already
// open above it) is built only when first expanded, so a recursive schema
// never loops. Properties the schema does not list are kept as loaded, and
// an "additionalProperties" schema adds a key/value editor below.
type objectField struct {
	fieldBase
	props   []field
	built   bool
	open    bool
	more    *mapField // the additionalProperties editor
	extras  *omap     // loaded properties the form has no field for
	present bool      // loaded as {}: sent although optional and empty
}

func newObject(fb fieldBase, rec bool) *objectField {
	f := &objectField{fieldBase: fb}
	if rec && !fb.inline {
		return f
	}
	f.open = true
	f.build()
	return f
}

func (f *objectField) childDepth() int {
	if f.inline {
		return f.depth
	}
	return f.depth + 1
}

// build makes the property fields once.
func (f *objectField) build() {
	if f.built {
		return
	}
	f.built = true
	e, depth := f.env, f.childDepth()
	for _, p := range f.n.props {
		pn := e.d.prop(p)
		if pn.never {
			continue
		}
		cb := f.childBase(p.name, p.name, depth)
		cb.required = f.n.isRequired(p.name)
		cb.path = joinPath(f.path, p.name)
		f.props = append(f.props, e.build(pn, cb))
	}
	if len(f.n.addl) > 0 {
		cb := f.childBase("(more keys)", "", depth)
		cb.path = f.path
		cb.n = f.n
		f.more = newMap(cb)
	}
}

func (f *objectField) value() (any, bool, error) {
	if !f.built { // a recursive object nobody opened: nothing in it yet
		if f.item || f.present {
			return newOmap(0), true, nil
		}
		return nil, false, nil
	}
	o := newOmap(len(f.props))
	for _, p := range f.props {
		v, ok, err := p.value()
		if err != nil {
			return nil, false, err
		}
		if ok {
			o.set(p.base().token, v)
		}
	}
	if f.more != nil {
		mv, ok, err := f.more.value()
		if err != nil {
			return nil, false, err
		}
		if ok {
			m := mv.(*omap)
			for _, k := range m.keys {
				if _, dup := o.get(k); dup {
					return nil, false, errAt(joinPath(f.path, k), "is a property above too")
				}
				o.set(k, m.vals[k])
			}
		}
	}
	if f.extras != nil {
		for _, k := range f.extras.keys {
			if _, dup := o.get(k); !dup {
				o.set(k, f.extras.vals[k])
			}
		}
	}
	if !f.must() && !f.present && (len(o.keys) == 0 || !givenIn(f)) {
		return nil, false, nil
	}
	return o, true, nil
}

func (f *objectField) prop(name string) field {
	i := slices.IndexFunc(f.props, func(p field) bool { return p.base().token == name })
	if i < 0 {
		return nil
	}
	return f.props[i]
}

func (f *objectField) set(v any) error {
	o, ok := v.(*omap)
	if !ok {
		return typeErr(f.path, "an object", v)
	}
	f.build()
	f.given, f.present, f.extras = true, len(o.keys) == 0, nil
	if f.more != nil {
		f.more.clear()
	}
	for _, p := range f.props {
		pv, ok := o.get(p.base().token)
		switch _, object := p.(*objectField); {
		case ok:
			if err := p.set(pv); err != nil {
				return err
			}
		case object:
			// An optional object holding only defaults is omitted from the
			// value: loaded back, it has its defaults again.
			restart(p)
		default:
			p.clear()
		}
	}
	for _, k := range o.keys {
		if f.prop(k) != nil {
			continue
		}
		switch {
		case f.more != nil:
			if err := f.more.add(k, o.vals[k]); err != nil {
				return err
			}
		case f.n.addlFalse || slices.ContainsFunc(f.n.props, func(p *propDef) bool { return p.name == k }):
			return errAt(joinPath(f.path, k), "is not an allowed property")
		default:
			if f.extras == nil {
				f.extras = newOmap(1)
			}
			f.extras.set(k, o.vals[k])
		}
	}
	return nil
}

func (f *objectField) clear() {
	f.given, f.present, f.extras = false, false, nil
	for _, p := range f.props {
		p.clear()
	}
	if f.more != nil {
		f.more.clear()
	}
}

func (f *objectField) kids(all bool) []field {
	if !f.built || (!all && !f.open && !f.inline) {
		return nil
	}
	if f.more == nil {
		return f.props
	}
	return append(slices.Clip(f.props), f.more)
}

func (f *objectField) child(tok string, expand bool) field {
	f.build()
	if expand {
		f.open = true
	}
	if p := f.prop(tok); p != nil {
		return p
	}
	if f.more != nil {
		return f.more.child(tok, expand)
	}
	return nil
}

func (f *objectField) setPath(p string) {
	f.path = p
	if f.more != nil {
		f.more.path = p
	}
}

func (f *objectField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	if f.inline {
		return false, nil
	}
	switch {
	case matches(k, f.env.keys.Toggle):
		f.open = !f.open
	case k.String() == "right":
		f.open = true
	case k.String() == "left":
		f.open = false
	default:
		return false, nil
	}
	if f.open {
		f.build()
	}
	return true, nil
}

func (f *objectField) marker() string {
	switch {
	case f.inline:
		return ""
	case f.open:
		return "▾ "
	}
	return "▸ "
}

func (f *objectField) widget(c *rctx) string {
	if !f.built {
		return c.st.Muted.Render("{…}  enter expands")
	}
	set := 0
	for _, p := range f.props {
		if _, ok, _ := p.value(); ok {
			set++
		}
	}
	s := fmt.Sprintf("{%d of %d set}", set, len(f.props))
	if f.extras != nil {
		s += fmt.Sprintf(" +%d kept from JSON", len(f.extras.keys))
	}
	return c.st.Muted.Render(s)
}
