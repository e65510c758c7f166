package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestListOrigin: o changes the origin the console calls as; the tools
// that origin may not call are marked before any form, and the calls are
// made as that origin.
func TestListOrigin(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	h.mustContain("9 tools · as ui")
	if r := row(h, "demo.llm_only"); !strings.Contains(r, " ⊘ui ") {
		t.Fatalf("llm_only as ui: %q", r)
	}
	if r := row(h, "demo.ui_only"); strings.Contains(r, "⊘") {
		t.Fatalf("ui_only as ui: %q", r)
	}
	h.press("o", "o", "o") // app, llm ... system
	h.mustContain("as system", "calls are made as origin system now")
	h.press("o", "o") // back to ui, then app
	h.press("o")      // llm
	h.mustContain("9 tools · as llm")
	if r := row(h, "demo.llm_only"); strings.Contains(r, "⊘") {
		t.Fatalf("llm_only as llm: %q", r)
	}
	if r := row(h, "demo.ui_only"); !strings.Contains(r, " ⊘llm ") {
		t.Fatalf("ui_only as llm: %q", r)
	}
	openRun(t, h, "demo.ui_only", "")
	h.mustContain("Run demo.ui_only", "as llm", "⊘ origin llm may not call it")
	h.press("esc")
	for h.m.top() != h.m.list {
		h.press("esc")
	}
	openRun(t, h, "demo.echo", `{"text":"x"}`)
	h.mustContain("as llm")
	h.mustNotContain("may not call it")
	h.press("ctrl+s")
	if res := h.runDone(1); res.Origin != tooling.OriginLLM || !res.OK() {
		t.Fatalf("the call was made as %q: %s", res.Origin, res.Code)
	}
	if got := h.m.c.record(1).origin(); got != tooling.OriginLLM {
		t.Fatalf("the history says origin %q", got)
	}
}

// TestConsoleOriginOption: Options.Origin is where the console starts.
func TestConsoleOriginOption(t *testing.T) {
	h := newHarnessWith(t, newTestRegistry(t), Options{Origin: tooling.OriginLLM}, 120, 30)
	h.mustContain("as llm")
	if r := row(h, "demo.ui_only"); !strings.Contains(r, " ⊘llm ") {
		t.Fatalf("ui_only as llm: %q", r)
	}
}

// TestConsentForTheSessionIsPerOrigin: consent given for the session as
// one origin is asked again as another.
func TestConsentForTheSessionIsPerOrigin(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	args := `{"key":"k","note":"n"}`
	openRun(t, h, "demo.write_note", args)
	h.press("ctrl+s")
	if h.m.confirm == nil {
		t.Fatal("no consent dialog")
	}
	h.press("a") // for this session
	if res := h.runDone(1); !res.OK() {
		t.Fatalf("first call: %s %s", res.Code, res.Message)
	}
	h.press("r")
	if h.m.confirm != nil {
		t.Fatal("asked again as the same origin")
	}
	h.runDone(2)
	h.press("esc", "esc")
	for h.m.top() != h.m.list {
		h.press("esc")
	}
	h.press("o") // app
	openRun(t, h, "demo.write_note", args)
	h.press("ctrl+s")
	if h.m.confirm == nil {
		t.Fatal("consent given as ui was reused as app")
	}
	h.press("y") // once
	if res := h.runDone(3); !res.OK() || res.Origin != tooling.OriginApp {
		t.Fatalf("third call: %s as %s", res.Code, res.Origin)
	}
	h.press("r")
	if h.m.confirm == nil {
		t.Fatal("consent once was kept")
	}
	h.press("n")
}

// sourcedRegistry is the test tools (compiled in) and tools of a tools
// file and of an MCP server.
func sourcedRegistry(t *testing.T) *tooling.Registry {
	reg := newTestRegistry(t)
	run := func(context.Context, tooling.Call) (any, error) { return nil, nil }
	for _, tool := range []tooling.Tool{
		{Name: "ext.mail", Source: "file:/srv/tools/mail.json", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run},
		{Name: "ext.post", Source: "file:/srv/tools/mail.json", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run},
		{Name: "everything.add", Source: "mcp:everything", Input: json.RawMessage(`{"type":"object"}`), Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run},
	} {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// TestListSources: the list counts the tools of each source and shows one
// source at a time with s, or all but the compiled-in ones.
func TestListSources(t *testing.T) {
	h := newHarness(t, sourcedRegistry(t), 120, 30)
	h.mustContain("s:  all 12  built in 9  file mail.json 2  mcp everything 1  not built in 3")
	h.press("s")
	if got := strings.Join(shown(h), " "); strings.Contains(got, "ext.") || !strings.Contains(got, "demo.echo") {
		t.Fatalf("compiled in: %s", got)
	}
	h.press("s")
	if got := strings.Join(shown(h), " "); got != "ext.mail ext.post" {
		t.Fatalf("the tools file: %s", got)
	}
	h.mustContain("2 of 12 tools")
	h.press("s")
	if got := strings.Join(shown(h), " "); got != "everything.add" {
		t.Fatalf("the server: %s", got)
	}
	h.press("s")
	if got := strings.Join(shown(h), " "); got != "everything.add ext.mail ext.post" {
		t.Fatalf("not compiled in: %s", got)
	}
	h.press("s")
	if len(shown(h)) != 12 {
		t.Fatalf("all: %v", shown(h))
	}
	h.press("s", "s", "0")
	if len(shown(h)) != 12 {
		t.Fatalf("0 clears the source too: %v", shown(h))
	}
	// One source only: no line of sources.
	h2 := newHarness(t, newTestRegistry(t), 120, 30)
	h2.mustNotContain("s:  all")
}

func TestListSourcesGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		name := "list_sources_" + map[int]string{80: "80x24", 120: "120x40"}[size[0]]
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, sourcedRegistry(t), size[0], size[1])
			h.press("s", "s", "o", "o")
			golden(t, name, h.view())
		})
	}
}

// The tools of a --tools file (an MCP tools/list, in preview) are a source
// of their own, not built in.
func TestListSourcePreviewFile(t *testing.T) {
	reg := newTestRegistry(t)
	tool := testTools()[0]
	tool.Name, tool.Source = "ext.ping", "tools:/work/one.json"
	if err := reg.Add(tool); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 120, 30)
	h.mustContain("built in 9", "preview one.json 1")
	h.send(openDetailMsg{name: "ext.ping"})
	h.mustContain("the MCP tools/list file /work/one.json, in preview")
}
