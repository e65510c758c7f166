package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// storedCalls reads a store, newest first.
func storedCalls(t *testing.T, s *history.Store) []history.Entry {
	t.Helper()
	out, err := s.Last(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Every call the console makes is kept in the store, with the files the
// console was started with, and without its secrets.
func TestConsoleKeepsCalls(t *testing.T) {
	store := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
	h := newHarnessWith(t, newTestRegistry(t), Options{History: store, ConfigFile: "/c.json", ToolsFiles: []string{"/t.json", "/u.json"}}, 120, 30)
	openRun(t, h, "demo.echo", `{"text":"kept"}`)
	h.press("ctrl+s")
	h.runDone(1)
	openRun(t, h, "demo.write_note", `{"key":"token","note":"n"}`)
	h.press("ctrl+s", "y")
	h.runDone(2)
	got := storedCalls(t, store)
	if len(got) != 2 {
		t.Fatalf("kept %d calls, want 2", len(got))
	}
	e := got[1]
	if e.Tool != "demo.echo" || string(e.Args) != `{"text":"kept"}` || e.Origin != tooling.OriginUI || e.Via != history.ViaConsole ||
		e.Config != "/c.json" || strings.Join(e.ToolsFiles, " ") != "/t.json /u.json" || e.Result == nil || !e.Result.OK() || e.Result.CallID != "call-1" || !e.Time.Equal(fixedTime) {
		t.Errorf("the echo call as kept: %+v", e)
	}
	if w := got[0]; w.Tool != "demo.write_note" || !w.Consent || string(w.Args) != `{"key":"token","note":"n"}` {
		t.Errorf("the note call as kept: %+v %s", w, w.Args)
	}
}

// A call of an MCP server's tool is kept with the --server that gave the
// server, so that a later session can copy it as a command line that runs.
func TestConsoleKeepsTheServerFlag(t *testing.T) {
	store := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
	reg := newTestRegistry(t)
	tool := testTools()[0]
	tool.Name, tool.Source = "ev.echo", "mcp:ev"
	if err := reg.Add(tool); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, reg, Options{History: store, ServerFlags: []string{"e=/bin/e", "ev=/usr/bin/everything"}}, 120, 30)
	openRun(t, h, "ev.echo", `{"text":"hi"}`)
	h.press("ctrl+s")
	h.runDone(1)
	got := storedCalls(t, store)
	if len(got) != 1 || got[0].Server != "ev=/usr/bin/everything" {
		t.Fatalf("kept %+v", got)
	}
}
