package form

import (
	"fmt"
	"slices"
	"strconv"
)

// arrayField is a list of items of one schema: scalars, objects (each item a
// nested form), unions. Items are added, removed and moved with keys.
type arrayField struct {
	fieldBase
	itemNode *node
	items    []field
	present  bool // loaded as []: sent although optional and empty
}

func newArray(fb fieldBase) *arrayField {
	return &arrayField{fieldBase: fb, itemNode: fb.env.d.list(fb.n.items)}
}

func (f *arrayField) newItem(i int) field {
	cb := f.childBase(indexLabel(i), strconv.Itoa(i), f.depth+1)
	cb.item, cb.owner = true, f
	cb.path = joinPath(f.path, cb.token)
	return f.env.build(f.itemNode, cb)
}

// renumber gives the items their labels, tokens and paths after a change.
func (f *arrayField) renumber() {
	for i, it := range f.items {
		b := it.base()
		b.label, b.token = indexLabel(i), strconv.Itoa(i)
		it.setPath(joinPath(f.path, b.token))
	}
}

func (f *arrayField) value() (any, bool, error) {
	if len(f.items) == 0 {
		if f.must() || f.present {
			return []any{}, true, nil
		}
		return nil, false, nil
	}
	out := make([]any, 0, len(f.items))
	for _, it := range f.items {
		v, ok, err := it.value()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, errAt(it.base().path, "is empty: fill it in or remove the item")
		}
		out = append(out, v)
	}
	return out, true, nil
}

func (f *arrayField) set(v any) error {
	arr, ok := v.([]any)
	if !ok {
		return typeErr(f.path, "an array", v)
	}
	f.items = nil
	for i, e := range arr {
		it := f.newItem(i)
		if err := it.set(e); err != nil {
			return err
		}
		f.items = append(f.items, it)
	}
	f.present, f.given = len(arr) == 0, true
	return nil
}

func (f *arrayField) clear() { f.items, f.present, f.given = nil, false, false }

func (f *arrayField) kids(bool) []field { return f.items }

func (f *arrayField) child(tok string, _ bool) field {
	i, err := strconv.Atoi(tok)
	if err != nil || i < 0 || i >= len(f.items) || strconv.Itoa(i) != tok {
		return nil
	}
	return f.items[i]
}

func (f *arrayField) setPath(p string) {
	f.path = p
	f.renumber()
}

func (f *arrayField) insertAfter(after field) field {
	i := len(f.items)
	if after != nil {
		if j := slices.Index(f.items, after); j >= 0 {
			i = j + 1
		}
	}
	it := f.newItem(i)
	if o, ok := unwrap(it).(*objectField); ok { // a person asked for this item: open it
		o.build()
		o.open = true
	}
	f.items = slices.Insert(f.items, i, it)
	f.touch()
	f.renumber()
	return it
}

func (f *arrayField) remove(it field) int {
	i := slices.Index(f.items, it)
	if i < 0 {
		return -1
	}
	f.items = slices.Delete(f.items, i, i+1)
	f.touch()
	f.renumber()
	return i
}

func (f *arrayField) restore(i int, it field) {
	f.items = slices.Insert(f.items, min(max(i, 0), len(f.items)), it)
	f.touch()
	f.renumber()
}

func (f *arrayField) move(it field, delta int) bool {
	i := slices.Index(f.items, it)
	j := i + delta
	if i < 0 || j < 0 || j >= len(f.items) {
		return false
	}
	f.items[i], f.items[j] = f.items[j], f.items[i]
	f.touch()
	f.renumber()
	return true
}

func (f *arrayField) widget(c *rctx) string {
	var s string
	switch len(f.items) {
	case 0:
		s = "empty: ctrl+n adds an item"
	case 1:
		s = "1 item"
	default:
		s = fmt.Sprintf("%d items", len(f.items))
	}
	return c.st.Muted.Render("[" + s + "]")
}
