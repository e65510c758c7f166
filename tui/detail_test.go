package tui

import (
	"context"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func openDetail(t *testing.T, h *harness, name string) {
	t.Helper()
	h.send(openDetailMsg{name: name})
	if h.m.top() != h.m.detail || h.m.detail.tool.Name != name {
		t.Fatalf("the detail of %s is not on top", name)
	}
}

func TestDetailOverview(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 40)
	openDetail(t, h, "demo.write_note")
	h.mustContain(
		"demo.write_note · Write note  excl fx consent",
		"Overview │ Input │ Output │ MCP │ OpenAI │ Anthropic",
		"Stores a note under a key.",
		"Concurrency  exclusive (never overlaps a call sharing a resource)",
		"Resources    notes",
		"Effects      write",
		"Risk         medium (derived from the effects)",
		"Consent      required (write effects at medium risk)",
		"Timeout      30s (config default)",
		"Enabled      yes",
		"Availability yes, for origin ui",
		"Parameters   key, note",
		"Calls        none yet",
	)
	openDetail(t, h, "demo.unavailable")
	h.mustContain("Availability no (unavailable): no device attached", "n/a")
	openDetail(t, h, "demo.llm_only")
	h.mustContain(`Availability no (origin_denied): origin "ui" may not call demo.llm_only (allowed: llm)`, "Origins      llm")
}

// TestDetailRateInForce: the overview shows the rate calls are held to,
// which a config override narrows, and what the tool declares.
func TestDetailRateInForce(t *testing.T) {
	reg := newTestRegistry(t)
	if _, err := reg.Configure(tooling.Settings{Tools: map[string]tooling.Override{"demo.echo": {Rate: tooling.Rate{PerMinute: 3}}}}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 120, 40)
	openDetail(t, h, "demo.echo")
	h.mustContain(`Rate         3/min burst 1 (bucket "demo.echo") (config override; the tool declares unlimited)`)
	openDetail(t, h, "demo.write_note")
	h.mustContain("Rate         unlimited")
	h.mustNotContain("config override")
}

// TestDetailSource: the overview says where a tool that is not compiled
// in comes from.
func TestDetailSource(t *testing.T) {
	reg := newTestRegistry(t)
	for _, tool := range []tooling.Tool{
		{Name: "ev.echo", Source: "mcp:ev", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }},
		{Name: "shop.get", Source: "file:/srv/tools/shop.yaml", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }},
	} {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	h := newHarness(t, reg, 120, 40)
	openDetail(t, h, "ev.echo")
	h.mustContain("Source       a tool of the MCP server ev (S lists the servers)")
	openDetail(t, h, "shop.get")
	h.mustContain("Source       the tools file /srv/tools/shop.yaml")
	openDetail(t, h, "demo.echo")
	h.mustNotContain("Source ")
}

func TestDetailPanes(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 60)
	openDetail(t, h, "demo.echo")
	h.press("tab")
	h.mustContain(`"description": "What to say."`, `"required": [`)
	h.press("tab")
	h.mustContain(`"required": [`, `"text"`)
	h.press("tab") // MCP
	h.mustContain(`"name": "demo.echo"`, `"inputSchema": {`, `"readOnlyHint": true`, `"idempotentHint": true`, `"destructiveHint": false`)
	h.press("tab") // OpenAI
	h.mustContain(`"type": "function"`, `"name": "demo__echo"`, `"parameters": {`)
	h.press("tab") // Anthropic
	h.mustContain(`"name": "demo__echo"`, `"input_schema": {`)
	h.press("tab") // back to the overview
	h.mustContain("Concurrency")
	h.press("shift+tab")
	h.mustContain(`"input_schema": {`)

	openDetail(t, h, "demo.fail")
	h.press("tab", "tab")
	h.mustContain("no output schema: the output is not checked")
	openDetail(t, h, "demo.ui_only")
	h.press("shift+tab", "shift+tab", "shift+tab") // MCP
	h.mustContain("left out of exports: origin llm may not call it", `"name": "demo.ui_only"`)
}

func TestDetailScrollAndToggle(t *testing.T) {
	reg := newTestRegistry(t)
	h := newHarness(t, reg, 80, 10)
	openDetail(t, h, "demo.echo")
	h.press("tab") // the input schema does not fit in 4 lines
	if h.m.detail.vp.YOffset() != 0 {
		t.Fatal("the pane does not start at the top")
	}
	h.press("j", "j")
	if h.m.detail.vp.YOffset() != 2 {
		t.Fatalf("j j: offset %d", h.m.detail.vp.YOffset())
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if h.m.detail.vp.YOffset() != 5 {
		t.Fatalf("wheel: offset %d", h.m.detail.vp.YOffset())
	}
	h.press("G")
	if !h.m.detail.vp.AtBottom() {
		t.Fatal("G is not at the bottom")
	}
	h.press("g", "e")
	if p, _ := reg.Policy("demo.echo"); p.Enabled {
		t.Fatal("e on the detail did not disable the tool")
	}
	h.press("shift+tab")
	h.send(tea.WindowSizeMsg{Width: 80, Height: 40})
	h.mustContain("Enabled      no: demo.echo is disabled at runtime")
	h.press("e")
	h.mustContain("Enabled      yes")
	h.press("r")
	if h.m.top() != h.m.run || h.m.run.tool.Name != "demo.echo" {
		t.Fatal("r on the detail did not open the run screen")
	}
}

// TestDetailWrapsAtWords: a value wider than the overview wraps at spaces,
// under its column, never inside a word.
func TestDetailWrapsAtWords(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 52, 40)
	openDetail(t, h, "demo.llm_only")
	view := h.view()
	for _, word := range strings.Fields(`Availability no (origin_denied): origin "ui" may not call demo.llm_only (allowed: llm)`) {
		if !strings.Contains(view, word) {
			t.Errorf("the word %q is broken:\n%s", word, view)
		}
	}
	if !regexp.MustCompile(`(?m)^Availability no \(origin_denied\): .*\n {13}\S`).MatchString(view) {
		t.Errorf("the availability does not continue under its column:\n%s", view)
	}
}
