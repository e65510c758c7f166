package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
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

// TestViewerFolds: enter and space fold the object or array under the
// cursor, or the one around it; folded values say how big they are; z
// folds everything below the top and unfolds it again.
func TestViewerFolds(t *testing.T) {
	h := showOutput(t, 100, 30, procOutput)
	v := h.m.run.out
	h.press("G") // the last row: the closing brace of the output
	h.press("k", "k", "k")
	if r := v.at(); v.tree.lines[r.line].path != "/meta/argv/1" {
		t.Fatalf("cursor on %q", v.tree.lines[r.line].path)
	}
	h.press("enter") // inside the array: folds it
	h.mustContain(`"argv": […] 2 items`)
	h.mustNotContain(`"-la"`)
	if r := v.at(); v.tree.lines[r.line].path != "/meta/argv" {
		t.Fatalf("after folding, the cursor is on %q", v.tree.lines[r.line].path)
	}
	h.press("space")
	h.mustContain(`"-la"`)
	h.press("k", "enter") // "pid": folds meta
	h.mustContain(`"meta": {…} 2 keys`)
	h.press("z")
	h.mustNotContain(`"meta": {…}`, "{…}", "[…]")
	h.press("z")
	h.mustContain(`"meta": {…} 2 keys`)
	h.press("g", "j", "enter") // the whole output
	h.mustContain("{…} 4 keys")
	h.mustNotContain(`"exit_code"`)
}

// TestViewerSearch: / finds text in keys, values and the text lines of
// strings, unfolding what hides a match; n and N go round the matches.
func TestViewerSearch(t *testing.T) {
	h := showOutput(t, 100, 30, procOutput)
	v := h.m.run.out
	h.press("g", "j", "enter") // fold everything
	h.press("/")
	if !h.m.top().Typing() {
		t.Fatal("the search line does not take text")
	}
	h.typeText("ROOT")
	h.press("enter")
	h.mustContain("match 1 of 2", "/root: 2 matches")
	if r := v.at(); r.sub != 2 || v.tree.lines[r.line].path != "/stdout" {
		t.Fatalf("first match at %+v", r)
	}
	h.mustContain(`"exit_code": 0`) // unfolded
	h.press("n")
	h.mustContain("match 2 of 2")
	if r := v.at(); r.sub != 4 {
		t.Fatalf("second match at %+v", r)
	}
	h.press("n")
	h.mustContain("match 1 of 2") // round again
	h.press("N")
	h.mustContain("match 2 of 2")
	h.press("/")
	h.typeText("nowhere")
	h.press("enter")
	h.mustContain("nothing matches nowhere")
	h.press("/")
	h.typeText("q") // q is text while searching
	h.press("esc")
	if h.m.quitAsk != nil || h.m.top() != h.m.run || v.searching {
		t.Fatal("q in the search line or esc after it left the search wrongly")
	}
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

// TestViewerOpensThePager: o writes the output as shown to a file and
// runs $PAGER on it, then removes the file.
func TestViewerOpensThePager(t *testing.T) {
	var ran *exec.Cmd
	var shown []byte
	old := execProcess
	execProcess = func(c *exec.Cmd, fn tea.ExecCallback) tea.Cmd {
		ran = c
		shown, _ = os.ReadFile(c.Args[len(c.Args)-1])
		return func() tea.Msg { return fn(nil) }
	}
	t.Cleanup(func() { execProcess = old })
	t.Setenv("PAGER", "less -S")
	h := showOutput(t, 100, 30, procOutput)
	h.press("o")
	if ran == nil {
		t.Fatal("o ran nothing")
	}
	if ran.Args[0] != "less" || ran.Args[1] != "-S" {
		t.Fatalf("o ran %q", ran.Args)
	}
	if !strings.Contains(string(shown), "\n    drwxr-xr-x 2 root root 4096 .\n") {
		t.Fatalf("the pager got %q", shown)
	}
	if _, err := os.Stat(ran.Args[len(ran.Args)-1]); !os.IsNotExist(err) {
		t.Fatalf("the file is still there: %v", err)
	}
}

func TestPagerCommand(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "less -R f"},
		{map[string]string{"EDITOR": "vi"}, "vi f"},
		{map[string]string{"PAGER": "more", "EDITOR": "vi"}, "more f"},
		{map[string]string{"PAGER": "  "}, "less -R f"},
	} {
		if got := strings.Join(pagerCommand(env(tc.env), "f").Args, " "); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestViewerMarksOutputInvalid: the fields an output schema refuses are
// marked on the output's lines, with the message.
func TestViewerMarksOutputInvalid(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", "")
	h.m.run.finish(&tooling.Result{CallID: "call-1", Tool: "demo.echo", Status: "error", Code: tooling.CodeOutputInvalid,
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

// treeOutput is about n bytes of JSON in many small values: an array of
// records.
func treeOutput(n int) json.RawMessage {
	var recs []map[string]any
	size := 0
	for i := 0; size < n; i++ {
		r := map[string]any{"id": i, "name": fmt.Sprintf("item %06d", i), "tags": []string{"a", "b"}, "ok": i%2 == 0, "score": float64(i) / 7}
		b, _ := json.Marshal(r)
		size += len(b) + 1
		recs = append(recs, r)
	}
	out, _ := json.Marshal(map[string]any{"items": recs})
	return out
}

// BenchmarkViewerKey is one key of the output viewer (Update and the
// whole frame's View) on a 1 MiB output: one string of text lines, or
// many small values. Budget: 16 ms a key.
func BenchmarkViewerKey(b *testing.B) {
	for _, o := range []struct {
		name string
		out  json.RawMessage
	}{{"text", bigOutput(1 << 20)}, {"tree", treeOutput(1 << 20)}} {
		// Each key is pressed in pairs that come back to where they started.
		for _, k := range [][2]string{{"j", "k"}, {"G", "g"}, {"pgdown", "pgup"}, {"enter", "enter"}, {"t", "t"}, {"z", "z"}, {"n", "N"}, {"y", "y"}} {
			b.Run("output="+o.name+"/key="+k[0], func(b *testing.B) {
				reg := benchRegistry(b, 1)
				m := New(reg, Options{})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				showResult(m, &tooling.Result{Tool: "bench", Status: "ok", Output: o.out})
				v := m.run.out
				v.find("paragraph 0000")
				if o.name == "tree" {
					v.find("item 0000")
				}
				m.Update(keyMsg("j")) // on the first key or string
				m.Update(keyMsg("j"))
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					m.Update(keyMsg(k[i%2]))
					_ = m.View()
					i++
				}
			})
		}
	}
}

// BenchmarkViewerOpen is a 1 MiB output arriving: parsed into lines once,
// and the first frame drawn.
func BenchmarkViewerOpen(b *testing.B) {
	for _, o := range []struct {
		name string
		out  json.RawMessage
	}{{"text", bigOutput(1 << 20)}, {"tree", treeOutput(1 << 20)}} {
		b.Run("output="+o.name, func(b *testing.B) {
			reg := benchRegistry(b, 1)
			m := New(reg, Options{})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			res := &tooling.Result{Tool: "bench", Status: "ok", Output: o.out}
			showResult(m, res)
			b.ReportAllocs()
			for b.Loop() {
				m.run.finish(res)
				_ = m.View()
			}
		})
	}
}
