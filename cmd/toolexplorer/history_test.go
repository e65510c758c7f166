package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// run keeps each call in the history, secrets redacted; history lists
// them, filtered and limited, as a table or as JSON Lines.
func TestRunKeepsCallsAndHistoryLists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	t.Setenv(history.FileEnv, path)
	if o := cli(t, "", "history"); o.code != exitOK || !strings.Contains(o.stdout, "no calls in "+path) {
		t.Fatalf("empty history: %+v", o)
	}
	if o := cli(t, "", "run", "demo.echo", "--args", `{"text":"one"}`); o.code != exitOK {
		t.Fatalf("run: %+v", o)
	}
	if o := cli(t, "", "run", "demo.echo", "--args", `{"text":"two","password":"hunter2"}`); o.code != exitRefused {
		t.Fatalf("run with an unknown argument: %+v", o)
	}
	if o := cli(t, "", "run", "demo.echo", "--args", `{"text":"three"}`, "--origin", "ui"); o.code != exitOK {
		t.Fatalf("run: %+v", o)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "hunter2") {
		t.Fatalf("a password reached the history file:\n%s", raw)
	}

	o := cli(t, "", "history")
	if o.code != exitOK {
		t.Fatalf("history: %+v", o)
	}
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "TIME") {
		t.Fatalf("want a header and 3 calls, oldest first:\n%s", o.stdout)
	}
	for i, want := range []string{`{"text":"one"}`, `"password":"[redacted]"`, `{"text":"three"}`} {
		if !strings.Contains(lines[i+1], want) || !strings.Contains(lines[i+1], "demo.echo") || !strings.Contains(lines[i+1], " run ") {
			t.Errorf("line %d lacks %s: %s", i+1, want, lines[i+1])
		}
	}
	if !strings.Contains(lines[2], "validation_error") || !strings.Contains(lines[1], " ok ") {
		t.Errorf("outcomes not shown:\n%s", o.stdout)
	}

	o = cli(t, "", "history", "--json", "--limit", "2", "--tool", "demo.echo")
	jl := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if o.code != exitOK || len(jl) != 2 {
		t.Fatalf("history --json --limit 2: %+v", o)
	}
	var e history.Entry
	if err := json.Unmarshal([]byte(jl[1]), &e); err != nil {
		t.Fatalf("not a JSON line: %v\n%s", err, jl[1])
	}
	if e.Tool != "demo.echo" || e.Origin != tooling.OriginUI || e.Via != history.ViaRun || e.Result == nil || !e.Result.OK() ||
		!strings.Contains(string(e.Result.Output), "three") || e.Result.CallID == "" || e.Time.IsZero() {
		t.Errorf("the newest call as kept: %+v", e)
	}

	o = cli(t, "", "history", "--search", "validation")
	if got := strings.Count(o.stdout, "demo.echo"); got != 1 {
		t.Errorf("--search validation found %d calls:\n%s", got, o.stdout)
	}
	o = cli(t, "", "history", "--tool", "demo.slow")
	if !strings.Contains(o.stdout, "no calls") {
		t.Errorf("--tool demo.slow: %s", o.stdout)
	}
	if o := cli(t, "", "history", "--limit", "-1"); o.code != exitUsage {
		t.Errorf("--limit -1: %+v", o)
	}
	if o := cli(t, "", "history", "extra"); o.code != exitUsage {
		t.Errorf("an argument: %+v", o)
	}
}

// $TOOLEXPLORER_HISTORY=off keeps nothing, and a history that cannot be
// written does not fail the call.
func TestHistoryOffAndUnwritable(t *testing.T) {
	t.Setenv(history.FileEnv, "off")
	if o := cli(t, "", "run", "demo.echo", "--args", `{"text":"x"}`); o.code != exitOK || o.stderr != "" {
		t.Fatalf("run with the history off: %+v", o)
	}
	if o := cli(t, "", "history"); o.code != exitOK || !strings.Contains(o.stderr, "no history is kept") {
		t.Fatalf("history when off: %+v", o)
	}
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o600)
	t.Setenv(history.FileEnv, filepath.Join(blocker, "h.jsonl")) // a file where a directory must be
	o := cli(t, "", "run", "demo.echo", "--args", `{"text":"x"}`)
	if o.code != exitOK || !strings.Contains(o.stderr, "warning: the call is not kept in the history") {
		t.Fatalf("run with an unwritable history: %+v", o)
	}
}

// history --saved lists the saved calls of the current directory.
func TestHistorySaved(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if o := cli(t, "", "history", "--saved"); o.code != exitOK || !strings.Contains(o.stdout, "no saved calls in "+history.SavedFile(dir)) {
		t.Fatalf("no saved calls: %+v", o)
	}
	coll := history.OpenSaved(history.SavedFile(dir))
	for _, name := range []string{"zeta", "alpha"} {
		if err := coll.Save(history.Saved{Name: name, Tool: "demo.echo", Args: json.RawMessage(`{"text":"` + name + `"}`)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	o := cli(t, "", "history", "--saved")
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if o.code != exitOK || len(lines) != 3 || !strings.HasPrefix(lines[1], "alpha") || !strings.Contains(lines[2], `{"text":"zeta"}`) {
		t.Fatalf("history --saved:\n%s", o.stdout)
	}
	o = cli(t, "", "history", "--saved", "--json")
	var s history.Saved
	if lines := strings.Split(strings.TrimSpace(o.stdout), "\n"); len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &s) != nil || s.Name != "alpha" {
		t.Fatalf("history --saved --json:\n%s", o.stdout)
	}
}

// A call of a tools file's tool is kept with the tools files loaded, by
// their absolute paths, so that the call can be made again.
func TestRunKeepsTheToolsFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	t.Setenv(history.FileEnv, path)
	t.Setenv("FILES_TEST_TOKEN", "x-token-value")
	var got atomic.Value
	dir := writeToolsDir(t, echoServer(t, &got).URL)
	if o := cli(t, "", "--tools-dir", dir, "run", "filetest.get", "--args", `{"id":"7"}`); o.code != exitOK {
		t.Fatalf("run: %+v", o)
	}
	entries, err := history.Open(path).Last(1, nil)
	if err != nil || len(entries) != 1 {
		t.Fatalf("kept %v, %v", entries, err)
	}
	abs, _ := filepath.Abs(dir)
	if e := entries[0]; len(e.ToolDirs) != 1 || e.ToolDirs[0] != abs || e.Demo {
		t.Errorf("kept with tools files %q, demo %v; want [%s]", e.ToolDirs, e.Demo, abs)
	}
}

// A tool that echoes a secret argument (here a write in shadow mode, whose
// output is the request it would send) does not put it in the history
// file: the value redacted in the arguments is redacted in the output.
func TestRunKeepsNoEchoedSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	t.Setenv(history.FileEnv, path)
	dir := t.TempDir()
	const file = `sources:
  api: {http: {base_url: "http://127.0.0.1:9", allow_private: true}}
tools:
  - name: echotest.login
    description: Log in (shadow mode).
    input:
      type: object
      properties: {user: {type: string}, password: {type: string}, code: {type: string, writeOnly: true}}
      required: [user, password]
      additionalProperties: false
    meta: {effects: [write, network]}
    shadow: true
    binding:
      http: {source: api, method: POST, path: /login, body: {user: "{user}", password: "{password}", code: "{code}"}}
`
	if err := os.WriteFile(filepath.Join(dir, "login.yaml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	o := cli(t, "", "--tools-dir", dir, "run", "echotest.login", "--consent", "--args", `{"user":"bob","password":"hunter2","code":"s&cr<t-0tp"}`, "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, "hunter2") {
		t.Fatalf("run (the output on screen shows the request as given): %+v", o)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"hunter2", "s&cr<t-0tp", `s\u0026cr`} {
		if strings.Contains(string(raw), leak) {
			t.Errorf("%s reached the history file:\n%s", leak, raw)
		}
	}
	if !strings.Contains(string(raw), `"user":"bob"`) {
		t.Errorf("the call is not kept:\n%s", raw)
	}
}

// A filter that matches no call says so, not that the history or the
// ledger is empty; an empty ledger says it has no calls, not a bare
// header.
func TestHistoryAndLedgerSayWhenNoCallMatches(t *testing.T) {
	dir := t.TempDir()
	hist, led := filepath.Join(dir, "h.jsonl"), filepath.Join(dir, "ledger.jsonl")
	t.Setenv(history.FileEnv, hist)
	t.Setenv(ledgerEnv, led)
	if o := cli(t, "", "ledger"); o.code != exitOK || o.stdout != "no calls in "+led+"\n" {
		t.Errorf("an empty ledger:\n%s", o)
	}
	if o := cli(t, "", "run", "demo.echo", "--args", `{"text":"one"}`); o.code != exitOK {
		t.Fatalf("run: %s", o)
	}
	for _, args := range [][]string{{"history", "--tool", "demo.nope"}, {"history", "--search", "zzz"}} {
		if o := cli(t, "", args...); o.code != exitOK || o.stdout != "no calls match in "+hist+"\n" {
			t.Errorf("%q:\n%s", args, o)
		}
	}
	for _, args := range [][]string{{"ledger", "--tool", "demo.nope"}, {"ledger", "--code", "timeout"}, {"ledger", "--subject", "nobody"}} {
		if o := cli(t, "", args...); o.code != exitOK || o.stdout != "no calls match in "+led+"\n" {
			t.Errorf("%q:\n%s", args, o)
		}
	}
	if o := cli(t, "", "ledger", "--tool", "demo.echo"); o.code != exitOK || !strings.Contains(o.stdout, "demo.echo@") {
		t.Errorf("the call made:\n%s", o)
	}
}
