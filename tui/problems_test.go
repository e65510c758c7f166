package tui

import (
	"strings"
	"testing"
)

func TestProblemsScreen(t *testing.T) {
	h := newHarnessWith(t, newTestRegistry(t), Options{Problems: sampleProblems}, 80, 24)
	h.mustContain("3 load problems (P)")
	h.press("?")
	h.mustContain("P", "load problems")
	h.press("?")
	h.press("P")
	if h.m.top() != h.m.problems {
		t.Fatalf("P opened %q, want the load problems", h.m.top().Title())
	}
	// Every problem is there in full, wrapped at the width, none cut.
	flat := strings.Join(strings.Fields(h.view()), " ")
	for _, p := range sampleProblems {
		if !strings.Contains(flat, strings.Join(strings.Fields(p), " ")) {
			t.Errorf("problem not shown in full: %s\n%s", p, h.view())
		}
	}
	h.mustContain("Load problems", "3 problems while loading")
	h.press("esc")
	if h.m.top() != h.m.list {
		t.Fatalf("esc went to %q, want the list", h.m.top().Title())
	}
}

// Without load problems the list says nothing of them and P does nothing.
func TestNoProblems(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 24)
	h.mustNotContain("load problem")
	h.press("P")
	if h.m.top() != h.m.list {
		t.Fatalf("P opened %q without problems", h.m.top().Title())
	}
	h.press("?")
	h.mustNotContain("load problems")
}

// Many problems scroll.
func TestProblemsScroll(t *testing.T) {
	var many []string
	for i := range 40 {
		many = append(many, strings.Repeat("x", i+1)+" problem")
	}
	h := newHarnessWith(t, newTestRegistry(t), Options{Problems: many}, 80, 24)
	h.press("P")
	h.mustContain("• x problem")
	h.mustNotContain(strings.Repeat("x", 40) + " problem")
	h.press("G")
	h.mustContain(strings.Repeat("x", 40) + " problem")
	h.mustNotContain("• x problem")
	h.press("g")
	h.mustContain("• x problem")
}
