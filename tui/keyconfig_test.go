package tui

import (
	"strings"
	"testing"
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
