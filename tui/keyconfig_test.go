package tui

import (
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"Run": "run", "PageUp": "page_up", "AcceptQuery": "accept_query", "CopyCLI": "copy_cli", "CopyMCP": "copy_mcp", "HelpAlways": "help_always"} {
		if got := snakeCase(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}

// TestRebindKeys: the config's keys replace a binding's keys (the old
// ones stop working) and its help; an unknown name is a load problem.
func TestRebindKeys(t *testing.T) {
	opts := Options{Keys: map[string][]string{
		"list.run":    {"x"},
		"list.down":   {"ctrl+j", "down"},
		"viewer.copy": {"c"},
		"global.quit": {"Q"},
		"list.nope":   {"z"},
	}}
	h := newHarnessWith(t, newTestRegistry(t), opts, 100, 30)
	h.mustContain("1 load problem (P)", "x run")
	h.press("P")
	h.mustContain(`the console has no key named "list.nope"`)
	h.press("esc")
	h.press("ctrl+j") // down: demo.fail
	h.press("r")      // no longer run
	if h.m.top() != h.m.list {
		t.Fatal("r still runs")
	}
	h.press("x")
	if h.m.top() != h.m.run || h.m.run.tool.Name != "demo.fail" {
		t.Fatalf("x opened %T %s", h.m.top(), h.m.run.tool.Name)
	}
	h.m.run.finish(fixedResult())
	h.press("c")
	if got := clipboard(h); !strings.Contains(got, `"text"`) {
		t.Fatalf("c copied %q", got)
	}
	h.press("esc", "esc")
	h.press("q") // quit is Q now
	if h.m.quitAsk != nil {
		t.Fatal("q still quits")
	}
}

// TestKeyNames: every rebindable key has a name of two parts.
func TestKeyNames(t *testing.T) {
	m := New(newTestRegistry(t), Options{NoColor: true})
	names := m.keyNames()
	for _, want := range []string{"`list.run` (r: run)", "`viewer.copy` (y: copy the value)", "`global.quit`", "`list.page_up`", "`history.copy_cli`"} {
		found := false
		for _, n := range names {
			found = found || strings.HasPrefix(n, want)
		}
		if !found {
			t.Errorf("no key named %s in %v", want, names)
		}
	}
}

// TestReboundKeysInFooters: a key the config rebinds is the key every
// footer, help and hint shows, and the key that acts: no footer goes on
// saying q quits when Q does.
func TestReboundKeysInFooters(t *testing.T) {
	opts := Options{Keys: map[string][]string{
		"global.quit":        {"Q"},
		"global.force_quit":  {"ctrl+q"},
		"global.help":        {"F"},
		"global.help_always": {"f2"},
		"global.back":        {"backspace"},
		"global.runs":        {"U"},
		"global.board":       {"V"},
		"result.cancel":      {"X"},
	}}
	h := newHarnessWith(t, newTestRegistry(t), opts, 120, 30)
	footer := func() string {
		lines := strings.Split(strings.TrimRight(h.view(), "\n"), "\n")
		return lines[len(lines)-1]
	}
	has := func(where string, want ...string) {
		t.Helper()
		f := footer()
		for _, w := range want {
			if !strings.Contains(f, w) {
				t.Errorf("%s: footer %q lacks %q", where, f, w)
			}
		}
		for _, old := range []string{"q quit", "? help", "? more", "esc back", "R runs", "B governance", "f1 help", "ctrl+c quit"} {
			if strings.HasPrefix(f, old) || strings.Contains(f, " "+old) {
				t.Errorf("%s: footer %q still says %q", where, f, old)
			}
		}
	}
	has("list", "Q quit", "F help")
	h.press("/")
	has("filter", "ctrl+q quit")
	h.press("esc", "enter")
	if h.m.top() != h.m.detail {
		t.Fatalf("enter opened %T", h.m.top())
	}
	has("detail", "backspace back", "F help")
	h.press("backspace")
	if h.m.top() != h.m.list {
		t.Fatalf("backspace left the detail for %T", h.m.top())
	}
	h.press("F")
	has("help", "backspace/F close")
	if hv := helpView(h.m.c, h.m.list, 120); !strings.Contains(hv, "backspace or F closes this help") {
		t.Errorf("the help says:\n%s", hv)
	}
	h.press("F", "V")
	if h.m.top() != h.m.board {
		t.Fatalf("V opened %T", h.m.top())
	}
	has("board", "backspace back", "F help")
	h.press("backspace", "U")
	has("runs", "F help")
	h.press("backspace", "H")
	has("history", "F more")
	h.press("backspace")
	openRun(t, h, "demo.slow", `{"ms":60000}`)
	has("form", "f2 help")
	h.press("ctrl+s")
	has("running", "U runs", "V governance")
	h.mustContain("X cancels the call · b goes back and leaves it running · V shows governance")
	h.press("X")
	if res := h.runDone(1); res.Code != codes.Canceled {
		t.Fatalf("code %s", res.Code)
	}
}
