package form

import (
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"
)

// unionField picks a branch of a oneOf/anyOf (or a type of a multi-type
// schema) and shows that branch's form below: an object branch's properties
// directly, any other branch as one field. Each branch keeps what was typed
// in it while another is shown.
type unionField struct {
	fieldBase
	vars   []variant
	fields []field // built on first choice
	cur    int     // -1 when none is chosen
	pk     picker
}

func newUnion(fb fieldBase, vars []variant, rec bool) *unionField {
	f := &unionField{fieldBase: fb, vars: vars, fields: make([]field, len(vars)), cur: -1}
	if fb.must() && !rec && len(vars) > 0 {
		f.cur = 0
		f.variant(0)
	}
	return f
}

// variant returns the field of branch i, building it on first use.
func (f *unionField) variant(i int) field {
	if f.fields[i] == nil {
		cb := f.childBase("value", "", f.depth+1)
		cb.path, cb.required, cb.inline = f.path, true, true
		f.fields[i] = f.env.build(f.vars[i].n, cb)
	}
	return f.fields[i]
}

func (f *unionField) offersNone() bool { return !f.must() }

func (f *unionField) labels() []string {
	var out []string
	if f.offersNone() {
		out = append(out, noneLabel)
	}
	for _, v := range f.vars {
		out = append(out, v.label)
	}
	return out
}

func (f *unionField) line(i int) int {
	if f.offersNone() {
		return i + 1
	}
	return max(i, 0)
}

func (f *unionField) choice(line int) int {
	if f.offersNone() {
		return line - 1
	}
	return line
}

func (f *unionField) choose(i int) {
	f.cur = i
	if i >= 0 {
		f.variant(i).setPath(f.path)
	}
	f.touch()
}

func (f *unionField) value() (any, bool, error) {
	if f.cur < 0 {
		return nil, false, nil
	}
	return f.fields[f.cur].value()
}

// set loads v into the branch it fits best: a matching const discriminator
// first, then the type and the properties.
func (f *unionField) set(v any) error {
	type cand struct{ i, score int }
	var cands []cand
	for i, vr := range f.vars {
		if s := f.env.d.score(vr.n, v, 0); s >= 0 {
			cands = append(cands, cand{i, s})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return b.score - a.score })
	var first error
	for _, c := range cands {
		vf := f.variant(c.i)
		vf.setPath(f.path)
		if err := vf.set(v); err != nil {
			vf.clear()
			if first == nil {
				first = err
			}
			continue
		}
		f.cur, f.given = c.i, true
		return nil
	}
	if first != nil {
		return first
	}
	return errAt(f.path, "%s matches none of the %d choices", typeName(v), len(f.vars))
}

func (f *unionField) clear() {
	f.cur, f.given = -1, false
	for _, vf := range f.fields {
		if vf != nil {
			vf.clear()
		}
	}
}

func (f *unionField) kids(all bool) []field {
	if f.cur < 0 {
		return nil
	}
	vf := f.fields[f.cur]
	if o, ok := vf.(*objectField); ok && o.inline {
		return o.kids(all)
	}
	return []field{vf}
}

func (f *unionField) child(tok string, expand bool) field {
	if f.cur < 0 {
		return nil
	}
	return f.fields[f.cur].child(tok, expand)
}

func (f *unionField) setPath(p string) {
	f.path = p
	for _, vf := range f.fields {
		if vf != nil {
			vf.setPath(p)
		}
	}
}

func (f *unionField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	e := f.env
	labels := f.labels()
	if f.pk.open {
		if f.pk.filterKey(k, labels) {
			return true, nil
		}
		switch {
		case matches(k, e.keys.Toggle):
			if slices.Contains(f.pk.shown(labels), f.pk.at) {
				f.choose(f.choice(f.pk.at))
			}
			f.pk = picker{}
		case matches(k, e.keys.Close):
			f.pk = picker{}
		default:
			f.pk.move(e, k, labels)
		}
		return true, nil
	}
	switch {
	case matches(k, e.keys.Toggle):
		if len(labels) > 0 {
			f.pk = picker{open: true, at: f.line(f.cur)}
		}
	case k.String() == "left" || k.String() == "right":
		if len(labels) == 0 {
			return true, nil
		}
		d := 1
		if k.String() == "left" {
			d = -1
		}
		l := f.line(f.cur)
		if f.cur < 0 && !f.offersNone() {
			l = 0
			if d > 0 {
				l = -1
			}
		}
		f.choose(f.choice((l + d + len(labels)) % len(labels)))
	default:
		return false, nil
	}
	return true, nil
}

func (f *unionField) capturing() bool { return f.pk.open }

func (f *unionField) widget(c *rctx) string {
	count := c.st.Muted.Render(fmt.Sprintf("  (one of %d)", len(f.vars)))
	if f.cur < 0 {
		word := noneLabel
		if !f.offersNone() {
			word = "(choose one)"
		}
		return c.st.Muted.Render(word) + count
	}
	return c.st.Value.Render("◂ "+f.vars[f.cur].label+" ▸") + count
}

func (f *unionField) extra(c *rctx) []string {
	return f.pk.lines(c, f.labels(), func(i int) string {
		if f.choice(i) == f.cur {
			return "(•)"
		}
		return "( )"
	})
}
