package viewer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// rowsOutput is what a SQL tool returns: rows under a key, beside a count.
var rowsOutput = json.RawMessage(`{"count":4,"rows":[
 {"id":3,"name":"walnut desk","price":249.5,"tags":["wood"],"note":"two\nlines"},
 {"id":10,"name":"ash chair","price":79},
 {"id":2,"name":"oak shelf with a very long name that does not fit a narrow column at all","price":120,"stock":null},
 {"id":1,"name":"beech stool","price":35.25,"stock":4}
]}`)

// TestTableShowsRows: T shows the array of objects as a table, a column
// per key in the order they first appear, a row per object, and T again
// goes back to the tree on the row's object.
func TestTableShowsRows(t *testing.T) {
	h := newHarness(t, 100, 20, rowsOutput)
	h.press("T")
	if h.v.tab == nil {
		t.Fatalf("T shows no table:\n%s", h.view())
	}
	h.mustContain("table of /rows · 4 rows", "id", "name", "price", "tags", "note", "stock",
		"walnut desk", "[…] 1 item", "two⏎lines")
	lines := strings.Split(h.view(), "\n")
	head := lines[1]
	for i, col := range []string{"id", "name", "price", "tags", "note", "stock"} {
		if j := strings.Index(head, col); j < 0 || i > 0 && j < strings.Index(head, []string{"id", "name", "price", "tags", "note"}[i-1]) {
			t.Fatalf("columns out of order: %q", head)
		}
	}
	for _, l := range lines {
		if width(l) > 100 {
			t.Fatalf("a line is wider than the screen: %q", l)
		}
	}
	h.press("j", "j", "T") // the third row: back to the tree on /rows/2
	if h.v.tab != nil || h.path() != "/rows/2" {
		t.Fatalf("T from the third row: table %v, cursor on %q", h.v.tab != nil, h.path())
	}
	// From inside a row's object, T opens the table on that row.
	h.press("j", "j", "T")
	if h.v.tab == nil || h.v.tab.cursor != 2 {
		t.Fatalf("T inside /rows/2 opened the table at row %d", h.v.tab.cursor)
	}
}

// cellColumn is the cells of column col of the table as shown, top down.
func cellColumn(tb *table, col int) []string {
	var out []string
	for r := range tb.order {
		out = append(out, tb.cells[tb.order[r]][col])
	}
	return out
}

// TestTableSorts: > and < sort by the next and previous column (numbers
// by value, text by its letters, missing values last), - reverses, and
// the cursor stays on its row.
func TestTableSorts(t *testing.T) {
	h := newHarness(t, 100, 20, rowsOutput)
	h.press("T", "j") // on "ash chair"
	tb := h.v.tab
	h.press(">") // id
	if got := fmt.Sprint(cellColumn(tb, 0)); got != "[1 2 3 10]" {
		t.Fatalf("sorted by id: %s", got)
	}
	if tb.cells[tb.order[tb.cursor]][1] != "ash chair" {
		t.Fatal("the cursor left its row")
	}
	h.mustContain("sorted by id, ascending", "id▲")
	h.press("-")
	if got := fmt.Sprint(cellColumn(tb, 0)); got != "[10 3 2 1]" {
		t.Fatalf("reversed: %s", got)
	}
	h.mustContain("sorted by id, descending", "id▼")
	h.press(">") // name
	if got := strings.Join(cellColumn(tb, 1), "|")[:22]; got != "ash chair|beech stool|" {
		t.Fatalf("sorted by name: %s", got)
	}
	h.press(">", ">", ">", ">") // stock: missing and null last
	if got := fmt.Sprint(cellColumn(tb, 5)[0]); got != "4" {
		t.Fatalf("sorted by stock, first %q", got)
	}
	h.press("<", "<", "<", "<", "<", "<") // back to the array's order
	if got := fmt.Sprint(cellColumn(tb, 0)); got != "[3 10 2 1]" || strings.Contains(h.view(), "sorted by") {
		t.Fatalf("unsorted: %s", got)
	}
}

// TestTableFitsTheWidth: columns take what their cells need up to a cap,
// and shrink, the widest first, to fit a narrow screen.
func TestTableFitsTheWidth(t *testing.T) {
	tree, err := parseOutput(rowsOutput, nil)
	if err != nil {
		t.Fatal(err)
	}
	i, _ := tree.tableAt(-1)
	tb := tree.newTable(i)
	tb.fit(200)
	if got := fmt.Sprint(tb.widths); got != "[4 40 7 10 9 7]" {
		t.Fatalf("widths at 200 columns: %s", got)
	}
	tb.fit(60)
	total := len(tb.widths) - 1 + 3
	for _, n := range tb.widths {
		total += n
	}
	if total > 60 || tb.widths[0] != 4 || tb.widths[2] != 7 {
		t.Fatalf("widths at 60 columns: %v (%d columns)", tb.widths, total)
	}
}

// TestTableWhenNone: an output without an array of objects says so.
func TestTableWhenNone(t *testing.T) {
	h := newHarness(t, 100, 20, json.RawMessage(`{"a":[1,2],"b":[{"x":1},2]}`))
	h.press("T")
	if h.v.tab != nil || !strings.Contains(h.lastStatus(), "no array of objects") {
		t.Fatalf("T on no table: %v %q", h.v.tab != nil, h.lastStatus())
	}
}

func TestTableGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 12}, {120, 12}} {
		name := fmt.Sprintf("table_%dx%d", size[0], size[1])
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, size[0], size[1], rowsOutput)
			h.press("T", ">", ">", "j")
			golden(t, name, h.view())
		})
	}
}

// wideOutput is an array of objects of twelve columns, each too wide to
// share 60 columns with the others.
func wideOutput() json.RawMessage {
	var b strings.Builder
	b.WriteString("[")
	for r := range 3 {
		if r > 0 {
			b.WriteString(",")
		}
		b.WriteString("{")
		for c := range 12 {
			if c > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"column_%02d":"value %d of column %02d"`, c+1, r, c+1)
		}
		b.WriteString("}")
	}
	b.WriteString("]")
	return json.RawMessage(b.String())
}

// TestTableScrollsSideways: a table wider than the screen says which
// columns show, ] scrolls a column right until the last one shows, and [
// back; the columns stay readable rather than shrink to a few letters.
func TestTableScrollsSideways(t *testing.T) {
	h := newHarness(t, 60, 12, wideOutput())
	h.press("T")
	h.mustContain("columns 1-", "of 12, [] scroll", "column_01")
	if h.v.tab.widths[0] < minCell {
		t.Fatalf("a column was shrunk to %d", h.v.tab.widths[0])
	}
	h.mustNotContain("column_12")
	h.press("]")
	h.mustNotContain("column_01")
	h.mustContain("column_02", "columns 2-")
	for range 20 {
		h.press("]")
	}
	h.mustContain("column_12", "value 2 of", "of 12, [] scroll")
	if from, to := h.v.tab.shown(60); to != 12 || from < 1 {
		t.Fatalf("scrolled to columns %d-%d", from+1, to)
	}
	for range 20 {
		h.press("shift+left")
	}
	h.mustContain("column_01", "columns 1-")
	golden(t, "table_wide_60x12", h.view())
}
