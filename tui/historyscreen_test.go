package tui

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// keptStore is a store holding n calls of demo.echo made by the command
// line the day before fixedTime, one a minute, and a failed demo.fail
// call last.
func keptStore(t testing.TB, n int) *history.Store {
	t.Helper()
	s := history.Open(filepath.Join(t.TempDir(), "history.jsonl"))
	day := fixedTime.Add(-24 * time.Hour)
	for i := range n {
		res := fixedResult()
		res.CallID = fmt.Sprintf("cli-%d", i)
		res.Output = json.RawMessage(fmt.Sprintf(`{"text":"kept %d"}`, i))
		if err := s.Append(history.Entry{Time: day.Add(time.Duration(i) * time.Minute), Tool: "demo.echo", Args: json.RawMessage(fmt.Sprintf(`{"text":"kept %d"}`, i)),
			Origin: tooling.OriginApp, Via: history.ViaRun, Config: "/etc/c.json", Result: res}); err != nil {
			t.Fatal(err)
		}
	}
	fail := fixedFailure()
	fail.CallID = "cli-fail"
	// An hour after the first, and after the last.
	if err := s.Append(history.Entry{Time: day.Add(max(time.Hour, time.Duration(n)*time.Minute)), Tool: "demo.slow", Args: json.RawMessage(`{"ms":1000}`), Origin: tooling.OriginUI,
		Via: history.ViaConsole, Result: fail}); err != nil {
		t.Fatal(err)
	}
	return s
}

// The history lists this session's calls over the kept ones, and reads
// the store lazily: a screenful, not the whole file.
func TestHistoryListsKeptCallsLazily(t *testing.T) {
	store := keptStore(t, 1000)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 24)
	openRun(t, h, "demo.echo", `{"text":"now"}`)
	h.press("ctrl+s")
	h.runDone(1)
	h.press("H")
	h.mustContain("03:04:05      demo.echo  ✓ ok", `{"text":"now"}`, "Jan 01 19:44  demo.slow  ✗ timeout", "Jan 01 19:43  demo.echo", `{"text":"kept 999"}`)
	if v := h.view(); strings.Count(v, `"text":"now"`) != 1 {
		t.Errorf("this session's call is listed twice (from memory and from the store):\n%s", v)
	}
	if n := len(h.m.history.items); n > 50 {
		t.Errorf("the first frame read %d calls from the store, want about a screenful", n)
	}
	h.press("G")
	h.mustContain(`{"text":"kept 0"}`)
	if n := len(h.m.history.items); n != 1002 {
		t.Errorf("G lists %d calls, want 1002", n)
	}
}

// Enter opens a call's request and result; nothing runs. r re-runs it
// from there, with its arguments.
func TestHistoryEnterOpensWithoutRunning(t *testing.T) {
	store := keptStore(t, 3)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 30)
	h.press("H", "j", "enter")
	if h.m.top() != h.m.call {
		t.Fatal("enter does not open the call")
	}
	h.mustContain("Call of demo.echo", "✓ ok · demo.echo", "Request", "origin app · by run", "/etc/c.json", "Arguments", `"text": "kept 2"`, "Output", `"text": "kept 2"`)
	if len(h.m.c.history) != 0 {
		t.Fatal("opening a call ran it")
	}
	h.press("esc")
	if h.m.top() != h.m.history || h.m.history.cursor != 1 {
		t.Fatalf("esc goes back to the history at the same row (cursor %d)", h.m.history.cursor)
	}
	h.press("enter", "r")
	res := h.runDone(1)
	if !res.OK() || !strings.Contains(string(res.Output), "kept 2") {
		t.Fatalf("r re-ran with %s", res.Output)
	}
}

// / searches the tool, the code and the arguments of every call, kept
// ones included; esc clears the search.
func TestHistorySearch(t *testing.T) {
	store := keptStore(t, 200)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 24)
	h.press("H", "/")
	if !h.m.top().Typing() {
		t.Fatal("/ does not open the search")
	}
	h.typeText("kept 17")
	h.mustContain(`{"text":"kept 17"}`, `{"text":"kept 170"}`)
	h.mustNotContain(`{"text":"kept 18"}`, "demo.slow")
	h.press("enter")
	h.mustContain("/ kept 17")
	h.press("/") // a new search, not more of the kept one
	h.typeText("kept 42")
	h.mustContain(`{"text":"kept 42"}`)
	h.mustNotContain(`{"text":"kept 17"}`)
	h.press("enter", "esc")
	h.mustContain("demo.slow")
	h.press("/")
	h.typeText("timeout")
	h.mustContain("demo.slow  ✗ timeout")
	h.mustNotContain("demo.echo  ✓")
	h.press("esc") // clears the search as it is typed
	h.mustContain("demo.echo")
	h.press("/")
	h.typeText("no such call")
	h.mustContain(`no call matches "no such call"`)
	h.press("esc", "/")
	h.send(tea.PasteMsg{Content: "kept 42"}) // a paste searches too
	h.mustContain(`{"text":"kept 42"}`)
	h.mustNotContain(`{"text":"kept 41"}`)
}

// s names a call and keeps it in the saved calls; tab lists them, enter
// runs one, d deletes it.
func TestSavedCalls(t *testing.T) {
	saved := history.OpenSaved(filepath.Join(t.TempDir(), ".toolexplorer", "saved.json"))
	h := newHarnessWith(t, newTestRegistry(t), Options{Saved: saved}, 100, 24)
	openRun(t, h, "demo.echo", `{"text":"to keep"}`)
	h.press("ctrl+s")
	h.runDone(1)
	h.press("s")
	if h.m.prompt == nil {
		t.Fatal("s on a result asks for no name")
	}
	h.mustContain("Save this call of demo.echo as", "demo.echo")
	h.typeText("greeting") // replaces the suggested name
	h.press("enter")
	h.mustContain(`saved as "greeting"`)
	h.press("s", "enter") // enter takes the suggested name
	h.mustContain(`saved as "demo.echo"`)
	h.press("s", "tab")
	h.typeText(" 2") // tab edits the suggested name
	h.press("enter")
	h.mustContain(`saved as "demo.echo 2"`)
	for _, name := range []string{"demo.echo", "demo.echo 2"} {
		if err := saved.Delete(name); err != nil {
			t.Fatal(err)
		}
	}
	list, err := saved.List()
	if err != nil || len(list) != 1 || list[0].Name != "greeting" || string(list[0].Args) != `{"text":"to keep"}` {
		t.Fatalf("saved %+v, %v", list, err)
	}
	h.press("H", "s")
	h.typeText("second")
	h.press("enter")
	h.press("tab")
	h.mustContain("Saved (2)", "greeting", "second", `{"text":"to keep"}`)
	h.press("enter")
	if res := h.runDone(2); !res.OK() || !strings.Contains(string(res.Output), "to keep") {
		t.Fatalf("enter on a saved call ran %s", res.Output)
	}
	h.press("H", "tab", "d")
	h.mustContain("Saved (1)", `deleted the saved call "greeting"`)
	h.press("esc")
	if h.m.top() == h.m.history {
		t.Fatal("esc does not leave the saved calls")
	}
}

// x exports the calls shown as JSON Lines, to the file the prompt names.
func TestHistoryExport(t *testing.T) {
	store := keptStore(t, 5)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 24)
	h.press("H", "/")
	h.typeText("echo")
	h.press("enter", "x")
	want := filepath.Join(filepath.Dir(store.Path()), "export-20250102-030405.jsonl")
	h.mustContain("Export the calls shown", "export-20250102-030405.jsonl")
	h.press("enter")
	h.mustContain("exported 5 calls to " + want)
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var first history.Entry
	if len(lines) != 5 || json.Unmarshal([]byte(lines[0]), &first) != nil || string(first.Args) != `{"text":"kept 0"}` {
		t.Fatalf("exported:\n%s", b)
	}
	h.press("x", "enter") // the file exists now: refused, not overwritten
	h.mustContain("file exists")
}

// The history lists the calls the last started first, this session's and
// the kept ones together, whatever order they ended in.
func TestHistoryListsByStart(t *testing.T) {
	store := history.Open(filepath.Join(t.TempDir(), "history.jsonl"))
	keep := func(text string, start, took time.Duration) {
		res := fixedResult()
		res.CallID, res.Started, res.Wait, res.Run = "cli-"+text, fixedTime.Add(start), 0, took
		if err := store.Append(history.Entry{Time: fixedTime.Add(start), Tool: "demo.echo", Args: json.RawMessage(`{"text":"` + text + `"}`),
			Origin: tooling.OriginApp, Via: history.ViaRun, Result: res}); err != nil {
			t.Fatal(err)
		}
	}
	keep("short", -10*time.Second, time.Second)   // ended at -9s
	keep("long", -20*time.Second, 15*time.Second) // ended at -5s
	keep("later", time.Second, time.Second)       // started after this session's call
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 24)
	openRun(t, h, "demo.echo", `{"text":"now"}`)
	h.press("ctrl+s")
	h.runDone(1)
	h.press("H")
	v := h.view()
	last := -1
	for _, text := range []string{"later", "now", "short", "long"} {
		i := strings.Index(v, `{"text":"`+text+`"}`)
		if i < last {
			t.Fatalf("%q is not listed after the calls started later:\n%s", text, v)
		}
		last = i
	}
}

// A call's large arguments do not bury its output: the request says their
// size, and a shows them in the viewer, where they fold like an output.
func TestHistoryCallLargeArguments(t *testing.T) {
	s := history.Open(filepath.Join(t.TempDir(), "history.jsonl"))
	items := make([]string, 2000)
	for i := range items {
		items[i] = fmt.Sprintf(`{"n":%d,"text":"item %d"}`, i, i)
	}
	args := `{"items":[` + strings.Join(items, ",") + `],"text":"big"}`
	res := fixedResult()
	res.Output = json.RawMessage(`{"text":"the output"}`)
	if err := s.Append(history.Entry{Time: fixedTime.Add(-time.Hour), Tool: "demo.echo", Args: json.RawMessage(args), Origin: tooling.OriginApp, Via: history.ViaRun, Result: res}); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, newTestRegistry(t), Options{History: s}, 100, 30)
	h.press("H", "enter")
	h.mustContain("Arguments", "a shows them in the viewer", `"text": "the output"`)
	h.mustNotContain(`"item 0"`)
	h.press("a")
	h.mustContain(`"items": [`, `"item 0"`, "a goes back to the output")
	h.mustNotContain(`"the output"`)
	h.press("z") // folds like an output
	h.mustContain(`"items": [`, "2000")
	h.mustNotContain(`"item 0"`)
	h.press("a")
	h.mustContain(`"text": "the output"`)
}

// A search looks through the kept calls in memory, read once when the
// history opens: typing reads the store no more (the file is gone here,
// and the calls are still found).
func TestHistorySearchUsesTheIndex(t *testing.T) {
	store := keptStore(t, 300)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 24)
	h.press("H")
	h.waitFor("the kept calls read", func(m tea.Msg) bool { _, ok := m.(historyIndexMsg); return ok })
	if err := os.Remove(store.Path()); err != nil {
		t.Fatal(err)
	}
	h.press("/")
	h.typeText("kept 17")
	h.mustContain(`{"text":"kept 17"}`, `{"text":"kept 175"}`)
	h.press("enter", "G")
	h.mustContain(`{"text":"kept 17"}`)
	if n := len(h.m.history.items); n != 13 { // 17, 117, 170 to 179, 217
		t.Errorf("G lists %d calls of the search, want 13", n)
	}
}

// A search typed before the kept calls are read waits for them, saying
// so, and lists them when they come.
func TestHistorySearchWaitsForTheIndex(t *testing.T) {
	store := keptStore(t, 50)
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store}, 100, 24)
	h.press("H")
	hs := h.m.history
	hs.index, hs.indexing = nil, true // as while the store is read
	hs.indexGen++
	h.press("/")
	h.typeText("kept 4")
	h.mustContain("searching the kept calls…")
	h.send(historyIndexMsg{gen: hs.indexGen - 1, index: &historyIndex{}}) // an older read: ignored
	h.mustContain("searching the kept calls…")
	h.send(historyIndexMsg{gen: hs.indexGen, index: readIndex(store)})
	h.mustContain(`{"text":"kept 4"}`, `{"text":"kept 49"}`)
	h.mustNotContain("searching", `{"text":"kept 3"}`)
}
