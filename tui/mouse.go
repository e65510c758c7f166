package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Mouse clicks: a left click selects a row of the tool list or of an
// output (a click on the selected row opens it, or folds it), a tab of the
// detail, or a button of a dialog, as the keys do.

// clicker is a screen that takes clicks; x and y are in its body (y 0 is
// the first line under the header).
type clicker interface {
	click(x, y int) tea.Cmd
}

// labelAt returns the index of the label drawn at column x of line y of
// view, -1 for none.
func labelAt(view string, x, y int, labels []string) int {
	lines := strings.Split(view, "\n")
	if y < 0 || y >= len(lines) {
		return -1
	}
	line := ansi.Strip(lines[y])
	for i, l := range labels {
		j := strings.Index(line, l)
		if j < 0 {
			continue
		}
		from := ansi.StringWidth(line[:j])
		if x >= from && x < from+ansi.StringWidth(l) {
			return i
		}
	}
	return -1
}

// click handles a mouse click on the console.
func (m *Model) click(msg tea.MouseClickMsg) tea.Cmd {
	if msg.Button != tea.MouseLeft || m.showHelp {
		return nil
	}
	x, y := msg.X, msg.Y-1 // the header is the first line
	if y < 0 || y >= m.bodyHeight() {
		return nil
	}
	press := func(k string) tea.Cmd {
		return m.handleKey(tea.KeyPressMsg{Code: rune(k[0]), Text: k})
	}
	switch {
	case m.quitAsk != nil:
		if i := labelAt(m.quitAsk.View(m.width, m.bodyHeight()), x, y, []string{"Quit (y)", "Stay (n)"}); i >= 0 {
			return press([]string{"y", "n"}[i])
		}
		return nil
	case m.confirm != nil:
		labels := []string{"Consent and run (y)", "Allow for this session (a)", "Cancel (n)"}
		if i := labelAt(m.confirm.View(m.width, m.bodyHeight()), x, y, labels); i >= 0 {
			return press([]string{"y", "a", "n"}[i])
		}
		return nil
	}
	if m.split() {
		if lw, _ := m.splitWidths(); x > lw {
			return m.detail.click(x-lw-2, y)
		}
	}
	if c, ok := m.top().(clicker); ok {
		return c.click(x, y)
	}
	return nil
}

// click on the list selects the row, or opens the tool when it is the
// selected one; on a facet, it turns the facet on or off, as its number
// key does.
func (l *listScreen) click(x, y int) tea.Cmd {
	if y == facetLine {
		if i := labelAt(l.View(), x, y, facetLabels()); i >= 0 {
			l.facets[i] = !l.facets[i]
			l.apply()
		}
		return nil
	}
	row := y - l.headerLines() + l.offset
	if y < l.headerLines() || row < l.offset || row >= min(l.offset+l.rows(), len(l.shown)) {
		return nil
	}
	if row == l.cursor {
		return openDetailCmd(l.items[l.shown[row]].tool.Name)
	}
	l.cursor = row
	l.clamp()
	return nil
}

// click on the detail's tabs shows the pane.
func (d *detailScreen) click(x, y int) tea.Cmd {
	if i := labelAt(d.View(), x, y, paneNames[:]); i >= 0 && y == 1 {
		d.pane = i
		d.refresh(true)
	}
	return nil
}

// click on a result selects the row of the output, or folds the value on
// the selected one.
func (r *runScreen) click(x, y int) tea.Cmd {
	if r.phase != phaseResult {
		return nil
	}
	return r.out.Click(y - 2) // under the result's line and the mode line
}

// click on a call opened from the history: as on a result.
func (s *callScreen) click(x, y int) tea.Cmd { return s.out.Click(y - 1) }
