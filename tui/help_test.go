package tui

import (
	"strings"
	"testing"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestFullHelpShowsEveryKey opens the full help of each screen at the
// widths of common terminals: every key of the screen, and the keys that
// leave it (back, quit), are shown, no column is left out behind an
// ellipsis, and no line is wider than the terminal.
func TestFullHelpShowsEveryKey(t *testing.T) {
	screens := []struct {
		name string
		open func(t *testing.T, h *harness)
	}{
		{"list", func(*testing.T, *harness) {}},
		{"filter", func(t *testing.T, h *harness) { h.press("/") }},
		{"detail", func(t *testing.T, h *harness) { openDetail(t, h, "demo.echo") }},
		{"run", func(t *testing.T, h *harness) { openRun(t, h, "demo.echo", "") }},
		{"result", func(t *testing.T, h *harness) { openRun(t, h, "demo.echo", ""); h.m.run.finish(fixedResult()) }},
		{"history", func(t *testing.T, h *harness) { h.press("H") }},
		{"board", func(t *testing.T, h *harness) { h.press("B") }},
		{"runs", func(t *testing.T, h *harness) { h.press("R") }},
		{"servers", func(t *testing.T, h *harness) { h.press("S") }},
		{"ledger", func(t *testing.T, h *harness) {
			h.m.c.ledger = &fixedLedger{entries: fixedLedgerEntries()}
			h.press("E")
		}},
	}
	for _, w := range []int{80, 100, 120} {
		for _, sc := range screens {
			h := newHarness(t, newTestRegistry(t), w, 40)
			sc.open(t, h)
			s := h.m.top()
			hv := ansi.Strip(helpView(h.m.c, s, w))
			keys := s.KeyMap().FullHelp()
			g := h.m.c.global
			if s.Typing() {
				keys = append(keys, []key.Binding{g.HelpAlways, g.ForceQuit})
			} else {
				keys = append(keys, []key.Binding{g.Back, g.Quit, g.ForceQuit, g.History, g.Ledger})
			}
			for _, col := range keys {
				for _, k := range col {
					if k.Enabled() && !strings.Contains(hv, k.Help().Desc) {
						t.Errorf("%s at %d columns: the help does not show %s (%s):\n%s", sc.name, w, k.Help().Key, k.Help().Desc, hv)
					}
				}
			}
			for _, line := range strings.Split(hv, "\n") {
				if strings.HasSuffix(strings.TrimRight(line, " "), "…") || lipgloss.Width(line) > w {
					t.Errorf("%s at %d columns: a line is cut or too wide: %q", sc.name, w, line)
				}
			}
		}
	}
}
