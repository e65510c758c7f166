package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// row returns the list row of a tool in the view, "" when it is not shown.
func row(h *harness, name string) string {
	for _, l := range strings.Split(h.view(), "\n") {
		if strings.HasPrefix(strings.TrimLeft(l, " ›"), name+" ") {
			return l
		}
	}
	return ""
}

// shown lists the tools the list shows, in order.
func shown(h *harness) []string {
	var out []string
	for _, i := range h.m.list.shown {
		out = append(out, h.m.list.items[i].tool.Name)
	}
	return out
}

func TestListShowsEveryToolWithBadges(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	h.mustContain("9 tools", "press / to filter")
	for name, want := range map[string]string{
		"demo.echo":        " ro ",
		"demo.main":        " main ",
		"demo.write_note":  " excl fx consent ",
		"demo.fetch":       " ro fx ",
		"demo.unavailable": " ro n/a ",
		"demo.llm_only":    " ro ⊘ui ",
	} {
		r := row(h, name)
		if !strings.Contains(r, want) {
			t.Errorf("row of %s = %q, want badges %q", name, r, want)
		}
	}
	if r := row(h, "demo.echo"); !strings.Contains(r, "Echo · Returns the text it is given, repeated.") || strings.Contains(r, "second line") {
		t.Errorf("echo row = %q, want the title and the first line of the description", r)
	}
}

func TestListCallCountAndLatency(t *testing.T) {
	reg := newTestRegistry(t)
	for range 2 {
		if _, err := reg.Execute(context.Background(), "demo.echo", json.RawMessage(`{"text":"a"}`)); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, reg, 100, 30)
	if r := row(h, "demo.echo"); !strings.Contains(r, "2× ") {
		t.Errorf("echo row = %q, want 2 calls", r)
	}
	if r := row(h, "demo.slow"); !strings.Contains(r, "—") {
		t.Errorf("slow row = %q, want no calls", r)
	}
}

func TestListFilter(t *testing.T) {
	for _, tc := range []struct {
		query string
		first string
		only  []string // when set, exactly these
	}{
		{query: "echo", first: "demo.echo", only: []string{"demo.echo"}},
		{query: "slow", first: "demo.slow"},
		{query: "url", first: "demo.fetch", only: []string{"demo.fetch"}},                // a parameter name
		{query: "device", first: "demo.unavailable", only: []string{"demo.unavailable"}}, // the description
		{query: "dwn", first: "demo.write_note", only: []string{"demo.write_note"}},      // a subsequence of the name
		{query: "Write NOTE", first: "demo.write_note"},                                  // words, any case
		{query: "people", first: "demo.ui_only", only: []string{"demo.ui_only"}},         // the title
		{query: "zzz", only: []string{}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			h := newHarness(t, newTestRegistry(t), 100, 30)
			h.press("/")
			if !h.m.list.Typing() {
				t.Fatal("the filter does not have the focus after /")
			}
			h.typeText(tc.query)
			got := shown(h)
			if tc.only != nil && strings.Join(got, ",") != strings.Join(tc.only, ",") {
				t.Fatalf("shown = %v, want %v", got, tc.only)
			}
			if tc.first != "" && (len(got) == 0 || got[0] != tc.first) {
				t.Fatalf("shown = %v, want %s first", got, tc.first)
			}
			if len(got) == 0 {
				h.mustContain("no tool matches")
			}
		})
	}
}

func TestListFilterKeysAndEsc(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	h.press("/")
	h.typeText("qe") // q types while the filter has the focus
	if h.m.list.filter.Value() != "qe" {
		t.Fatalf("filter = %q, want qe", h.m.list.filter.Value())
	}
	h.press("backspace", "backspace")
	h.typeText("o")
	h.press("down")
	if h.m.list.cursor != 1 {
		t.Errorf("cursor = %d after down while filtering, want 1", h.m.list.cursor)
	}
	h.press("enter") // keeps the filter, leaves the field
	if h.m.list.Typing() || h.m.list.filter.Value() != "o" {
		t.Fatalf("after enter: typing %v, filter %q", h.m.list.Typing(), h.m.list.filter.Value())
	}
	h.press("esc") // clears it
	if h.m.list.filter.Value() != "" || len(h.m.list.shown) != 9 {
		t.Fatalf("after esc: filter %q, %d shown", h.m.list.filter.Value(), len(h.m.list.shown))
	}
	h.press("/")
	h.typeText("slow")
	h.press("esc")
	if h.m.list.Typing() || len(h.m.list.shown) != 9 {
		t.Fatalf("esc while typing should clear and leave the filter")
	}
}

func TestListFacets(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	h.press("1") // available
	if got := strings.Join(shown(h), ","); strings.Contains(got, "demo.unavailable") || strings.Contains(got, "demo.llm_only") || len(shown(h)) != 7 {
		t.Errorf("available: %s", got)
	}
	h.press("1", "2") // dangerous
	if got := strings.Join(shown(h), ","); got != "demo.fetch,demo.write_note" {
		t.Errorf("dangerous: %s", got)
	}
	h.press("2", "4") // main thread
	if got := strings.Join(shown(h), ","); got != "demo.main" {
		t.Errorf("main thread: %s", got)
	}
	h.press("5") // main thread or exclusive
	if got := strings.Join(shown(h), ","); got != "demo.main,demo.write_note" {
		t.Errorf("main thread or exclusive: %s", got)
	}
	h.press("0")
	if len(shown(h)) != 9 {
		t.Errorf("0 should clear the facets: %v", shown(h))
	}
	h.press("3")
	if len(shown(h)) != 7 {
		t.Errorf("read-only: %v", shown(h))
	}
}

func TestListNavigation(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 8) // 5 body lines: 2 rows
	l := h.m.list
	h.press("j", "down")
	if l.cursor != 2 {
		t.Fatalf("cursor = %d, want 2", l.cursor)
	}
	if l.offset != 1 {
		t.Fatalf("offset = %d, want 1 (the cursor stays on screen)", l.offset)
	}
	h.press("G")
	if l.cursor != 8 {
		t.Fatalf("G: cursor = %d", l.cursor)
	}
	h.press("k", "up")
	if l.cursor != 6 {
		t.Fatalf("k up: cursor = %d", l.cursor)
	}
	h.press("g")
	if l.cursor != 0 || l.offset != 0 {
		t.Fatalf("g: cursor %d offset %d", l.cursor, l.offset)
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if l.cursor != 3 {
		t.Fatalf("wheel down: cursor = %d, want 3", l.cursor)
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if l.cursor != 0 {
		t.Fatalf("wheel up: cursor = %d", l.cursor)
	}
}

func TestListEnableDisable(t *testing.T) {
	reg := newTestRegistry(t)
	h := newHarness(t, reg, 100, 30)
	h.press("e") // on demo.echo
	if p, _ := reg.Policy("demo.echo"); p.Enabled {
		t.Fatal("demo.echo is still enabled")
	}
	if r := row(h, "demo.echo"); !strings.Contains(r, " off") {
		t.Errorf("row = %q, want the off badge", r)
	}
	h.mustContain("demo.echo disabled at runtime")
	res, _ := reg.Execute(context.Background(), "demo.echo", json.RawMessage(`{"text":"a"}`))
	if res.Code != codes.Disabled {
		t.Fatalf("a call of the disabled tool: %s", res.Code)
	}
	h.press("1")
	for _, n := range shown(h) {
		if n == "demo.echo" {
			t.Fatal("the available facet shows a disabled tool")
		}
	}
	h.press("1", "g", "e")
	if p, _ := reg.Policy("demo.echo"); !p.Enabled {
		t.Fatal("demo.echo was not enabled again")
	}
	if r := row(h, "demo.echo"); strings.Contains(r, " off") {
		t.Errorf("row = %q, still off", r)
	}
	h.mustContain("demo.echo enabled")
}

func TestListOpensDetailAndRun(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	h.press("j", "enter")
	if h.m.top() != h.m.detail || h.m.detail.tool.Name != "demo.fail" {
		t.Fatalf("enter opened %T %q", h.m.top(), h.m.detail.tool.Name)
	}
	h.mustContain("toolexplorer › Tools › demo.fail")
	h.press("esc")
	if h.m.top() != h.m.list {
		t.Fatal("esc did not go back to the list")
	}
	h.press("r")
	if h.m.top() != h.m.run || h.m.run.tool.Name != "demo.fail" {
		t.Fatal("r did not open the run screen")
	}
}

func TestQuit(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 24)
	_, cmd := h.m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q does not quit")
	}
	h.press("/")
	_, cmd = h.m.Update(keyMsg("q"))
	if cmd != nil {
		if _, ok := cmd().(tea.QuitMsg); ok {
			t.Fatal("q quits while typing in the filter")
		}
	}
	_, cmd = h.m.Update(keyMsg("ctrl+c"))
	if cmd == nil {
		t.Fatal("ctrl+c returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("ctrl+c does not quit while typing")
	}
}

// TestQuitFromHelp: the help overlay's footer says q quits, and it does.
func TestQuitFromHelp(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 24)
	h.press("?")
	h.mustContain("q quit")
	_, cmd := h.m.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q in the help overlay returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q in the help overlay does not quit")
	}
}

// TestConfinedBadgeAndFacet: a confined tool wears the jail badge, and
// facet 6 keeps only confined tools.
func TestConfinedBadgeAndFacet(t *testing.T) {
	reg := newTestRegistry(t)
	reg.Register(tooling.Tool{Name: "fs.peek", Description: "reads a file in a sandbox",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead | tooling.EffectFilesystem,
			Confine: &tooling.Confinement{Read: []string{"$WORKSPACE"}}},
		Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	h := newHarness(t, reg, 120, 40)
	h.mustContain("fs.peek")
	h.press("6")
	v := h.view()
	if !strings.Contains(v, "fs.peek") || !strings.Contains(v, "jail") {
		t.Fatalf("facet 6 does not show the confined tool with its badge:\n%s", v)
	}
	for _, tl := range testTools() {
		if strings.Contains(v, tl.Name+" ") {
			t.Fatalf("facet 6 shows %s, which is not confined:\n%s", tl.Name, v)
		}
	}
}

// TestListFilterTraps: / on a kept filter starts a new one (it added to
// the kept one: "echo" then "fail" searched "echofail"); a kept filter
// looks like a filter kept, not like a field letters still type into; a
// tool disabled or an origin changed by a letter says which key undoes it.
func TestListFilterTraps(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	h.press("/")
	h.typeText("echo")
	h.press("enter")
	h.mustContain(`filter "echo" · / new filter · esc clears it`)
	h.press("/")
	h.typeText("fail")
	if got := shown(h); strings.Join(got, ",") != "demo.fail" {
		t.Fatalf("after / and fail on the kept filter echo: %v (filter %q)", got, h.m.list.filter.Value())
	}
	h.press("enter", "e")
	h.mustContain("demo.fail disabled at runtime: e enables it again")
	h.press("o")
	h.mustContain("now: o changes it again")
}

// TestListFilterFieldFitsBesideTheCount: while the filter is typed, its
// field leaves room for the count and who calls, so that the line shows
// the text typed and the count whole, not cut by an ellipsis.
func TestListFilterFieldFitsBesideTheCount(t *testing.T) {
	for _, w := range []int{80, 120} {
		h := newHarnessWith(t, newTestRegistry(t), Options{Principal: tooling.Principal{Subject: "root", Auth: "local"}}, w, 30)
		h.press("/")
		h.typeText("demo")
		line := strings.Split(h.view(), "\n")[1]
		if strings.Contains(line, "…") || !strings.HasPrefix(line, "/ demo") || !strings.Contains(line, " tools · as ui") || width(line) > w {
			t.Errorf("at %d columns the filter line is %q", w, line)
		}
		h.typeText(strings.Repeat(" long words", 12)) // longer than the field: it scrolls
		line = strings.Split(h.view(), "\n")[1]
		if strings.Contains(line, "…") || !strings.Contains(line, "long words") || !strings.Contains(line, " tools · as ui") || width(line) > w {
			t.Errorf("at %d columns, a long filter line is %q", w, line)
		}
	}
}
