package form

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// rctx is what a field needs to draw its widget.
type rctx struct {
	st      *Styles
	focused bool
	width   int // of the widget column
}

func textWidth(s string) int { return ansi.StringWidth(s) }

// View draws the form: errors with no field at the top, then one block per
// row (label, widget, open picker, description, check, error), scrolled so
// that the focused field is shown whole.
func (m *Model) View() string {
	if m.raw {
		return m.rawView()
	}
	st := m.env.st
	var top []string
	for _, t := range m.top {
		top = append(top, st.Error.Render("✗ "+t))
	}
	if m.note != "" {
		top = append(top, st.Muted.Render("  "+m.note))
	}
	if len(m.rows) == 0 {
		return strings.Join(append(top, st.Muted.Render("  This tool takes no arguments.")), "\n")
	}
	var body []string
	var starts []int
	start, end := 0, 0
	for i, f := range m.rows {
		starts = append(starts, len(body))
		if i == m.focus {
			start = len(body)
		}
		body = append(body, m.block(f, i == m.focus)...)
		if i == m.focus {
			end = len(body)
		}
	}
	avail := m.height - len(top)
	if m.height <= 0 || len(body) <= avail {
		m.offset = 0
		return m.clip(strings.Join(append(top, body...), "\n"))
	}
	avail = max(avail-1, 1) // the status line
	if start < m.offset {
		m.offset = start
	}
	if end > m.offset+avail {
		m.offset = min(start, end-avail)
	}
	m.offset = min(max(m.offset, 0), len(body)-avail)
	for _, s := range starts { // start the window at a row, not inside a block
		if s >= m.offset {
			m.offset = min(s, start)
			break
		}
	}
	lines := append(top, body[m.offset:min(m.offset+avail, len(body))]...)
	status := fmt.Sprintf("  field %d of %d", m.focus+1, len(m.rows))
	if m.offset > 0 {
		status += "  ↑ more above"
	}
	if m.offset+avail < len(body) {
		status += "  ↓ more below"
	}
	lines = append(lines, st.Muted.Render(status))
	return m.clip(strings.Join(lines, "\n"))
}

// clip cuts every line to the width.
func (m *Model) clip(s string) string {
	if m.width <= 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[i] = ansi.Truncate(l, m.width, "…")
		}
	}
	return strings.Join(lines, "\n")
}

// block draws one row and what goes under it.
func (m *Model) block(f field, focused bool) []string {
	st := m.env.st
	b := f.base()
	c := &rctx{st: st, focused: focused, width: m.widgetWidth()}

	label := st.Label
	if focused {
		label = st.FocusedLabel
	}
	name := strings.Repeat("  ", b.depth) + f.marker() + b.label
	req := ""
	if b.required && !b.item && !b.inline {
		req = "*"
	}
	if w := textWidth(name) + len(req); w > m.labelW {
		name = ansi.Truncate(name, max(m.labelW-len(req), 1), "…")
	}
	cell := label.Render(name)
	if req != "" {
		cell += st.Required.Render(req)
	}
	cell += strings.Repeat(" ", max(m.labelW-textWidth(name)-len(req), 0))
	cursor := "  "
	if focused {
		cursor = st.Cursor.Render("› ")
	}
	lines := []string{cursor + cell + " " + f.widget(c)}

	gutter := strings.Repeat(" ", 2+m.labelW+1)
	for _, x := range f.extra(c) {
		lines = append(lines, gutter+x)
	}
	if d := describe(b); d != "" {
		if focused {
			wrapped := strings.Split(ansi.Wordwrap(d, c.width, " "), "\n")
			if len(wrapped) > 4 {
				wrapped = append(wrapped[:3], ansi.Truncate(strings.Join(wrapped[3:], " "), c.width, "…"))
			}
			for _, w := range wrapped {
				lines = append(lines, gutter+st.Desc.Render(w))
			}
		} else {
			first, _, _ := strings.Cut(d, "\n")
			lines = append(lines, gutter+st.Desc.Render(ansi.Truncate(first, c.width, "…")))
		}
	}
	if h := f.check(); h != "" {
		lines = append(lines, gutter+st.Hint.Render("! "+h))
	} else if b.err == "" && b.live != "" {
		lines = append(lines, gutter+st.Hint.Render("! "+b.live))
	}
	if b.err != "" {
		lines = append(lines, gutter+st.Error.Render("✗ "+b.err))
	}
	return lines
}

// describe is a field's title and description, and marks the schema gives.
func describe(b *fieldBase) string {
	if b.item || b.n == nil {
		return ""
	}
	n := b.n
	var parts []string
	if n.title != "" && n.title != b.label {
		parts = append(parts, n.title)
	}
	if n.desc != "" {
		parts = append(parts, strings.TrimSpace(n.desc))
	}
	d := strings.Join(parts, ": ")
	switch {
	case n.deprecated:
		d = strings.TrimSpace(d + " (deprecated)")
	case n.readOnly:
		d = strings.TrimSpace(d + " (read-only)")
	}
	return d
}

func (m *Model) rawView() string {
	st := m.env.st
	lines := []string{st.Title.Render("Raw JSON") + st.Muted.Render("  esc or ctrl+r back to the form · ctrl+s submit")}
	if m.rawErr != "" {
		lines = append(lines, st.Error.Render("✗ "+m.rawErr))
	}
	if m.asking {
		lines = append(lines, st.Hint.Render("Discard the edits and go back to the form? y discards · n keeps editing"))
	}
	const maxListed = 5 // the JSON keeps most of the screen
	for i, e := range m.rawErrs {
		if i == maxListed {
			lines = append(lines, st.Error.Render(fmt.Sprintf("  … and %d more", len(m.rawErrs)-maxListed)))
			break
		}
		lines = append(lines, st.Error.Render("✗ "+e))
	}
	h := m.height - len(lines)
	if m.height > 0 && m.area.Height() != max(h, 3) {
		m.area.SetHeight(max(h, 3))
	}
	lines = append(lines, m.area.View())
	return m.clip(strings.Join(lines, "\n"))
}
