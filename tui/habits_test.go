package tui

import (
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestFooterNeverCut: at 80 columns the one-line help of every screen is
// shortened, never cut in the middle of a key.
func TestFooterNeverCut(t *testing.T) {
	for _, s := range goldenScreens {
		for _, w := range []int{80, 60} {
			h := newHarness(t, newTestRegistry(t), w, 24)
			s.open(t, h)
			lines := strings.Split(h.view(), "\n")
			footer := lines[len(lines)-1]
			if strings.Contains(footer, "…") {
				t.Errorf("%s at %d columns: the footer is cut: %q", s.name, w, footer)
			}
			if !strings.HasSuffix(footer, "quit") {
				t.Errorf("%s at %d columns: the footer lost its quit key: %q", s.name, w, footer)
			}
		}
	}
}

// TestLeftGoesBack: h and left go back where nothing is edited; on the
// detail, from its first pane only.
func TestLeftGoesBack(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	for _, k := range []string{"H", "B", "R"} {
		h.press(k)
		if h.m.top() == h.m.list {
			t.Fatalf("%s opened nothing", k)
		}
		h.press("h")
		if h.m.top() != h.m.list {
			t.Fatalf("h after %s: on %T", k, h.m.top())
		}
	}
	openDetail(t, h, "demo.echo")
	h.press("tab", "left") // back to the first pane
	if h.m.top() != h.m.detail || h.m.detail.pane != 0 {
		t.Fatalf("left on the second pane: %T, pane %d", h.m.top(), h.m.detail.pane)
	}
	h.press("left")
	if h.m.top() != h.m.list {
		t.Fatalf("left on the first pane: %T", h.m.top())
	}
	h.press("left") // the list: nothing below, nothing happens
	if h.m.top() != h.m.list || h.m.quitAsk != nil {
		t.Fatal("left on the list did something")
	}
	openRun(t, h, "demo.echo", "")
	h.typeText("h") // typing: h is text
	if h.m.top() != h.m.run {
		t.Fatal("h typed in a field went back")
	}
}

// TestLightBackground: on a light terminal the console takes the light
// palette; without colours it stays plain.
func TestLightBackground(t *testing.T) {
	reg := newTestRegistry(t)
	m := New(reg, Options{})
	if m.c.styles.light {
		t.Fatal("light before the terminal said so")
	}
	m.Update(tea.BackgroundColorMsg{Color: color.White})
	if !m.c.styles.light || !m.list.c.styles.light {
		t.Fatal("a white background did not give the light palette")
	}
	dark := m.c.styles.Selected.GetBackground()
	m.Update(tea.BackgroundColorMsg{Color: color.Black})
	if m.c.styles.light || m.c.styles.Selected.GetBackground() == dark {
		t.Fatal("a black background did not give the dark palette back")
	}
	plain := New(reg, Options{NoColor: true})
	plain.Update(tea.BackgroundColorMsg{Color: color.White})
	if plain.c.styles.light || plain.c.styles.color {
		t.Fatal("NO_COLOR took a palette")
	}
}

// TestSplitAtWideTerminals: from 140 columns the list shows the selected
// tool's detail beside it, following the cursor; narrower, it does not.
func TestSplitAtWideTerminals(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 160, 40)
	h.mustContain("demo.echo · Echo", "Overview │ Input")
	h.press("j")
	h.mustContain("demo.fail · Fail")
	h.press("enter")
	if h.m.top() != h.m.detail || h.m.split() {
		t.Fatal("enter does not open the detail on its own")
	}
	if h.m.detail.w != 160 {
		t.Fatalf("the detail alone is %d wide", h.m.detail.w)
	}
	h.press("esc")
	if lw, dw := h.m.splitWidths(); h.m.list.w != lw || h.m.detail.w != dw {
		t.Fatalf("back on the list: list %d wide, detail %d", h.m.list.w, h.m.detail.w)
	}
	golden(t, "list_split_160x40", h.view())
	y, x := lineOf(h, "Input │")
	h.send(leftClick(x+1, y))
	if h.m.detail.pane != 1 || h.m.top() != h.m.list {
		t.Fatalf("a click on the detail's Input tab: pane %d, on %T", h.m.detail.pane, h.m.top())
	}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.mustNotContain("Overview │ Input")
}

// TestLinesEditorGolden: the run screen with a field edited as lines.
func TestLinesEditorGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := map[int]string{80: "run_lines_80x24", 120: "run_lines_120x40"}[size[0]]
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, newTestRegistry(t), size[0], size[1])
			openRun(t, h, "demo.write_note", "")
			h.typeText("k")
			h.press("tab", "enter") // note: its name suggests text
			h.typeText("first line")
			h.press("enter")
			h.typeText("second line")
			if !h.m.top().Typing() || !h.m.run.editor.Capturing() {
				t.Fatal("the editor does not take the keys")
			}
			golden(t, name, h.view())
		})
	}
}
