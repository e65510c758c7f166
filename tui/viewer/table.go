package viewer

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// An output that holds an array of objects (the rows of a SQL query, a
// list of records) reads as a table: a column per key, in the order the
// keys first appear, a row per object. The table is made from the parsed
// lines, so it costs one pass over the array.

// maxColumns bounds the columns of a table; keys beyond it are left out
// (the tree still shows them).
const maxColumns = 64

// maxCell is the widest a column grows before the table has to shrink.
const maxCell = 40

// minCell is as narrow as fitting makes a column: a table whose columns
// do not fit at that width scrolls sideways, column by column.
const minCell = 12

// table is an array of objects as rows and columns.
type table struct {
	array   int32      // the vOpen line of the array
	path    string     // its JSON pointer
	cols    []string   // the keys, in order of first appearance
	cells   [][]string // per row (in the array's order), per column: the value as one line
	nums    [][]bool   // per row, per column: the value is a number
	items   []int32    // per row: the item's vOpen line
	order   []int      // the rows in the order shown
	sortCol int        // -1: the array's order
	desc    bool
	widths  []int // per column, fitted to the width
	fitW    int   // the width widths were fitted to
	cursor  int   // index into order
	offset  int
	left    int // the first column shown: a table wider than the screen scrolls by columns
	dropped int // keys left out beyond maxColumns
}

// tableAt finds the array of objects to show: the nearest enclosing the
// line under the cursor, else the first in the output.
func (t *outputTree) tableAt(line int32) (int32, bool) {
	if line >= 0 && int(line) < len(t.lines) {
		if t.lines[line].kind == vClose {
			line = t.lines[line].end
		}
		for i := line; i >= 0; i = t.lines[i].parent {
			if t.isTable(i) {
				return i, true
			}
		}
	}
	for i := range t.lines {
		if t.isTable(int32(i)) {
			return int32(i), true
		}
	}
	return -1, false
}

// isTable reports whether line i opens a non-empty array whose items are
// all objects.
func (t *outputTree) isTable(i int32) bool {
	l := &t.lines[i]
	if l.kind != vOpen || !l.array || l.count == 0 {
		return false
	}
	for j := i + 1; j < l.end; j = t.lines[j].end + 1 {
		if c := &t.lines[j]; c.kind != vOpen || c.array {
			return false
		}
	}
	return true
}

// newTable reads the array of objects at line i into rows and columns.
func (t *outputTree) newTable(i int32) *table {
	arr := &t.lines[i]
	tb := &table{array: i, path: arr.path, sortCol: -1}
	index := map[string]int{}
	for j := i + 1; j < arr.end; j = t.lines[j].end + 1 {
		item := &t.lines[j]
		row := make([]string, len(tb.cols), len(tb.cols)+4)
		nums := make([]bool, len(tb.cols), len(tb.cols)+4)
		for c := j + 1; c < item.end; c = t.lines[c].end + 1 {
			l := &t.lines[c]
			name := keyOf(l.path)
			col, ok := index[name]
			if !ok {
				if len(tb.cols) >= maxColumns {
					tb.dropped++
					continue
				}
				col = len(tb.cols)
				index[name] = col
				tb.cols = append(tb.cols, name)
			}
			for len(row) <= col {
				row, nums = append(row, ""), append(nums, false)
			}
			row[col] = t.cell(c)
			nums[col] = l.kind == vScalar && l.val != "null" && l.val != "true" && l.val != "false"
		}
		tb.cells = append(tb.cells, row)
		tb.nums = append(tb.nums, nums)
		tb.items = append(tb.items, j)
	}
	for r := range tb.cells { // every row as long as the columns
		for len(tb.cells[r]) < len(tb.cols) {
			tb.cells[r], tb.nums[r] = append(tb.cells[r], ""), append(tb.nums[r], false)
		}
	}
	tb.order = make([]int, len(tb.cells))
	for r := range tb.order {
		tb.order[r] = r
	}
	return tb
}

// keyName2 is the last token of a JSON pointer, unescaped: the key.
func keyOf(path string) string {
	name := path[strings.LastIndexByte(path, '/')+1:]
	if strings.IndexByte(name, '~') >= 0 {
		name = strings.NewReplacer("~1", "/", "~0", "~").Replace(name)
	}
	return textOf(name)
}

// cell is the value at line c as one line of a table: a string's text
// (line breaks as ⏎), a scalar as JSON, an object or array by its size.
func (t *outputTree) cell(c int32) string {
	l := &t.lines[c]
	switch l.kind {
	case vString:
		s := l.str
		if len(s) > 4*maxCell {
			s = s[:4*maxCell]
		}
		return strings.ReplaceAll(s, "\n", "⏎")
	case vOpen:
		if l.count == 0 {
			if l.array {
				return "[]"
			}
			return "{}"
		}
		return folded(l)
	}
	return l.val
}

// sortBy orders the rows by column col (-1: the array's order), numbers
// by value, text by its bytes, empty cells last either way.
func (tb *table) sortBy(col int, desc bool) {
	tb.sortCol, tb.desc = col, desc
	if col < 0 {
		for r := range tb.order {
			tb.order[r] = r
		}
		if desc {
			slices.Reverse(tb.order)
		}
		return
	}
	get := func(r int) (string, bool) {
		if col < len(tb.cells[r]) {
			return tb.cells[r][col], tb.nums[r][col]
		}
		return "", false
	}
	slices.SortStableFunc(tb.order, func(a, b int) int {
		sa, na := get(a)
		sb, nb := get(b)
		if (sa == "") != (sb == "") { // empty last, whatever the direction
			if sa == "" {
				return 1
			}
			return -1
		}
		var c int
		if na && nb {
			fa, _ := strconv.ParseFloat(sa, 64)
			fb, _ := strconv.ParseFloat(sb, 64)
			c = cmp.Compare(fa, fb)
		} else {
			c = strings.Compare(sa, sb)
		}
		if desc {
			c = -c
		}
		return c
	})
}

// fit gives the columns widths that fit w columns: each as wide as its
// widest cell (at most maxCell), then the widest shrunk in turn until the
// row fits or every column is down to its heading's first letters.
func (tb *table) fit(w int) {
	if tb.fitW == w && tb.widths != nil {
		return
	}
	tb.fitW = w
	tb.widths = make([]int, len(tb.cols))
	for c, name := range tb.cols {
		tb.widths[c] = min(max(width(name)+2, 3), maxCell) // room for the sort mark
	}
	for _, row := range tb.cells {
		for c, s := range row {
			if n := width(s); n > tb.widths[c] {
				tb.widths[c] = min(n, maxCell)
			}
		}
	}
	avail := w - 3 - (len(tb.cols) - 1) // the gutter, a space between columns
	total := 0
	for _, n := range tb.widths {
		total += n
	}
	for total > avail {
		widest := 0
		for c, n := range tb.widths {
			if n > tb.widths[widest] {
				widest = c
			}
		}
		if tb.widths[widest] <= minCell {
			break // no more to take: the table scrolls sideways
		}
		tb.widths[widest]--
		total--
	}
}

// shown are the columns from left that fit w columns (at least one),
// as [from, to).
func (tb *table) shown(w int) (from, to int) {
	avail := w - 3
	from = min(tb.left, max(len(tb.cols)-1, 0))
	used := 0
	for to = from; to < len(tb.cols); to++ {
		used += tb.widths[to]
		if to > from {
			used++ // the space before it
		}
		if used > avail && to > from {
			break
		}
	}
	return from, to
}

// scroll moves the first column shown by n, keeping the last column in
// reach: scrolling right stops once the last column shows.
func (tb *table) scroll(n, w int) {
	if n > 0 {
		if _, to := tb.shown(w); to >= len(tb.cols) {
			return
		}
	}
	tb.left = min(max(tb.left+n, 0), max(len(tb.cols)-1, 0))
}

// heading is the table's first row: the keys, the sorted one marked.
func (tb *table) heading() string {
	var b strings.Builder
	for c, name := range tb.cols {
		if c < tb.left {
			continue
		}
		if c > tb.left {
			b.WriteByte(' ')
		}
		if c == tb.sortCol {
			mark := "▲"
			if tb.desc {
				mark = "▼"
			}
			name = cut(name, tb.widths[c]-1) + mark
		}
		b.WriteString(pad(name, tb.widths[c]))
	}
	return b.String()
}

// line is row r (an index into order) with its cells padded to the
// columns, numbers on the right.
func (tb *table) line(r int) string {
	row, nums := tb.cells[tb.order[r]], tb.nums[tb.order[r]]
	var b strings.Builder
	for c := range tb.cols {
		if c < tb.left {
			continue
		}
		if c > tb.left {
			b.WriteByte(' ')
		}
		s := ""
		if c < len(row) {
			s = row[c]
		}
		if c < len(nums) && nums[c] {
			b.WriteString(padLeft(s, tb.widths[c]))
		} else {
			b.WriteString(pad(s, tb.widths[c]))
		}
	}
	return b.String()
}
