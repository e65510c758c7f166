package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestCopyFormats(t *testing.T) {
	echo := &tooling.Tool{Name: "demo.echo"}
	uiOnly := &tooling.Tool{Name: "demo.ui_only", Meta: tooling.Meta{Origins: []tooling.Origin{tooling.OriginUI}}}
	for _, tc := range []struct {
		name        string
		rec         callRecord
		tool        *tooling.Tool
		cli, gocall string
		mcp         string
	}{
		{
			name:   "plain",
			rec:    callRecord{seq: 3, tool: "demo.echo", args: json.RawMessage(`{"text":"hi","repeat":2}`)},
			tool:   echo,
			cli:    `toolexplorer run demo.echo --args '{"text":"hi","repeat":2}' --origin ui`,
			gocall: "tooling.ExecuteTool(ctx, \"demo.echo\", json.RawMessage(`{\"text\":\"hi\",\"repeat\":2}`))",
			mcp:    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"demo.echo","arguments":{"text":"hi","repeat":2}}}`,
		},
		{
			name:   "quotes and spaces",
			rec:    callRecord{seq: 1, tool: "demo.echo", args: json.RawMessage(`{ "text": "it's a \"test\"" }`)},
			tool:   echo,
			cli:    `toolexplorer run demo.echo --args '{"text":"it'\''s a \"test\""}' --origin ui`,
			gocall: "tooling.ExecuteTool(ctx, \"demo.echo\", json.RawMessage(`{\"text\":\"it's a \\\"test\\\"\"}`))",
			mcp:    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.echo","arguments":{"text":"it's a \"test\""}}}`,
		},
		{
			name:   "backquote",
			rec:    callRecord{seq: 2, tool: "demo.echo", args: json.RawMessage("{\"text\":\"`x`\"}")},
			tool:   echo,
			cli:    "toolexplorer run demo.echo --args '{\"text\":\"`x`\"}' --origin ui",
			gocall: `tooling.ExecuteTool(ctx, "demo.echo", json.RawMessage("{\"text\":\"` + "`x`" + `\"}"))`,
			mcp:    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"demo.echo\",\"arguments\":{\"text\":\"`x`\"}}}",
		},
		{
			name:   "consent",
			rec:    callRecord{seq: 4, tool: "demo.write_note", args: json.RawMessage(`{"key":"k","note":"n"}`), consent: true},
			tool:   &tooling.Tool{Name: "demo.write_note"},
			cli:    `toolexplorer run demo.write_note --args '{"key":"k","note":"n"}' --origin ui --consent`,
			gocall: "tooling.ExecuteTool(ctx, \"demo.write_note\", json.RawMessage(`{\"key\":\"k\",\"note\":\"n\"}`), tooling.WithConsent())",
			mcp:    `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"demo.write_note","arguments":{"key":"k","note":"n"}}}`,
		},
		{
			name:   "origin ui",
			rec:    callRecord{seq: 5, tool: "demo.ui_only", args: json.RawMessage(`{}`)},
			tool:   uiOnly,
			cli:    `toolexplorer run demo.ui_only --args '{}' --origin ui`,
			gocall: "tooling.ExecuteTool(ctx, \"demo.ui_only\", json.RawMessage(`{}`), tooling.WithOrigin(tooling.OriginUI))",
			mcp:    `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"demo.ui_only","arguments":{}}}`,
		},
		{
			name: "odd name",
			rec:  callRecord{seq: 6, tool: "my tool", args: nil},
			cli:  `toolexplorer run 'my tool' --args '{}' --origin ui`,
			mcp:  `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"my tool","arguments":{}}}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := commandLine(&tc.rec, tc.tool, &common{}); got != tc.cli {
				t.Errorf("command line:\n got %s\nwant %s", got, tc.cli)
			}
			if tc.gocall != "" {
				if got := goCall(&tc.rec, tc.tool, &common{}); got != tc.gocall {
					t.Errorf("Go:\n got %s\nwant %s", got, tc.gocall)
				}
			}
			got := mcpCall(&tc.rec, tc.tool, &common{})
			if got != tc.mcp {
				t.Errorf("MCP:\n got %s\nwant %s", got, tc.mcp)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("MCP message is not JSON: %s", got)
			}
		})
	}
}

// TestCopiedCommandLineNamesTheFiles: the command line copied from the
// history repeats the tools file and the config file the console was
// started with, and the origin of its calls.
func TestCopiedCommandLineNamesTheFiles(t *testing.T) {
	rec := &callRecord{seq: 1, tool: "preview.search", args: json.RawMessage(`{"q":"x"}`)}
	c := &common{toolsFiles: []string{"/work/my tools.json"}, configFile: "/etc/toolexplorer/config.json"}
	want := `toolexplorer run preview.search --args '{"q":"x"}' --origin ui --tools '/work/my tools.json' --config /etc/toolexplorer/config.json`
	if got := commandLine(rec, nil, c); got != want {
		t.Errorf("command line:\n got %s\nwant %s", got, want)
	}
	reg := newTestRegistry(t)
	m := New(reg, Options{NoColor: true, ToolsFiles: []string{"/t.json"}, ConfigFile: "/c.json"})
	if len(m.c.toolsFiles) != 1 || m.c.toolsFiles[0] != "/t.json" || m.c.configFile != "/c.json" {
		t.Errorf("the console keeps tools file %q, config file %q", m.c.toolsFiles, m.c.configFile)
	}
}

// clipboard returns the text of the last OSC 52 clipboard message handled.
func clipboard(h *harness) string {
	for i := len(h.seen) - 1; i >= 0; i-- {
		if fmt.Sprintf("%T", h.seen[i]) == "tea.setClipboardMsg" {
			return fmt.Sprint(h.seen[i])
		}
	}
	return ""
}

func TestHistoryCopy(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	h.press("H")
	h.mustContain("no calls yet")
	h.press("c")
	h.mustContain("no call to copy yet")
	h.press("esc")

	openRun(t, h, "demo.echo", `{"text":"it's"}`)
	h.press("ctrl+s")
	h.runDone(1)
	h.press("H")
	if h.m.top() != h.m.history {
		t.Fatal("H does not open the history")
	}
	h.mustContain("03:04:05      demo.echo  ✓ ok", `{"text":"it's"}`)
	for _, tc := range []struct{ key, format, text string }{
		{"c", "command line", `toolexplorer run demo.echo --args '{"text":"it'\''s"}' --origin ui`},
		{"o", "Go", "tooling.ExecuteTool(ctx, \"demo.echo\", json.RawMessage(`{\"text\":\"it's\"}`))"},
		{"m", "MCP tools/call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.echo","arguments":{"text":"it's"}}}`},
	} {
		h.press(tc.key)
		if got := clipboard(h); got != tc.text {
			t.Errorf("%s: clipboard %q, want %q", tc.key, got, tc.text)
		}
		h.mustContain("Copied as "+tc.format+" (also sent to the clipboard with OSC 52):", tc.text, "copied call 1 as "+tc.format)
	}
}

func TestHistoryRerunAndEdit(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	openRun(t, h, "demo.echo", `{"text":"one"}`)
	h.press("ctrl+s")
	h.runDone(1)
	openRun(t, h, "demo.fail", "")
	h.press("ctrl+s")
	h.runDone(2)
	h.press("H")
	h.mustContain("03:04:05      demo.fail  ✗ tool_error", "03:04:05      demo.echo  ✓ ok")
	h.press("j", "r") // re-run the echo call
	res := h.runDone(3)
	if !res.OK() || string(h.m.c.history[2].args) != `{"text":"one"}` || h.m.top() != h.m.run {
		t.Fatalf("re-run: %s, args %s", res.Code, h.m.c.history[2].args)
	}
	h.press("H", "G", "e") // edit the oldest
	if h.m.top() != h.m.run || h.m.run.phase != phaseEditing || h.m.run.tool.Name != "demo.echo" {
		t.Fatal("e does not open the call in the editor")
	}
	if v, _ := h.m.run.editor.Value(); string(v) != `{"text":"one"}` {
		t.Fatalf("editor holds %s", v)
	}
	if len(h.m.c.history) != 3 {
		t.Fatal("edit ran the call")
	}
	_ = h.m.run.editor.SetValue(json.RawMessage(`{"text":"two"}`))
	h.press("ctrl+s")
	if res := h.runDone(4); !strings.Contains(string(res.Output), "two") {
		t.Fatalf("edited re-run output %s", res.Output)
	}
}

func TestHistoryRerunAsksConsentAgain(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.press("ctrl+s", "y")
	h.runDone(1)
	h.press("H", "r")
	if h.m.confirm == nil {
		t.Fatal("a re-run of a consent tool does not ask")
	}
	h.press("esc")
	if len(h.m.c.history) != 1 {
		t.Fatal("declined re-run ran")
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
}

// <, > and & typed into the form stay as they are in the result and in
// every copy of the call: no \u003c in sight.
func TestNoHTMLEscapingInResultAndCopies(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	openRun(t, h, "demo.echo", "")
	h.typeText("<b>&")
	h.press("ctrl+s")
	h.runDone(1)
	h.mustContain(`"text": "<b>&"`)
	h.mustNotContain(`\u00`)
	h.press("H")
	for _, tc := range []struct{ key, text string }{
		{"c", `toolexplorer run demo.echo --args '{"text":"<b>&","repeat":1}' --origin ui`},
		{"o", "tooling.ExecuteTool(ctx, \"demo.echo\", json.RawMessage(`{\"text\":\"<b>&\",\"repeat\":1}`))"},
		{"m", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"demo.echo","arguments":{"text":"<b>&","repeat":1}}}`},
	} {
		h.press(tc.key)
		if got := clipboard(h); got != tc.text {
			t.Errorf("%s: clipboard %q, want %q", tc.key, got, tc.text)
		}
	}
}

// The command line copied from a kept call names what that call was made
// with: its tools files, the demo shop, its config; one of this session
// names the console's.
func TestCopiedCommandLineNamesTheToolsFiles(t *testing.T) {
	console := &common{toolDirs: []string{"/work/console tools"}, configFile: "/c.json"}
	for _, tc := range []struct {
		name string
		rec  *callRecord
		want string
	}{
		{"this session", &callRecord{seq: 1, tool: "shop.list", args: json.RawMessage(`{}`)},
			`toolexplorer run shop.list --args '{}' --origin ui --tools-dir '/work/console tools' --config /c.json`},
		{"kept", keptRecord(&history.Entry{Tool: "shop.list", Args: json.RawMessage(`{}`), Config: "/etc/te.json",
			ToolDirs: []string{"/work/tools", "/work/more/one.yaml"}, Source: "file:/work/tools/shop.yaml"}),
			`toolexplorer run shop.list --args '{}' --origin ui --tools-dir /work/tools --tools-dir /work/more/one.yaml --config /etc/te.json`},
		{"kept with the demo", keptRecord(&history.Entry{Tool: "shop.list", Args: json.RawMessage(`{}`), Demo: true, Source: "file:tools/shop.yaml"}),
			`toolexplorer --demo run shop.list --args '{}' --origin ui`},
		{"kept with two --tools files", keptRecord(&history.Entry{Tool: "ext.ping", Args: json.RawMessage(`{}`),
			ToolsFiles: []string{"/work/one.json", "/work/two.json"}, Source: "tools:/work/two.json"}),
			`toolexplorer run ext.ping --args '{}' --origin ui --tools /work/one.json --tools /work/two.json`},
		{"kept before there could be several --tools files", keptRecord(&history.Entry{Tool: "ext.ping", Args: json.RawMessage(`{}`), ToolsFile: "/work/one.json"}),
			`toolexplorer run ext.ping --args '{}' --origin ui --tools /work/one.json`},
		{"kept without its tools files", keptRecord(&history.Entry{Tool: "shop.list", Args: json.RawMessage(`{}`), Source: "file:/work/tools/shop.yaml"}),
			`toolexplorer run shop.list --args '{}' --origin ui --tools-dir /work/tools/shop.yaml`},
	} {
		if got := commandLine(tc.rec, nil, console); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestCopiedCommandLineNamesTheServer: a call of this session of an MCP
// server's tool, copied as a command line, names the --server that gave
// the server, so that the tool is there when it runs.
func TestCopiedCommandLineNamesTheServer(t *testing.T) {
	remote := &tooling.Tool{Name: "ev.echo", Source: "mcp:ev"}
	rec := &callRecord{seq: 2, tool: "ev.echo", args: json.RawMessage(`{}`)}
	c := &common{serverFlags: []string{"evil=/bin/evil", "ev=/usr/bin/everything 'a b'"}}
	want := `toolexplorer run ev.echo --args '{}' --origin ui --server 'ev=/usr/bin/everything '\''a b'\'''`
	if got := commandLine(rec, remote, c); got != want {
		t.Errorf("command line:\n got %s\nwant %s", got, want)
	}
	// A call of an earlier session: the server it was kept with, though
	// no server of that name runs now.
	kept := keptRecord(&history.Entry{Tool: "ev.echo", Args: json.RawMessage(`{}`), Source: "mcp:ev", Server: "ev=/usr/bin/everything"})
	if got, want := commandLine(kept, nil, &common{}), `toolexplorer run ev.echo --args '{}' --origin ui --server 'ev=/usr/bin/everything'`; got != want {
		t.Errorf("command line of a kept call:\n got %s\nwant %s", got, want)
	}
	m := New(newTestRegistry(t), Options{NoColor: true, ServerFlags: []string{"ev=/bin/ev"}})
	if len(m.c.serverFlags) != 1 || m.c.serverFlags[0] != "ev=/bin/ev" {
		t.Errorf("the console keeps the server flags %q", m.c.serverFlags)
	}
}
