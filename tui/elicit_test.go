package tui

import (
	"context"
	"encoding/json"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

type askResult struct {
	content map[string]any
	accept  bool
	err     error
}

// TestAskForInput: a server's request for input during a call comes up as
// a form over the screen shown; ctrl+s sends what was typed, esc declines,
// and the screen below comes back.
func TestAskForInput(t *testing.T) {
	asker := NewAsker()
	h := newHarnessWith(t, tooling.NewRegistry(), Options{Asker: asker}, 100, 30)
	t.Cleanup(asker.Close) // before the harness waits for its commands
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string","title":"Name"}},"required":["name"]}`)
	asked := 0
	ask := func() chan askResult {
		asked++
		ch := make(chan askResult, 1)
		go func() {
			c, ok, err := asker.Ask(context.Background(), "everything", "Please provide inputs for the following fields:", schema)
			ch <- askResult{c, ok, err}
		}()
		seen := 0 // the requests seen so far, the one awaited the last
		h.waitFor("the request", func(m tea.Msg) bool {
			if _, ok := m.(askMsg); ok {
				seen++
			}
			return seen == asked
		})
		return ch
	}

	got := ask()
	h.mustContain("Input requested", "the MCP server everything asks", "Please provide inputs for the following fields:", "name")
	h.typeText("Ada")
	h.press("ctrl+s")
	if r := <-got; r.err != nil || !r.accept || r.content["name"] != "Ada" {
		t.Fatalf("sent: %+v", r)
	}
	if h.m.top() != h.m.list {
		t.Fatalf("the list is not back on top")
	}

	got = ask()
	h.press("esc")
	if r := <-got; r.err != nil || r.accept {
		t.Fatalf("declined: %+v", r)
	}
}

// A request's message keeps its lines (a consent question puts the
// arguments on a line of their own); control characters are still shown
// escaped.
func TestAskMessageKeepsItsLines(t *testing.T) {
	s := &askScreen{w: 60, req: &askRequest{message: "demo.kv_put wants to write: allow once?\narguments: {\"key\":\"k\"}\n\x1b[31mred"}}
	got := s.messageLines()
	want := []string{"demo.kv_put wants to write: allow once?", `arguments: {"key":"k"}`, `\x1b[31mred`}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i+1, got[i], want[i])
		}
	}
}

// TestAskWithdrawn: a request whose asker stops waiting (the call ended,
// the sign-in it showed is over) is taken away, and the screen below comes
// back.
func TestAskWithdrawn(t *testing.T) {
	asker := NewAsker()
	h := newHarnessWith(t, tooling.NewRegistry(), Options{Asker: asker}, 100, 30)
	t.Cleanup(asker.Close)
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan error, 1)
	go func() {
		_, _, err := asker.Ask(ctx, "docs", "server \"docs\" wants you to sign in: open http://127.0.0.1/authorize", json.RawMessage(`{"type":"object","properties":{}}`))
		got <- err
	}()
	h.waitFor("the request", func(m tea.Msg) bool { _, ok := m.(askMsg); return ok })
	h.mustContain("Input requested", "the MCP server docs asks", "wants you to sign in")
	cancel()
	if err := <-got; err == nil {
		t.Fatal("Ask returned no error for a canceled context")
	}
	h.waitFor("the withdrawal", func(m tea.Msg) bool { _, ok := m.(askGoneMsg); return ok })
	if h.m.top() != h.m.list {
		t.Fatalf("the request is still shown")
	}
}
