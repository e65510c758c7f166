package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
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

// TestListCallAs: A on the list makes the console call as another subject,
// tenant and roles (asserted), shown in the header; consent given for the
// session by one principal does not serve another; an empty answer goes
// back to the principal the console started with.
func TestListCallAs(t *testing.T) {
	reg := newTestRegistry(t)
	home := tooling.Principal{Subject: "root", Auth: "local"}
	h := newHarnessWith(t, reg, Options{Principal: home}, 120, 30)
	h.mustNotContain("as root")
	h.press("A")
	h.typeText("alice@acme support,billing")
	h.press("enter")
	h.mustContain("as alice@acme (support, billing)", "calls are made as alice@acme (support, billing) now")
	golden(t, "list_call_as_120x30", h.view())
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.press("ctrl+s")
	h.press("tab", "tab", "enter") // consent, then allow for this session
	res := h.runDone(1)
	if !res.OK() || res.Principal.Subject != "alice" || res.Principal.Tenant != "acme" || res.Principal.Auth != "asserted" ||
		strings.Join(res.Principal.Roles, ",") != "support,billing" {
		t.Fatalf("the call was made as %+v: %s", res.Principal, res.Code)
	}
	for h.m.top() != h.m.list {
		h.press("esc")
	}
	h.press("A")
	h.typeText("bob@acme")
	h.press("enter")
	h.mustContain("as bob@acme")
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.press("ctrl+s")
	if h.m.confirm == nil {
		t.Fatal("alice's consent for the session served bob")
	}
	h.press("esc")
	for h.m.top() != h.m.list {
		h.press("esc")
	}
	h.press("A", "enter") // the suggestion: bob@acme again
	h.mustContain("as bob@acme")
	h.press("A")
	h.typeText(" ")
	h.press("enter") // nothing typed but a space: back home
	if h.m.c.principal.Subject != "root" || h.m.c.principal.Auth != "local" {
		t.Fatalf("back home: %+v", h.m.c.principal)
	}
	h.mustContain("calls are made as root now")
	if header := strings.SplitN(h.view(), "\n", 2)[0]; strings.Contains(header, " as ") {
		t.Fatalf("the header names who the console runs as: %q", header)
	}
}

func TestParseCallAs(t *testing.T) {
	home := tooling.Principal{Subject: "root", Auth: "local", Client: "console"}
	for _, tc := range []struct{ in, want, err string }{
		{"", "root local []", ""},
		{"root", "root local []", ""},
		{"alice", "alice asserted []", ""},
		{"alice@acme ops,,dev", "alice@acme asserted [ops dev]", ""},
		{"@acme", "", "names no subject"},
		{"a b c", "", "is more than"},
	} {
		p, err := parseCallAs(tc.in, home)
		got := fmt.Sprintf("%s %s %v", p, p.Auth, p.Roles)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: err %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want || p.Client != "console" {
			t.Errorf("%q: %s (%v), want %s", tc.in, got, err, tc.want)
		}
	}
}

// readersSeeReadOnly is an Authorizer as the config's rules make one: a
// principal with the role reader sees, and may call, only the tools that
// change nothing; origin llm sees nothing; everyone else sees every tool.
type readersSeeReadOnly struct{}

func (readersSeeReadOnly) Visible(p tooling.Principal, origin tooling.Origin, t *tooling.Tool) bool {
	if origin == tooling.OriginLLM {
		return false
	}
	return !slices.Contains(p.Roles, "reader") || t.Meta.Effects&(tooling.EffectWrite|tooling.EffectProcess) == 0
}

func (a readersSeeReadOnly) Allow(_ context.Context, c *tooling.Call) error {
	t := tooling.Tool{Name: c.Tool, Meta: c.Meta()}
	if !a.Visible(c.Principal, c.Origin, &t) {
		return errors.New("readers read")
	}
	return nil
}

// TestListShowsWhatThePrincipalSees: the list holds the tools the
// registry's Authorizer shows the console's principal, from the start;
// calling as another principal (A) or from another origin (o) lists what
// that one sees, keeping the selection where it can.
func TestListShowsWhatThePrincipalSees(t *testing.T) {
	reg := newTestRegistry(t)
	reg.SetAuthorizer(readersSeeReadOnly{})
	reader := tooling.Principal{Subject: "rita", Roles: []string{"reader"}, Auth: "local"}
	h := newHarnessWith(t, reg, Options{Principal: reader}, 120, 40)
	// As Run does: the context of the command line carries the principal
	// it started as, which must not narrow what another one sees.
	h.m.c.ctx = tooling.ContextWithPrincipal(context.Background(), reader)
	h.mustContain("demo.echo", "demo.fetch")
	h.mustNotContain("demo.write_note")
	golden(t, "list_reader_120x40", h.view())

	h.press("A")
	h.typeText("olga ops")
	h.press("enter")
	h.mustContain("demo.write_note", "demo.echo")
	h.press("/")
	h.typeText("fetch")
	h.press("enter")
	if it, ok := h.m.list.selected(); !ok || it.tool.Name != "demo.fetch" {
		t.Fatalf("selected %v", it)
	}
	h.press("esc")
	h.press("A")
	h.typeText("rita reader")
	h.press("enter")
	h.mustNotContain("demo.write_note")
	if it, ok := h.m.list.selected(); !ok || it.tool.Name != "demo.fetch" {
		t.Fatalf("the selection moved to %v", it)
	}

	h.press("o") // ui → app: the same tools
	h.mustContain("demo.echo")
	h.press("o") // app → llm: none
	h.mustNotContain("demo.echo", "demo.fetch")
	if len(reg.List(context.Background(), tooling.Filter{})) == len(h.m.list.items) {
		t.Fatal("the list holds every registered tool")
	}
	// Showing the list again does not bring the hidden tools back.
	h.m.list.Show()
	h.mustNotContain("demo.echo")
}
