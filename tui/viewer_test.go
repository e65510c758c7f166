package tui

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// procOutput is what a process tool returns: stdout with line breaks and
// colours, and a nested object.
var procOutput = json.RawMessage(`{"exit_code":0,"stdout":"total 20\ndrwxr-xr-x 2 root root 4096 .\n\u001b[01;34mbin\u001b[0m\n-rw-r--r-- 1 root root  220 .profile\n","stderr":"","meta":{"pid":42,"argv":["ls","-la"]}}`)

func showOutput(t *testing.T, w, hgt int, out json.RawMessage) *harness {
	t.Helper()
	h := newHarness(t, newTestRegistry(t), w, hgt)
	openRun(t, h, "demo.echo", "")
	h.m.run.finish(&tooling.Result{CallID: "call-1", Tool: "demo.echo", Status: "ok", Output: out})
	return h
}

// TestViewerReadsStringsAsText: a process's stdout reads as lines of text,
// its colours stripped; t shows the escaped JSON string and back.
func TestViewerReadsStringsAsText(t *testing.T) {
	h := showOutput(t, 100, 30, procOutput)
	h.mustContain("strings shown as text", `"stdout": ⏎ 5 lines`, "  total 20", "  drwxr-xr-x 2 root root 4096 .", "  bin", "  -rw-r--r-- 1 root root  220 .profile")
	h.mustNotContain(`\n`, "[01;34m", `\u001b`)
	h.press("t")
	h.mustContain("strings shown as JSON", `"stdout": "total 20\ndrwxr-xr-x 2 root root 4096 .\n\u001b[01;34mbin`)
	h.mustNotContain("  total 20")
	h.press("t")
	h.mustContain("  total 20")
}

// TestViewerCopy: y copies the value under the cursor (a string as its
// text), Y the whole output, with OSC 52 and in a panel.
func TestViewerCopy(t *testing.T) {
	h := showOutput(t, 100, 30, procOutput)
	h.press("j", "j") // "stdout"
	h.press("y")
	want := "total 20\ndrwxr-xr-x 2 root root 4096 .\nbin\n-rw-r--r-- 1 root root  220 .profile\n"
	if got := clipboard(h); got != want {
		t.Fatalf("y copied %q, want %q", got, want)
	}
	h.mustContain("copied the value at /stdout (5 lines)", "Copied (also sent to the clipboard with OSC 52):", "│ drwxr-xr-x 2 root root 4096 .")
	h.press("j")
	h.mustNotContain("Copied (also sent")
	h.press("G", "k", "k", "enter", "y") // meta/argv folded, copied as JSON
	if got := clipboard(h); got != "[\n  \"ls\",\n  \"-la\"\n]" {
		t.Fatalf("y on an array copied %q", got)
	}
	h.press("Y")
	var whole any
	if err := json.Unmarshal([]byte(clipboard(h)), &whole); err != nil {
		t.Fatalf("Y copied no JSON: %v\n%s", err, clipboard(h))
	}
	var orig any
	_ = json.Unmarshal(procOutput, &orig)
	if fmt.Sprint(whole) != fmt.Sprint(orig) {
		t.Fatalf("Y copied %v", whole)
	}
}

// TestViewerMarksOutputInvalid: the fields an output schema refuses are
// marked on the output's lines, with the message.
func TestViewerMarksOutputInvalid(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", "")
	h.m.run.finish(&tooling.Result{CallID: "call-1", Tool: "demo.echo", Status: "error", Code: codes.OutputInvalid,
		Message:       "demo.echo returned output that does not match its output schema",
		Fields:        []tooling.FieldError{{Path: "/text", Message: "must be a string, got a number"}, {Path: "/a~1b/0", Message: "must be at most 3"}},
		InvalidOutput: json.RawMessage(`{"text":7,"a/b":[9]}`)})
	h.mustContain(`✗   "text": 7,  ← must be a string, got a number`, `✗     9  ← must be at most 3`, "✗ marks what does not match the output schema")
}

// TestViewerEscapesControls: decoded strings cannot reach the terminal
// with control characters, in either view.
func TestViewerEscapesControls(t *testing.T) {
	out, _ := json.Marshal(map[string]string{"a": evilText + "\nline 2", "b": evilText})
	h := showOutput(t, 120, 30, out)
	if found := rawControls(h.m.render()); len(found) > 0 {
		t.Fatalf("text view: the frame holds %q", found)
	}
	h.press("t")
	if found := rawControls(h.m.render()); len(found) > 0 {
		t.Fatalf("JSON view: the frame holds %q", found)
	}
}

func TestViewerGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, s := range []struct {
			name string
			keys []string
		}{
			{"viewer_text", nil},
			{"viewer_folded", []string{"G", "k", "enter", "/"}},
		} {
			name := fmt.Sprintf("%s_%dx%d", s.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := showOutput(t, size[0], size[1], procOutput)
				h.press(s.keys...)
				if s.name == "viewer_folded" {
					h.typeText("pid")
					h.press("enter")
				}
				golden(t, name, h.view())
			})
		}
	}
}

// TestRunShowsContentBlocks: the result of a remote tool that returns
// several content blocks describes each, an image by its type and size.
func TestRunShowsContentBlocks(t *testing.T) {
	reg := tooling.NewRegistry()
	img := base64.StdEncoding.EncodeToString(make([]byte, 2048))
	reg.Register(tooling.Tool{Name: "srv.picture", Source: "mcp:srv", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) {
			return json.RawMessage(`[{"type":"text","text":"a picture"},{"type":"image","mimeType":"image/png","data":"` + img + `"}]`), nil
		}})
	h := newHarness(t, reg, 100, 30)
	openRun(t, h, "srv.picture", `{}`)
	h.press("ctrl+s")
	if res := h.runDone(1); !res.OK() {
		t.Fatalf("%s %s", res.Code, res.Message)
	}
	h.mustContain("Content (2 blocks from the MCP server)", "text: a picture", "[image/png, 2.0 KB]", "Output")
}

// TestResultJQLine: | on a result opens the filter line, whose keys the
// footer says; letters are text there (q does not quit); enter keeps the
// filter, and esc on the result then goes back to the arguments as ever.
func TestResultJQLine(t *testing.T) {
	h := showOutput(t, 100, 30, procOutput)
	h.press("|")
	h.mustContain("enter keep the filter", "esc drop it")
	h.typeText(".meta | {q: .pid}")
	if h.m.quitAsk != nil {
		t.Fatal("q in the filter line asks to quit")
	}
	// The filter runs off the UI goroutine: on a busy machine its result
	// may come after the key's command is done waiting.
	h.waitFor("the filter's result", func(tea.Msg) bool { return strings.Contains(h.view(), `"q": 42`) })
	h.mustNotContain(`"exit_code"`)
	h.press("enter")
	h.mustContain("| .meta | {q: .pid}: 1 result", "e edit")
	h.press("T") // no array of objects in the filter's result
	h.mustContain("no array of objects")
}
