package viewer

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// procOutput is what a process tool returns: stdout with line breaks and
// colours, and a nested object.
var procOutput = json.RawMessage(`{"exit_code":0,"stdout":"total 20\ndrwxr-xr-x 2 root root 4096 .\n\u001b[01;34mbin\u001b[0m\n-rw-r--r-- 1 root root  220 .profile\n","stderr":"","meta":{"pid":42,"argv":["ls","-la"]}}`)

// TestViewerFolds: enter and space fold the object or array under the
// cursor, or the one around it; folded values say how big they are; z
// folds everything below the top and unfolds it again.
func TestViewerFolds(t *testing.T) {
	h := newHarness(t, 100, 30, procOutput)
	h.press("G") // the last row: the closing brace of the output
	h.press("k", "k", "k")
	if p := h.path(); p != "/meta/argv/1" {
		t.Fatalf("cursor on %q", p)
	}
	h.press("enter") // inside the array: folds it
	h.mustContain(`"argv": […] 2 items`)
	h.mustNotContain(`"-la"`)
	if p := h.path(); p != "/meta/argv" {
		t.Fatalf("after folding, the cursor is on %q", p)
	}
	h.press("space")
	h.mustContain(`"-la"`)
	h.press("k", "enter") // "pid": folds meta
	h.mustContain(`"meta": {…} 2 keys`)
	h.press("z")
	h.mustNotContain(`"meta": {…}`, "{…}", "[…]")
	h.press("z")
	h.mustContain(`"meta": {…} 2 keys`)
	h.press("g", "enter") // the whole output
	h.mustContain("{…} 4 keys")
	h.mustNotContain(`"exit_code"`)
}

// TestViewerSearch: / finds text in keys, values and the text lines of
// strings, unfolding what hides a match; n and N go round the matches.
func TestViewerSearch(t *testing.T) {
	h := newHarness(t, 100, 30, procOutput)
	v := h.v
	h.press("g", "enter") // fold everything
	h.press("/")
	if !v.Typing() {
		t.Fatal("the search line does not take text")
	}
	h.typeText("ROOT")
	h.press("enter")
	h.mustContain("/root: 2 matches")
	if s := h.lastStatus(); s != "match 1 of 2" {
		t.Fatalf("status %q", s)
	}
	if r := v.at(); r.sub != 2 || h.path() != "/stdout" {
		t.Fatalf("first match at %+v", r)
	}
	h.mustContain(`"exit_code": 0`) // unfolded
	h.press("n")
	if s := h.lastStatus(); s != "match 2 of 2" {
		t.Fatalf("status %q", s)
	}
	if r := v.at(); r.sub != 4 {
		t.Fatalf("second match at %+v", r)
	}
	h.press("n")
	if s := h.lastStatus(); s != "match 1 of 2" { // round again
		t.Fatalf("status %q", s)
	}
	h.press("N")
	if s := h.lastStatus(); s != "match 2 of 2" {
		t.Fatalf("status %q", s)
	}
	h.press("/")
	h.typeText("nowhere")
	h.press("enter")
	if s := h.lastStatus(); s != "nothing matches nowhere" {
		t.Fatalf("status %q", s)
	}
	h.press("/")
	h.typeText("q") // q is text while searching
	if !strings.Contains(h.view(), "/ q") {
		t.Fatalf("q is not in the search line:\n%s", h.view())
	}
	h.press("esc")
	if v.Typing() {
		t.Fatal("esc left the search line open")
	}
}

// TestViewerCopyAsks: y asks the console to copy the value under the
// cursor (a string as its text) and shows it; Y the whole output.
func TestViewerCopyAsks(t *testing.T) {
	h := newHarness(t, 100, 30, procOutput)
	h.press("j", "j", "y") // "stdout"
	if len(h.copies) != 1 || h.copies[0].What != "the value at /stdout" || !strings.HasPrefix(h.copies[0].Text, "total 20\n") {
		t.Fatalf("y asked for %+v", h.copies)
	}
	h.mustContain("│ drwxr-xr-x 2 root root 4096 .")
	h.press("Y")
	if c := h.copies[1]; c.What != "the output" || c.Text != Pretty(procOutput) {
		t.Fatalf("Y asked for %+v", c)
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
	h := newHarness(t, 100, 30, procOutput)
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

// BenchmarkViewerKey is one key of the output viewer (Update and View) on
// a 1 MiB output: one string of text lines, or many small values. Budget:
// 16 ms a key.
func BenchmarkViewerKey(b *testing.B) {
	for _, o := range []struct {
		name string
		out  json.RawMessage
	}{{"text", bigOutput(1 << 20)}, {"tree", treeOutput(1 << 20)}} {
		// Each key is pressed in pairs that come back to where they started.
		for _, k := range [][2]string{{"j", "k"}, {"G", "g"}, {"pgdown", "pgup"}, {"enter", "enter"}, {"t", "t"}, {"z", "z"}, {"n", "N"}, {"y", "y"}} {
			b.Run("output="+o.name+"/key="+k[0], func(b *testing.B) {
				v := New(plainStyles())
				v.SetSize(120, 38)
				v.SetOutput(o.out, nil, []string{"head"}, nil)
				v.find("paragraph 0000")
				if o.name == "tree" {
					v.find("item 0000")
				}
				v.Update(keyMsg("j")) // on the first key or string
				v.Update(keyMsg("j"))
				b.ReportAllocs()
				i := 0
				start := processCPU()
				for b.Loop() {
					v.Update(keyMsg(k[i%2]))
					_ = v.View()
					i++
				}
				reportCPU(b, start)
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
			v := New(plainStyles())
			v.SetSize(120, 38)
			b.ReportAllocs()
			start := processCPU()
			for b.Loop() {
				v.SetOutput(o.out, nil, []string{"head"}, nil)
				_ = v.View()
			}
			reportCPU(b, start)
		})
	}
}

// TestViewerPagesAHugeString pages through an output that is one long
// JSON string with line breaks: it reads as text, every row fits the
// screen, and the pages seen from top to bottom are the whole text, in
// order, nothing lost or repeated.
func TestViewerPagesAHugeString(t *testing.T) {
	out := bigOutput(64 << 10)
	h := newHarness(t, 80, 20, out)
	v := h.v
	byRow := map[int]string{}
	collect := func() {
		for i, l := range strings.Split(v.View(), "\n") {
			if w := ansi.StringWidth(l); w > 80 {
				t.Fatalf("row %d is %d columns wide, wider than the screen", v.offset+i, w)
			}
			if i < v.bodyRows() && v.offset+i < len(v.rows) {
				byRow[v.offset+i] = l
			}
		}
	}
	collect()
	for pages := 0; v.offset+v.bodyRows() < len(v.rows); pages++ {
		if pages > 10000 {
			t.Fatal("pgdown never reaches the bottom")
		}
		h.press("pgdown")
		collect()
	}
	var seen []string
	for i := range len(v.rows) {
		l, ok := byRow[i]
		if !ok {
			t.Fatalf("row %d was never shown", i)
		}
		seen = append(seen, strings.TrimSpace(strings.TrimPrefix(ansi.Strip(l), "›")))
	}
	var body struct{ Body string }
	if err := json.Unmarshal(out, &body); err != nil {
		t.Fatal(err)
	}
	paragraphs := strings.Split(strings.TrimSuffix(body.Body, "\n"), "\n")
	noSpace := func(s string) string { return strings.Join(strings.Fields(s), "") }
	shown := noSpace(strings.Join(seen, ""))
	for i, p := range paragraphs {
		if !strings.Contains(shown, noSpace(p)) {
			t.Fatalf("paragraph %d is not shown as a line of text: %q", i, p)
		}
	}
}
