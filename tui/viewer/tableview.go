package viewer

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// toggleTable shows the array of objects around the cursor (or the first
// in the output) as a table, or goes back to the tree at the row's item.
func (v *Model) toggleTable() tea.Cmd {
	if v.tab != nil {
		v.leaveTable()
		return nil
	}
	if v.tree == nil {
		return statusCmd("no output to show as a table", true)
	}
	line := int32(-1)
	if r := v.at(); r.part == partJSON {
		line = r.line
	}
	i, ok := v.tree.tableAt(line)
	if !ok {
		return statusCmd("no array of objects in the output to show as a table", true)
	}
	v.tab = v.tree.newTable(i)
	if line > i && line < v.tree.lines[i].end { // on a row: keep it
		for r, item := range v.tab.items {
			if line >= item && line <= v.tree.lines[item].end {
				v.tab.cursor = r
			}
		}
	}
	v.clampTable()
	return nil
}

// leaveTable goes back to the tree, on the item of the table's row.
func (v *Model) leaveTable() {
	tb := v.tab
	v.tab = nil
	if len(tb.order) == 0 {
		return
	}
	item := tb.items[tb.order[tb.cursor]]
	unfolded := false
	v.tree.ancestors(item, func(p int32) {
		unfolded = unfolded || v.folded[p]
		v.folded[p] = false
	})
	if unfolded {
		v.rebuild()
	}
	v.moveTo(vrow{part: partJSON, line: item})
	v.offset = max(v.cursor-v.bodyRows()/3, 0)
	v.clamp()
}

// tableRows is how many rows of the table fit under its heading lines.
func (v *Model) tableRows() int { return max(v.bodyRows()-2, 1) }

func (v *Model) clampTable() {
	tb := v.tab
	tb.cursor = min(max(tb.cursor, 0), max(len(tb.order)-1, 0))
	rows := v.tableRows()
	if tb.cursor < tb.offset {
		tb.offset = tb.cursor
	}
	if tb.cursor >= tb.offset+rows {
		tb.offset = tb.cursor - rows + 1
	}
	tb.offset = max(min(tb.offset, len(tb.order)-rows), 0)
}

// updateTable handles a key while the table is shown.
func (v *Model) updateTable(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	tb, k := v.tab, v.Keys
	switch {
	case key.Matches(msg, k.Up):
		tb.cursor--
	case key.Matches(msg, k.Down):
		tb.cursor++
	case key.Matches(msg, k.Top):
		tb.cursor = 0
	case key.Matches(msg, k.Bottom):
		tb.cursor = len(tb.order) - 1
	case key.Matches(msg, k.PageUp):
		tb.cursor -= v.tableRows()
		tb.offset -= v.tableRows()
	case key.Matches(msg, k.PageDown):
		tb.cursor += v.tableRows()
		tb.offset += v.tableRows()
	case key.Matches(msg, k.Table, k.Fold):
		v.leaveTable()
		return nil, true
	case key.Matches(msg, k.SortNext):
		next := tb.sortCol + 1
		if next >= len(tb.cols) {
			next = -1
		}
		v.sortTable(next, false)
	case key.Matches(msg, k.SortPrev):
		prev := tb.sortCol - 1
		if tb.sortCol < 0 {
			prev = len(tb.cols) - 1
		}
		v.sortTable(prev, false)
	case key.Matches(msg, k.Reverse):
		v.sortTable(tb.sortCol, !tb.desc)
	case key.Matches(msg, k.ColumnsRight):
		tb.scroll(1, v.w)
	case key.Matches(msg, k.ColumnsLeft):
		tb.scroll(-1, v.w)
	case key.Matches(msg, k.Copy):
		if len(tb.order) == 0 {
			return nil, true
		}
		item := tb.items[tb.order[tb.cursor]]
		return copyCmd(v.tree.copyText(item), "the row at "+v.tree.lines[item].path), true
	case key.Matches(msg, k.CopyAll):
		return v.copy(true), true
	case key.Matches(msg, k.Open):
		return v.open(), true
	case key.Matches(msg, k.JQ):
		return v.openJQ(), true
	default:
		return nil, false
	}
	v.clampTable()
	return nil, true
}

// sortTable sorts by col, keeping the cursor on its row.
func (v *Model) sortTable(col int, desc bool) {
	tb := v.tab
	row := -1
	if len(tb.order) > 0 {
		row = tb.order[tb.cursor]
	}
	tb.sortBy(col, desc)
	for i, r := range tb.order {
		if r == row {
			tb.cursor = i
		}
	}
}

// tableView draws the table: a line saying what it is, the heading and
// the rows that fit.
func (v *Model) tableView() string {
	st, tb := v.st, v.tab
	tb.fit(v.w)
	var b strings.Builder
	what := fmt.Sprintf("table of %s · %s", pathName(tb.path), plural(len(tb.order), "row"))
	if tb.sortCol >= 0 {
		dir := "ascending"
		if tb.desc {
			dir = "descending"
		}
		what += " · sorted by " + tb.cols[tb.sortCol] + ", " + dir
	}
	if tb.dropped > 0 {
		what += fmt.Sprintf(" · %d more keys in the tree", tb.dropped)
	}
	if from, to := tb.shown(v.w); from > 0 || to < len(tb.cols) {
		what += fmt.Sprintf(" · columns %d-%d of %d, %s%s scroll", from+1, to, len(tb.cols), keyName(v.Keys.ColumnsLeft), keyName(v.Keys.ColumnsRight))
	}
	what += " · " + keyName(v.Keys.Table) + " tree · " + keyName(v.Keys.SortPrev) + keyName(v.Keys.SortNext) + " sort · " + keyName(v.Keys.Reverse) + " reverse"
	b.WriteString(st.Faint.Render(cut(" "+what, v.w)) + "\n")
	head := "   " + tb.heading()
	if st.Color {
		b.WriteString(st.JSONKey.Bold(true).Render(cut(head, v.w)))
	} else {
		b.WriteString(st.Cursor.Render(cut(head, v.w)))
	}
	end := min(tb.offset+v.tableRows(), len(tb.order))
	for r := tb.offset; r < end; r++ {
		b.WriteString("\n" + v.finish("  "+tb.line(r), r == tb.cursor, false))
	}
	for r := end; r < tb.offset+v.tableRows(); r++ {
		b.WriteByte('\n')
	}
	return b.String()
}
