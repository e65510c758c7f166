package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func leftClick(x, y int) tea.MouseClickMsg {
	return tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft}
}

// lineOf is the screen line (0 the header) holding s, -1 when none does.
func lineOf(h *harness, s string) (y, x int) {
	for i, l := range strings.Split(h.view(), "\n") {
		if j := strings.Index(l, s); j >= 0 {
			return i, len([]rune(l[:j]))
		}
	}
	return -1, -1
}

// TestClicks: a click selects a row of the list and a second one opens
// it; a click on a tab of the detail shows it; a click on a row of an
// output selects it and a second one folds it; a click on a button of the
// consent dialog answers it.
func TestClicks(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	y, x := lineOf(h, "demo.main ")
	h.send(leftClick(x, y))
	if it, _ := h.m.list.selected(); it.tool.Name != "demo.main" {
		t.Fatalf("the click selected %s", it.tool.Name)
	}
	h.send(leftClick(x, y))
	if h.m.top() != h.m.detail || h.m.detail.tool.Name != "demo.main" {
		t.Fatalf("a click on the selected row opened %T", h.m.top())
	}
	y, x = lineOf(h, "OpenAI")
	h.send(leftClick(x+1, y))
	if h.m.detail.pane != 4 {
		t.Fatalf("a click on OpenAI showed pane %d", h.m.detail.pane)
	}
	h.send(tea.MouseClickMsg{X: x + 1, Y: y, Button: tea.MouseRight})
	h.press("esc")

	h2 := showOutput(t, 100, 30, procOutput)
	y, x = lineOf(h2, `"meta": {`)
	h2.send(leftClick(x, y))
	if sel, _ := lineOf(h2, "›▾"); sel != y {
		t.Fatalf("the click on line %d selected line %d:\n%s", y, sel, h2.view())
	}
	h2.send(leftClick(x, y))
	h2.mustContain(`"meta": {…} 2 keys`)

	h3 := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h3, "demo.write_note", `{"key":"k","note":"n"}`)
	h3.press("ctrl+s")
	y, x = lineOf(h3, "Cancel (n)")
	h3.send(leftClick(x+2, y))
	if h3.m.confirm != nil {
		t.Fatal("a click on Cancel left the dialog open")
	}
	h3.press("ctrl+s")
	y, x = lineOf(h3, "Consent and run (y)")
	h3.send(leftClick(x+2, y))
	if res := h3.runDone(1); !res.OK() {
		t.Fatalf("a click on Consent: %s", res.Code)
	}
}

// TestClickFacets: a click on a facet of the list turns it on, as its
// number key does, and a second click turns it off; a click beside the
// facets changes nothing.
func TestClickFacets(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	all := len(h.m.list.shown)
	y, x := lineOf(h, "3 read-only")
	h.send(leftClick(x+2, y))
	if !h.m.list.facets[facetReadOnly] || len(h.m.list.shown) >= all {
		t.Fatalf("the click on read-only: facets %v, %d of %d tools shown", h.m.list.facets, len(h.m.list.shown), all)
	}
	for _, i := range h.m.list.shown {
		if !h.m.list.items[i].readOnly {
			t.Errorf("%s is shown with the read-only facet on", h.m.list.items[i].tool.Name)
		}
	}
	h.send(leftClick(x, y))
	if h.m.list.facets[facetReadOnly] || len(h.m.list.shown) != all {
		t.Fatalf("a second click leaves facets %v, %d of %d tools", h.m.list.facets, len(h.m.list.shown), all)
	}
	y, x = lineOf(h, "6 confined")
	h.send(leftClick(x+len("6 confined")+3, y))
	if h.m.list.facets != [numFacets]bool{} {
		t.Fatalf("a click beside the facets turned on %v", h.m.list.facets)
	}
}
