package form

import (
	"errors"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
)

// Update handles keys, paste, the mouse wheel and the cursor's blink.
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	m.submitted = false
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg:
		defer m.recheck()
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.MouseWheelMsg:
		if m.raw {
			break
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			return m, m.moveFocus(-1)
		case tea.MouseWheelDown:
			return m, m.moveFocus(1)
		}
		return m, nil
	}
	if m.raw {
		if m.area.Update(msg) {
			m.recheckRaw()
		}
		return m, nil
	}
	if m.cur == nil {
		return m, nil
	}
	cmd := m.cur.update(msg)
	if _, ok := msg.(tea.PasteMsg); ok {
		m.relayout()
	}
	return m, cmd
}

func (m *Model) handleKey(k tea.KeyPressMsg) tea.Cmd {
	keys := &m.env.keys
	if m.asking { // y drops the raw edits; n or esc keeps editing them
		switch {
		case matches(k, keys.Discard):
			return m.discardRaw()
		case matches(k, keys.Close), k.String() == "n", k.String() == "N":
			m.asking = false
		}
		return nil
	}
	switch {
	case matches(k, keys.Submit):
		return m.submit()
	case m.raw && (matches(k, keys.Raw) || matches(k, keys.Close)):
		return m.leaveRaw()
	case matches(k, keys.Raw):
		_ = m.ToggleRaw() // a failure is shown in the view
		if m.raw {
			return m.area.Focus()
		}
		return m.focusCmd()
	}
	if m.raw {
		if m.area.Update(k) {
			m.recheckRaw()
		}
		return nil
	}
	m.note = ""
	if matches(k, keys.Undo) {
		return m.undoRemove()
	}
	f := m.cur
	if f == nil {
		if k.String() == "enter" {
			return m.submit()
		}
		return nil
	}
	before := fieldText(f)
	defer func() {
		if fieldText(f) != before {
			f.base().err = ""
		}
	}()
	if f.capturing() {
		_, cmd := f.key(k)
		return tea.Batch(cmd, m.relayout())
	}
	typing := f.takesText() && k.Text != ""
	switch {
	case matches(k, keys.Next), matches(k, keys.Down):
		return m.moveFocus(1)
	case matches(k, keys.Prev), matches(k, keys.Up):
		return m.moveFocus(-1)
	case matches(k, keys.PageDown):
		return m.moveFocus(m.pageStep())
	case matches(k, keys.PageUp):
		return m.moveFocus(-m.pageStep())
	case !typing && matches(k, keys.Add):
		// ctrl+n adds from any field of an item; a letter (a) only on the
		// item's or the list's own row.
		if ok, cmd := m.addItem(f, k.Text == ""); ok {
			return cmd
		}
	case !typing && matches(k, keys.Remove):
		if ok, cmd := m.removeItem(f); ok {
			return cmd
		}
	case matches(k, keys.MoveUp):
		return m.moveItem(f, -1)
	case matches(k, keys.MoveDown):
		return m.moveItem(f, 1)
	}
	handled, cmd := f.key(k)
	if handled {
		return tea.Batch(cmd, m.relayout())
	}
	if k.String() == "enter" {
		if m.focus == len(m.rows)-1 {
			return m.submit()
		}
		return m.moveFocus(1)
	}
	return nil
}

// fieldText is a field's value as text, to notice a change.
func fieldText(f field) string {
	v, ok, err := f.value()
	switch {
	case err != nil:
		return "error:" + err.Error()
	case !ok:
		return "absent"
	}
	if s, ok := v.(string); ok { // a long text costs no encoding
		return "string:" + s
	}
	return compactJSON(v)
}

// recheckRaw keeps the error shown over the raw text true to the text as
// edited: gone once the text is JSON again.
func (m *Model) recheckRaw() {
	if m.rawErr == "" {
		return
	}
	if _, err := m.Value(); err != nil {
		m.rawErr = err.Error()
	} else {
		m.rawErr = ""
	}
}

func (m *Model) submit() tea.Cmd {
	v, err := m.Value()
	if err != nil {
		if m.raw {
			m.rawErr = err.Error()
		} else {
			m.showError(err)
		}
		return nil
	}
	m.submitted = true
	return func() tea.Msg { return SubmitMsg{Args: v} }
}

// showError puts a parse error on its field and focuses it.
func (m *Model) showError(err error) {
	var ve *valueError
	if !errors.As(err, &ve) {
		m.top = []string{err.Error()}
		return
	}
	f, rest := m.find(ve.path, true)
	m.relayout()
	if f == nil || rest != "" || !slices.Contains(m.rows, f) {
		m.top = []string{ve.Error()}
		return
	}
	f.base().err = ve.msg
	m.focusField(f)
}

// find returns the field at a JSON pointer, and what is left of the pointer
// when it goes into a JSON box.
func (m *Model) find(path string, expand bool) (field, string) {
	if path == "" {
		if m.rootIsRows() {
			return nil, ""
		}
		return m.root, ""
	}
	if !strings.HasPrefix(path, "/") {
		return nil, ""
	}
	toks := strings.Split(path[1:], "/")
	f := m.root
	for i, t := range toks {
		c := f.child(jsonpointer.Unescape(t), expand)
		if c == nil {
			if _, ok := f.(*jsonField); ok && f != m.root {
				return f, "/" + strings.Join(toks[i:], "/")
			}
			return nil, ""
		}
		f = c
	}
	return f, ""
}

// rootIsRows reports whether the root has no row of its own (an object).
func (m *Model) rootIsRows() bool {
	o, ok := m.root.(*objectField)
	return ok && o.inline
}

func walk(f field, fn func(field)) {
	fn(f)
	for _, k := range f.kids(true) {
		walk(k, fn)
	}
}

// relayout recomputes the paths, the rows shown and the label column after a
// change, keeping the focus on the same field when it is still shown.
func (m *Model) relayout() tea.Cmd {
	m.root.setPath("")
	var paths func(f field)
	paths = func(f field) {
		for _, k := range f.kids(true) {
			k.setPath(joinPath(f.base().path, k.base().token))
			paths(k)
		}
	}
	paths(m.root)

	m.rows, m.parents = m.rows[:0], m.parents[:0]
	var visit func(f, parent field)
	visit = func(f, parent field) {
		m.rows = append(m.rows, f)
		m.parents = append(m.parents, parent)
		for _, k := range f.kids(false) {
			visit(k, f)
		}
	}
	if m.rootIsRows() {
		for _, k := range m.root.kids(false) {
			visit(k, nil)
		}
	} else {
		visit(m.root, nil)
	}

	w := 0
	for _, f := range m.rows {
		b := f.base()
		l := 2*b.depth + textWidth(f.marker()+b.label) + 1
		w = max(w, l)
	}
	m.labelW = max(w+1, 8)
	if m.width > 0 {
		m.labelW = min(m.labelW, max(12, m.width*2/5))
	}
	for _, f := range m.rows {
		f.setWidth(m.widgetWidth())
	}

	if len(m.rows) == 0 {
		m.cur, m.focus = nil, 0
		return nil
	}
	if i := slices.Index(m.rows, m.cur); i >= 0 {
		m.focus = i
		return nil
	}
	if m.cur != nil {
		m.cur.blur()
	}
	m.focus = min(max(m.focus, 0), len(m.rows)-1)
	m.cur = m.rows[m.focus]
	if m.raw {
		return nil
	}
	return m.cur.focus()
}

func (m *Model) widgetWidth() int {
	if m.width <= 0 {
		return 40
	}
	return max(m.width-2-m.labelW-1, 10)
}

func (m *Model) focusCmd() tea.Cmd {
	if m.raw || m.cur == nil {
		return nil
	}
	return m.cur.focus()
}

// moveFocus moves the focus by delta rows, stopping at the ends.
func (m *Model) moveFocus(delta int) tea.Cmd {
	if len(m.rows) == 0 {
		return nil
	}
	i := min(max(m.focus+delta, 0), len(m.rows)-1)
	return m.focusField(m.rows[i])
}

func (m *Model) focusField(f field) tea.Cmd {
	i := slices.Index(m.rows, f)
	if i < 0 {
		return nil
	}
	if m.cur == f {
		m.focus = i
		return nil
	}
	if m.cur != nil {
		m.cur.blur()
	}
	m.cur, m.focus = f, i
	if m.raw {
		return nil
	}
	return f.focus()
}

func (m *Model) pageStep() int {
	if m.height <= 0 {
		return 10
	}
	return max(m.height/3, 1)
}

// entryOf returns the map entry whose value row f is, or nil.
func (m *Model) entryOf(f field) *mapEntry {
	if i := slices.Index(m.rows, f); i >= 0 {
		if e, ok := m.parents[i].(*mapEntry); ok {
			return e
		}
	}
	return nil
}

// itemOf returns the array item or map entry the focused row f is, and
// where it belongs.
func (m *Model) itemOf(f field) (field, container) {
	if o := f.base().owner; o != nil {
		return f, o
	}
	if e := m.entryOf(f); e != nil {
		return e, e.m
	}
	return nil, nil
}

// addItem adds an item to the list f is, or after the item f is (with
// inside, the item f is a field of).
func (m *Model) addItem(f field, inside bool) (bool, tea.Cmd) {
	var c container
	var after field
	switch x := unwrap(f).(type) {
	case *arrayField:
		c = x
	case *mapField:
		c = x
	default:
		if inside {
			f = m.enclosingItem(f)
		}
		after, c = m.itemOf(f)
	}
	if c == nil {
		return false, nil
	}
	it := c.insertAfter(after)
	m.relayout()
	// An item with fields of its own (an object) is filled in from its
	// first field: its header takes no text, and letters there are keys.
	// (A map entry's own row is its key, text already.)
	if i := slices.Index(m.rows, it); i >= 0 && !it.takesText() && i+1 < len(m.rows) && m.parents[i+1] == it {
		return true, m.focusField(m.rows[i+1])
	}
	return true, m.focusField(it)
}

// enclosingItem is the row of the array item or map entry that f is, or
// is a field of (the item an add goes after); f when there is none.
func (m *Model) enclosingItem(f field) field {
	for g := f; g != nil; {
		if it, _ := m.itemOf(g); it != nil {
			return it
		}
		i := slices.Index(m.rows, g)
		if i < 0 {
			break
		}
		g = m.parents[i]
	}
	return f
}

// itemLabel names an item or entry in a note: its JSON pointer.
func itemLabel(it field) string {
	if e, ok := it.(*mapEntry); ok {
		return pathText(e.val.base().path)
	}
	return pathText(it.base().path)
}

// removal is an item or entry removed from its container, kept for undo.
type removal struct {
	c  container
	at int
	it field
}

// maxUndo bounds the removals kept for undo.
const maxUndo = 32

func (m *Model) removeItem(f field) (bool, tea.Cmd) {
	it, c := m.itemOf(f)
	if c == nil {
		return false, nil
	}
	label := itemLabel(it)
	i := slices.Index(m.rows, it)
	at := c.remove(it)
	if at < 0 {
		return false, nil
	}
	if len(m.removed) == maxUndo {
		m.removed = slices.Delete(m.removed, 0, 1)
	}
	m.removed = append(m.removed, removal{c: c, at: at, it: it})
	m.note = "removed " + label + ": " + m.env.keys.Undo.Help().Key + " puts it back"
	if i >= 0 {
		m.focus = i
	}
	return true, m.relayout()
}

// undoRemove puts back the item or entry removed last, and focuses it.
func (m *Model) undoRemove() tea.Cmd {
	if len(m.removed) == 0 {
		return nil
	}
	r := m.removed[len(m.removed)-1]
	m.removed = m.removed[:len(m.removed)-1]
	r.c.restore(r.at, r.it)
	m.relayout()
	m.note = "put back " + itemLabel(r.it)
	return m.focusField(r.it)
}

func (m *Model) moveItem(f field, delta int) tea.Cmd {
	it, c := m.itemOf(f)
	if c == nil {
		return nil
	}
	c.move(it, delta)
	return m.relayout()
}
