package tui

import (
	"strings"
	"testing"
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
