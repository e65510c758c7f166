package form

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// pickerRows is how many choices an open picker shows at once.
const pickerRows = 8

// picker is the list that opens under an enum, a multi-select or a union.
// A long one (more choices than it shows) filters them: / and then the
// text to find.
type picker struct {
	open      bool
	at        int    // the highlighted line, an index into the labels
	query     string // lower case; the lines shown contain it
	filtering bool   // the query takes the typed text
}

// shown are the lines the query lets through, in order.
func (p *picker) shown(labels []string) []int {
	out := make([]int, 0, len(labels))
	for i, l := range labels {
		if p.query == "" || strings.Contains(strings.ToLower(l), p.query) {
			out = append(out, i)
		}
	}
	return out
}

// filterKey handles the keys of the filter of a long picker: / starts it,
// text narrows the lines, backspace widens them, esc drops the filter;
// enter and the arrows are left to the caller (choose, move). It reports
// whether it used k.
func (p *picker) filterKey(k tea.KeyPressMsg, labels []string) bool {
	if !p.filtering {
		if k.String() == "/" && len(labels) > pickerRows {
			p.filtering = true
			return true
		}
		return false
	}
	switch k.String() {
	case "esc":
		p.filtering, p.query = false, ""
	case "enter":
		p.filtering = false
		return false
	case "backspace":
		if r := []rune(p.query); len(r) > 0 {
			p.query = string(r[:len(r)-1])
		}
	default:
		if k.Text == "" { // arrows and the like move among the matches
			return false
		}
		p.query += strings.ToLower(k.Text)
	}
	if s := p.shown(labels); len(s) > 0 && !slices.Contains(s, p.at) {
		p.at = s[0]
	}
	return true
}

// move moves the highlight among the lines shown: up and down (k, j),
// g and G (home, end, pgup, pgdn) to the first and the last; other keys do
// nothing.
func (p *picker) move(e *env, k tea.KeyPressMsg, labels []string) bool {
	s := p.shown(labels)
	if len(s) == 0 {
		return false
	}
	i := max(slices.Index(s, p.at), 0)
	switch {
	case matches(k, e.keys.Up), k.String() == "k" || k.String() == "ctrl+p":
		i = (i - 1 + len(s)) % len(s)
	case matches(k, e.keys.Down), k.String() == "j" || k.String() == "ctrl+n":
		i = (i + 1) % len(s)
	case matches(k, e.keys.PageUp), k.String() == "home", k.String() == "g":
		i = 0
	case matches(k, e.keys.PageDown), k.String() == "end", k.String() == "G":
		i = len(s) - 1
	default:
		return false
	}
	p.at = s[i]
	return true
}

// lines draws the open list: mark(i) is the box or radio of line i.
func (p *picker) lines(c *rctx, labels []string, mark func(i int) string) []string {
	if !p.open {
		return nil
	}
	var out []string
	switch {
	case p.filtering:
		out = append(out, c.st.Value.Render("/ "+p.query+"▏"))
	case p.query != "":
		out = append(out, c.st.Muted.Render("/ "+p.query+" (esc: all)"))
	case len(labels) > pickerRows:
		out = append(out, c.st.Muted.Render(fmt.Sprintf("  %d choices · / filters · g/G first/last", len(labels))))
	}
	s := p.shown(labels)
	if len(s) == 0 {
		return append(out, c.st.Muted.Render("  no choice matches"))
	}
	at := max(slices.Index(s, p.at), 0)
	from := 0
	if len(s) > pickerRows {
		from = min(max(at-pickerRows/2, 0), len(s)-pickerRows)
	}
	if from > 0 {
		out = append(out, c.st.Muted.Render(fmt.Sprintf("  ↑ %d more", from)))
	}
	to := min(from+pickerRows, len(s))
	for _, i := range s[from:to] {
		line := mark(i) + " " + labels[i]
		if i == p.at {
			out = append(out, c.st.Cursor.Render("› ")+c.st.Picked.Render(line))
		} else {
			out = append(out, "  "+line)
		}
	}
	if to < len(s) {
		out = append(out, c.st.Muted.Render(fmt.Sprintf("  ↓ %d more", len(s)-to)))
	}
	return out
}

const noneLabel = "(none)"

// enumField picks one of the enum's values, strings or not. An optional
// enum offers "(none)", which omits it.
type enumField struct {
	fieldBase
	opts   []any
	labels []string // the choices as the picker shows them, "(none)" first when offered
	cur    int      // index into opts, -1 for none
	pk     picker
}

func newEnum(fb fieldBase, opts []any) *enumField {
	f := &enumField{fieldBase: fb, opts: opts, cur: -1}
	if f.offersNone() {
		f.labels = append(f.labels, noneLabel)
	}
	for _, o := range opts {
		f.labels = append(f.labels, choiceText(o))
	}
	if fb.item && len(opts) > 0 {
		f.cur = 0
	}
	return f
}

// relabel shows the choices by the given names.
func (f *enumField) relabel(labels []string) {
	if f.offersNone() {
		copy(f.labels[1:], labels)
	} else {
		copy(f.labels, labels)
	}
}

// constChoices reports whether every branch of a union is one constant, as
// in oneOf [{"const": "a", "title": "Alpha"}, ...], and returns the values
// and their titles.
func constChoices(vars []variant) (opts []any, labels []string, ok bool) {
	for _, v := range vars {
		if !v.n.hasConst || len(v.n.props) > 0 {
			return nil, nil, false
		}
		opts = append(opts, v.n.cnst)
		l := choiceText(v.n.cnst)
		if v.n.title != "" {
			l = v.n.title + " (" + l + ")"
		}
		labels = append(labels, l)
	}
	return opts, labels, len(opts) > 0
}

func (f *enumField) offersNone() bool { return !f.must() }

// line is the picker line of choice i (-1 is none).
func (f *enumField) line(i int) int {
	if f.offersNone() {
		return i + 1
	}
	return max(i, 0)
}

func (f *enumField) choice(line int) int {
	if f.offersNone() {
		return line - 1
	}
	return line
}

func (f *enumField) value() (any, bool, error) {
	if f.cur < 0 {
		return nil, false, nil
	}
	return f.opts[f.cur], true, nil
}

func (f *enumField) set(v any) error {
	f.given = true
	i := slices.IndexFunc(f.opts, func(o any) bool { return equalJSON(o, v) })
	if i < 0 {
		return errAt(f.path, "%s is not one of the choices", compactJSON(v))
	}
	f.cur = i
	return nil
}

func (f *enumField) clear() { f.cur, f.given = -1, false }

func (f *enumField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	e := f.env
	if f.pk.open {
		if f.pk.filterKey(k, f.labels) {
			return true, nil
		}
		switch {
		case matches(k, e.keys.Toggle):
			if slices.Contains(f.pk.shown(f.labels), f.pk.at) {
				f.cur = f.choice(f.pk.at)
				f.touch()
			}
			f.pk = picker{}
		case matches(k, e.keys.Close):
			f.pk = picker{}
		default:
			f.pk.move(e, k, f.labels)
		}
		return true, nil
	}
	switch {
	case matches(k, e.keys.Toggle):
		if len(f.labels) > 0 {
			f.pk = picker{open: true, at: f.line(f.cur)}
		}
	case k.String() == "left" || k.String() == "right":
		if len(f.labels) == 0 {
			return true, nil
		}
		d := 1
		if k.String() == "left" {
			d = -1
		}
		l := f.line(f.cur)
		if f.cur < 0 && !f.offersNone() { // one step lands on the first or the last choice
			l = 0
			if d > 0 {
				l = -1
			}
		}
		f.cur = f.choice((l + d + len(f.labels)) % len(f.labels))
		f.touch()
	default:
		return false, nil
	}
	return true, nil
}

func (f *enumField) capturing() bool { return f.pk.open }

func (f *enumField) widget(c *rctx) string {
	count := c.st.Muted.Render(fmt.Sprintf("  (%d choices)", len(f.opts)))
	if f.cur < 0 {
		word := noneLabel
		if !f.offersNone() {
			word = "(choose one)"
		}
		return c.st.Muted.Render(word) + count
	}
	return c.st.Value.Render(f.labels[f.line(f.cur)]) + count
}

func (f *enumField) extra(c *rctx) []string {
	return f.pk.lines(c, f.labels, func(i int) string {
		if f.choice(i) == f.cur {
			return "(•)"
		}
		return "( )"
	})
}

// constField is a value fixed by the schema ("const", or the type null). It
// is always sent.
type constField struct {
	fieldBase
	v any
}

func (f *constField) value() (any, bool, error) { return f.v, true, nil }

func (f *constField) set(v any) error {
	f.given = true
	if !equalJSON(f.v, v) {
		return errAt(f.path, "must be %s", compactJSON(f.v))
	}
	return nil
}

func (f *constField) clear() {}

func (f *constField) widget(c *rctx) string {
	return c.st.Value.Render(choiceText(f.v)) + c.st.Muted.Render("  (fixed)")
}

// multiField is an array of enum values: a list of checkboxes. The values
// are sent in the order they were checked (or loaded).
type multiField struct {
	fieldBase
	opts    []any
	labels  []string
	sel     []int
	present bool // loaded as [], so sent as [] although optional
	pk      picker
}

func newMulti(fb fieldBase, items *node) *multiField {
	f := &multiField{fieldBase: fb, opts: items.enum}
	for _, o := range items.enum {
		f.labels = append(f.labels, choiceText(o))
	}
	return f
}

func (f *multiField) value() (any, bool, error) {
	if len(f.sel) == 0 {
		if f.must() || f.present {
			return []any{}, true, nil
		}
		return nil, false, nil
	}
	out := make([]any, len(f.sel))
	for i, s := range f.sel {
		out[i] = f.opts[s]
	}
	return out, true, nil
}

func (f *multiField) set(v any) error {
	f.given = true
	arr, ok := v.([]any)
	if !ok {
		return typeErr(f.path, "an array", v)
	}
	sel := make([]int, 0, len(arr))
	for i, e := range arr {
		j := slices.IndexFunc(f.opts, func(o any) bool { return equalJSON(o, e) })
		if j < 0 {
			return errAt(f.path+"/"+strconv.Itoa(i), "%s is not one of the choices", compactJSON(e))
		}
		sel = append(sel, j)
	}
	f.sel, f.present = sel, len(arr) == 0
	return nil
}

func (f *multiField) clear() { f.sel, f.present, f.given = nil, false, false }

func (f *multiField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	e := f.env
	if !f.pk.open {
		if matches(k, e.keys.Toggle) && len(f.opts) > 0 {
			f.pk = picker{open: true}
			return true, nil
		}
		return false, nil
	}
	if f.pk.filterKey(k, f.labels) {
		return true, nil
	}
	switch {
	case k.String() == "space" || k.String() == "x":
		if slices.Contains(f.pk.shown(f.labels), f.pk.at) {
			f.flip(f.pk.at)
		}
	case k.String() == "enter" || matches(k, e.keys.Close):
		f.pk = picker{}
	default:
		f.pk.move(e, k, f.labels)
	}
	return true, nil
}

func (f *multiField) flip(i int) {
	f.touch()
	if slices.Contains(f.sel, i) {
		f.sel = slices.DeleteFunc(f.sel, func(s int) bool { return s == i })
		return
	}
	f.sel = append(f.sel, i)
}

func (f *multiField) capturing() bool { return f.pk.open }

func (f *multiField) widget(c *rctx) string {
	count := c.st.Muted.Render(fmt.Sprintf("  (%d of %d)", len(f.sel), len(f.opts)))
	if len(f.sel) == 0 {
		return c.st.Muted.Render(noneLabel) + count
	}
	names := make([]string, len(f.sel))
	for i, s := range f.sel {
		names[i] = f.labels[s]
	}
	return c.st.Value.Render(strings.Join(names, ", ")) + count
}

func (f *multiField) extra(c *rctx) []string {
	return f.pk.lines(c, f.labels, func(i int) string {
		if slices.Contains(f.sel, i) {
			return "[x]"
		}
		return "[ ]"
	})
}
