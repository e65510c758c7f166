package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
)

// At 140 columns and more the tool list shows the detail of the selected
// tool beside it. The keys stay the list's; enter opens the detail on its
// own, as on a narrow terminal.

// splitWidth is the width from which the list and the detail share the
// screen.
const splitWidth = 140

// split reports whether the list shares the screen with the detail.
func (m *Model) split() bool { return m.width >= splitWidth && m.top() == m.list }

// splitWidths are the widths of the list and of the detail; two columns
// between them hold the rule and a space.
func (m *Model) splitWidths() (list, detail int) {
	detail = max(m.width*2/5, 56)
	return m.width - detail - 2, detail
}

// sizeSplit gives the list and the detail their widths: side by side, or
// each the whole width.
func (m *Model) sizeSplit() {
	h := m.bodyHeight()
	if m.split() {
		lw, dw := m.splitWidths()
		m.list.SetSize(lw, h)
		m.detail.SetSize(dw, h)
		return
	}
	m.list.SetSize(m.width, h)
	m.detail.SetSize(m.width, h)
}

// syncSplit shows the tool selected in the list in the detail beside it.
func (m *Model) syncSplit() tea.Cmd {
	if !m.split() {
		return nil
	}
	it, ok := m.list.selected()
	if !ok || it.tool.Name == m.detail.tool.Name {
		return nil
	}
	t, ok := m.c.reg.Lookup(it.tool.Name)
	if !ok {
		return nil
	}
	m.detail.setTool(t)
	return nil
}

// splitView draws the list and the detail side by side.
func (m *Model) splitView() string {
	lw, dw := m.splitWidths()
	h := m.bodyHeight()
	left := strings.Split(fit(m.list.View(), lw, h), "\n")
	right := strings.Split(fit(m.detail.View(), dw, h), "\n")
	rule := m.c.styles.Faint.Render("│")
	var b strings.Builder
	for i := range h {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(pad(left[i], lw) + rule + " " + right[i])
	}
	return b.String()
}
