package form

import (
	"fmt"
	"slices"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
)

// mapField is an object of free keys ("additionalProperties"): a list of
// entries, each a key and a value field of the additionalProperties schema
// (any JSON value when the schema gives none). Entries keep their order.
type mapField struct {
	fieldBase
	valNode *node
	entries []*mapEntry
	present bool // loaded as {}: sent although optional and empty
}

func newMap(fb fieldBase) *mapField {
	vn := newNode(fb.n.loc + "/additionalProperties")
	if len(fb.n.addl) > 0 {
		vn = fb.env.d.list(fb.n.addl)
	}
	return &mapField{fieldBase: fb, valNode: vn}
}

// mapEntry is one key of a map: its row edits the key, its one kid is the value.
type mapEntry struct {
	fieldBase
	m   *mapField
	in  textinput.Model
	val field
}

func (f *mapField) newEntry(key string) *mapEntry {
	eb := f.childBase("key", "", f.depth+1)
	eb.owner, eb.path = f, f.path
	e := &mapEntry{fieldBase: eb, m: f, in: f.env.newInput("key")}
	e.n = newNode(f.valNode.loc)
	e.in.SetValue(key)
	vb := f.childBase("value", key, f.depth+1)
	vb.item, vb.path = true, joinPath(f.path, key)
	e.val = f.env.build(f.valNode, vb)
	return e
}

// add loads one entry.
func (f *mapField) add(key string, v any) error {
	e := f.newEntry(key)
	if err := e.val.set(v); err != nil {
		return err
	}
	e.given = true
	f.entries = append(f.entries, e)
	return nil
}

func (f *mapField) value() (any, bool, error) {
	o := newOmap(len(f.entries))
	for _, e := range f.entries {
		k := e.in.Value()
		if k == "" && !givenIn(e) {
			continue // a blank entry
		}
		if k == "" {
			return nil, false, errAt(f.path, "an entry has no key")
		}
		if _, dup := o.get(k); dup {
			return nil, false, errAt(joinPath(f.path, k), "the key appears twice")
		}
		v, ok, err := e.val.value()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, errAt(joinPath(f.path, k), "is empty: fill it in or remove the entry")
		}
		o.set(k, v)
	}
	if len(o.keys) == 0 && !f.must() && !f.present {
		return nil, false, nil
	}
	return o, true, nil
}

func (f *mapField) set(v any) error {
	o, ok := v.(*omap)
	if !ok {
		return typeErr(f.path, "an object", v)
	}
	f.entries = nil
	for _, k := range o.keys {
		if err := f.add(k, o.vals[k]); err != nil {
			return err
		}
	}
	f.present, f.given = len(o.keys) == 0, true
	return nil
}

func (f *mapField) clear() { f.entries, f.present, f.given = nil, false, false }

func (f *mapField) kids(bool) []field {
	out := make([]field, len(f.entries))
	for i, e := range f.entries {
		out[i] = e
	}
	return out
}

func (f *mapField) child(tok string, _ bool) field {
	for _, e := range f.entries {
		if e.in.Value() == tok {
			return e.val
		}
	}
	return nil
}

func (f *mapField) insertAfter(after field) field {
	i := len(f.entries)
	if e, ok := after.(*mapEntry); ok {
		if j := slices.Index(f.entries, e); j >= 0 {
			i = j + 1
		}
	}
	e := f.newEntry("")
	if o, ok := unwrap(e.val).(*objectField); ok {
		o.build()
		o.open = true
	}
	f.entries = slices.Insert(f.entries, i, e)
	f.touch()
	return e
}

func (f *mapField) remove(it field) int {
	i := slices.IndexFunc(f.entries, func(e *mapEntry) bool { return field(e) == it })
	if i < 0 {
		return -1
	}
	f.entries = slices.Delete(f.entries, i, i+1)
	f.touch()
	return i
}

func (f *mapField) restore(i int, it field) {
	e, ok := it.(*mapEntry)
	if !ok {
		return
	}
	f.entries = slices.Insert(f.entries, min(max(i, 0), len(f.entries)), e)
	f.touch()
}

func (f *mapField) move(it field, delta int) bool {
	i := slices.IndexFunc(f.entries, func(e *mapEntry) bool { return field(e) == it })
	j := i + delta
	if i < 0 || j < 0 || j >= len(f.entries) {
		return false
	}
	f.entries[i], f.entries[j] = f.entries[j], f.entries[i]
	f.touch()
	return true
}

func (f *mapField) widget(c *rctx) string {
	var s string
	switch len(f.entries) {
	case 0:
		s = "empty: ctrl+n adds a key"
	case 1:
		s = "1 key"
	default:
		s = fmt.Sprintf("%d keys", len(f.entries))
	}
	return c.st.Muted.Render("{" + s + "}")
}

func (f *mapField) check() string {
	seen := map[string]bool{}
	for _, e := range f.entries {
		k := e.in.Value()
		if k != "" && seen[k] {
			return fmt.Sprintf("the key %q appears twice", k)
		}
		seen[k] = true
	}
	return ""
}

func (e *mapEntry) value() (any, bool, error) { return e.val.value() }
func (e *mapEntry) set(v any) error           { return e.val.set(v) }
func (e *mapEntry) clear()                    { e.val.clear() }
func (e *mapEntry) kids(bool) []field         { return []field{e.val} }
func (e *mapEntry) widget(*rctx) string       { return e.in.View() }
func (e *mapEntry) focus() tea.Cmd            { return e.in.Focus() }
func (e *mapEntry) blur()                     { e.in.Blur() }
func (e *mapEntry) takesText() bool           { return true }
func (e *mapEntry) setWidth(w int)            { e.in.SetWidth(max(w-1, 1)) }

func (e *mapEntry) setPath(p string) {
	e.path = p
	e.val.base().token = e.in.Value()
}

func (e *mapEntry) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	handled, changed, cmd := inputKey(&e.in, k)
	if changed {
		e.touch()
		e.m.touch()
	}
	return handled, cmd
}

func (e *mapEntry) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	e.in, cmd = e.in.Update(msg)
	return cmd
}

func (e *mapEntry) check() string {
	if e.in.Value() == "" && givenIn(e.val) {
		return "type a key"
	}
	return ""
}
