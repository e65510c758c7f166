package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// realLedger is a ledger of the package ledger attached to a registry,
// read as the command line's console reads it.
type realLedger struct{ l *ledger.Ledger }

func (r realLedger) Path() string { return r.l.Path() }

func (r realLedger) Read() ([]ledger.Entry, error) {
	if err := r.l.Sync(); err != nil {
		return nil, err
	}
	return ledger.Read(r.l.Path(), ledger.Filter{})
}

// attachLedger records every call of reg in a ledger of the test's.
func attachLedger(t testing.TB, reg *tooling.Registry) realLedger {
	t.Helper()
	l, err := ledger.Open(ledger.Options{Path: filepath.Join(t.TempDir(), "ledger.jsonl"), Policy: "policy-digest"})
	if err != nil {
		t.Fatal(err)
	}
	l.Attach(reg)
	t.Cleanup(func() { _ = l.Close() })
	return realLedger{l}
}

// fixedLedger holds calls made up for the golden views.
type fixedLedger struct {
	entries []ledger.Entry
	err     error
	// read, when set, is waited for before Read returns; reads counts them.
	read  chan struct{}
	reads chan struct{}
}

func (f *fixedLedger) Path() string { return "/home/dev/.local/state/toolexplorer/ledger.jsonl" }

func (f *fixedLedger) Read() ([]ledger.Entry, error) {
	if f.reads != nil {
		f.reads <- struct{}{}
	}
	if f.read != nil {
		<-f.read
	}
	return f.entries, f.err
}

func fixedLedgerEntries() []ledger.Entry {
	alice := &tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"dev"}, Auth: "local"}
	ci := &tooling.Principal{Subject: "key:ci", Auth: "api_key", Client: "ci-runner 1.2"}
	begin := func(seq uint64, call, tool string, p *tooling.Principal, at time.Duration) ledger.Record {
		return ledger.Record{Seq: seq, Kind: ledger.KindBegin, Time: fixedTime.Add(-at), Session: "s1", Call: call, Tool: tool,
			Version: "1.0.0", Origin: tooling.OriginUI, Principal: p, Policy: "9f2c…policy", ArgsSHA256: "ab12cd34", ArgsSize: 14,
			Prev: fmt.Sprintf("prev%d", seq), Hash: fmt.Sprintf("hash%d", seq)}
	}
	end := func(b ledger.Record, status string, code codes.Code) *ledger.Record {
		e := ledger.Record{Seq: b.Seq + 1, Kind: ledger.KindEnd, Time: b.Time.Add(1234 * time.Microsecond), Session: "s1", Call: b.Call,
			Tool: b.Tool, Status: status, Code: code, OutputSHA256: "ef56", OutputSize: 20, WaitMS: 0.012, RunMS: 1.234,
			Governance: []tooling.Decision{{Step: "timeout", Detail: "30s (config default)"}}, Prev: b.Hash, Hash: fmt.Sprintf("hash%d", b.Seq+1)}
		return &e
	}
	b1 := begin(1, "ui-1", "demo.echo", alice, 3*time.Minute)
	b2 := begin(3, "cli-7", "demo.write_note", ci, 2*time.Minute)
	b2.Idempotency = "5e77a1c0"
	e2 := end(b2, "ok", codes.OK)
	e2.Replayed, e2.Detail = true, map[string]string{"backend": "notes"}
	e2.Effects = map[string]string{"path": "/notes/k", "bytes": "12"}
	b3 := begin(5, "ui-2", "demo.slow", alice, time.Minute)
	b4 := begin(7, "mcp-3", "demo.fetch", nil, 30*time.Second)
	return []ledger.Entry{
		{Begin: b1, End: end(b1, "ok", codes.OK), Status: "ok"},
		{Begin: b2, End: e2, Status: "ok"},
		{Begin: b3, End: end(b3, "error", codes.Timeout), Status: "error"},
		{Begin: b4, Status: "interrupted"},
	}
}

// openLedger presses E and waits for the ledger to be read.
func openLedger(h *harness) {
	h.t.Helper()
	n := len(h.seen)
	h.press("E")
	h.waitFor("the ledger to be read", func(m tea.Msg) bool {
		for _, s := range h.seen[n:] {
			if _, ok := s.(ledgerReadMsg); ok {
				return true
			}
		}
		return false
	})
}

// TestLedgerScreenListsEveryCall: calls made through the registry, a
// refusal among them, are listed newest first with who made them and
// how they ended; enter opens a call with every field of its records.
func TestLedgerScreenListsEveryCall(t *testing.T) {
	reg := newTestRegistry(t)
	led := attachLedger(t, reg)
	ctx := context.Background()
	alice := tooling.Principal{Subject: "alice", Tenant: "acme", Auth: "local"}
	if _, err := reg.Execute(ctx, "demo.echo", json.RawMessage(`{"text":"hi"}`), tooling.WithPrincipal(alice), tooling.WithCallID("first")); err != nil {
		t.Fatal(err)
	}
	_, _ = reg.Execute(ctx, "demo.echo", json.RawMessage(`{}`), tooling.WithCallID("refused"))
	if _, err := reg.Execute(ctx, "demo.fetch", json.RawMessage(`{"url":"https://example.com"}`), tooling.WithCallID("last")); err != nil {
		t.Fatal(err)
	}
	h := newHarnessWith(t, reg, Options{Ledger: led}, 120, 30)
	openLedger(h)
	h.mustContain("Ledger · 3 calls", "✓ ok", "⊘ validation_error", "alice@acme", "anonymous")
	v := h.view()
	if last, first := strings.Index(v, "demo.fetch"), strings.Index(v, "first"); last < 0 || first < 0 || last > first {
		t.Fatalf("not newest first:\n%s", v)
	}
	h.press("G", "enter")
	h.mustContain("Record of first", "Principal", "subject", "alice", "tenant", "acme", "auth", "local",
		"arguments", "sha256 ", "13 bytes", "policy", "policy-digest", "profile", "in process")
	h.press("G")
	h.mustContain(`"output_size": 13`, `"run_ms"`)
	h.press("esc")
	h.mustContain("Ledger · 3 calls")
	if h.m.top() != h.m.ledger {
		t.Fatalf("esc did not go back to the ledger")
	}
}

// TestLedgerRecordShowsEvidence: a replayed call's record shows the
// digest of its idempotency key, the side effects the tool reported and
// that it was replayed; an interrupted call says it has no end.
func TestLedgerRecordShowsEvidence(t *testing.T) {
	h := newHarnessWith(t, newTestRegistry(t), Options{Ledger: &fixedLedger{entries: fixedLedgerEntries()}}, 120, 60)
	openLedger(h)
	h.press("j", "j", "enter")
	h.mustContain("Record of cli-7", "key:ci", "api_key", "ci-runner 1.2", "idempotency", "sha256 5e77a1c0 (of the key)",
		"replayed", "the tool did not run", "Side effects", "path", "/notes/k", "Detail (as the tool reported it)", "backend", "Chain", "record 3 · hash hash3 · prev prev3")
	h.press("esc", "g", "enter")
	h.mustContain("Record of mcp-3", "interrupted: the ledger has no end of this call", "no key")
}

// TestLedgerFilters: t, c and u keep the calls of the selected call's
// tool, code and subject, and undo it when pressed again; the search
// takes words and tool:, code: and subject: filters; esc clears them
// before going back.
func TestLedgerFilters(t *testing.T) {
	h := newHarnessWith(t, newTestRegistry(t), Options{Ledger: &fixedLedger{entries: fixedLedgerEntries()}}, 120, 30)
	openLedger(h)
	h.mustContain("Ledger · 4 calls")
	h.press("G", "u") // the oldest: alice's
	h.mustContain("Ledger · 2 of 4 calls", "subject alice", "demo.echo", "demo.slow")
	h.mustNotContain("demo.write_note", "demo.fetch")
	h.press("c") // demo.echo's outcome: ok
	h.mustContain("Ledger · 1 of 4 calls", "subject alice", "code ok")
	h.press("c", "u")
	h.mustContain("Ledger · 4 calls")

	h.press("/")
	h.typeText("code:timeout")
	h.mustContain("Ledger · 1 of 4 calls", "demo.slow")
	h.press("enter")
	h.mustContain("code timeout", "esc clears")
	h.press("/")
	h.typeText("ci")
	h.mustContain("Ledger · 1 of 4 calls", "demo.write_note")
	h.press("enter", "esc")
	h.mustContain("Ledger · 4 calls")
	if h.m.top() != h.m.ledger {
		t.Fatal("esc with a search went back instead of clearing it")
	}
	h.press("/")
	h.typeText("nothing-like-it")
	h.mustContain("no call matches")
	h.press("esc", "esc")
	if h.m.top() != h.m.list {
		t.Fatal("esc without a search did not go back")
	}
}

// TestLedgerReadsOffTheUIGoroutine: while the ledger is read (a read that
// does not end until the test says so), the screen says so with its
// progress and keys keep working: the search is typed, other screens open.
func TestLedgerReadsOffTheUIGoroutine(t *testing.T) {
	f := &fixedLedger{entries: fixedLedgerEntries(), read: make(chan struct{}), reads: make(chan struct{}, 8)}
	h := newHarnessWith(t, newTestRegistry(t), Options{Ledger: f}, 120, 30)
	h.press("E")
	<-f.reads // the read began, and blocks
	h.mustContain("Ledger", "reading the ledger…", "reading ", "0s")
	h.press("/")
	h.typeText("slow")
	h.mustContain("/ slow")
	h.press("enter", "H")
	h.mustContain("History")
	h.press("esc")
	close(f.read)
	h.waitFor("the ledger to be read", func(m tea.Msg) bool { _, ok := m.(ledgerReadMsg); return ok })
	h.mustContain("Ledger · 1 of 4 calls", "demo.slow")
	h.mustNotContain("reading")
}

// TestLedgerReadAgain: showing the ledger again after the console made a
// call reads it again, and the new call is listed; r reads it on demand.
func TestLedgerReadAgain(t *testing.T) {
	reg := newTestRegistry(t)
	led := attachLedger(t, reg)
	h := newHarnessWith(t, reg, Options{Ledger: led}, 120, 30)
	openLedger(h)
	h.mustContain("no calls recorded yet")
	h.press("esc")
	openRun(t, h, "demo.echo", `{"text":"hi"}`)
	h.press("ctrl+s")
	h.runDone(1)
	openLedger(h)
	h.mustContain("Ledger · 1 call", "demo.echo@1.0.0", "call-1")
	if _, err := reg.Execute(context.Background(), "demo.fetch", json.RawMessage(`{"url":"https://example.com"}`), tooling.WithCallID("outside")); err != nil {
		t.Fatal(err)
	}
	n := len(h.seen)
	h.press("r")
	h.waitFor("the ledger read again", func(tea.Msg) bool {
		for _, s := range h.seen[n:] {
			if _, ok := s.(ledgerReadMsg); ok {
				return true
			}
		}
		return false
	})
	h.mustContain("Ledger · 2 calls", "outside")
}

// TestLedgerJumpFromHistory: L on a call of the history, and in the call
// opened from it, opens the ledger at that call's record.
func TestLedgerJumpFromHistory(t *testing.T) {
	reg := newTestRegistry(t)
	led := attachLedger(t, reg)
	h := newHarnessWith(t, reg, Options{Ledger: led}, 120, 40)
	openRun(t, h, "demo.echo", `{"text":"one"}`)
	h.press("ctrl+s")
	h.runDone(1)
	h.press("esc", "esc")
	openRun(t, h, "demo.echo", `{"text":"two"}`)
	h.press("ctrl+s")
	h.runDone(2)
	h.press("H", "j") // call 1
	h.mustContain("L ledger")
	h.press("L")
	h.waitFor("the record to open", func(m tea.Msg) bool { _, ok := m.(openLedgerRecordMsg); return ok })
	h.mustContain("Record of call-1", "History › Ledger › Record of call-1")
	h.press("esc")
	h.mustContain("Ledger · 2 calls")
	if r, ok := h.m.ledger.selected(); !ok || r.e.Begin.Call != "call-1" {
		t.Fatalf("the ledger's cursor is not on call-1")
	}
	h.press("H", "enter") // call 2, opened from the history
	h.mustContain("Call of demo.echo")
	h.press("L")
	h.mustContain("Record of call-2")

	// A call the ledger does not hold says so.
	h.m.c.history = append(h.m.c.history, &callRecord{seq: 9, tool: "demo.echo", result: &tooling.Result{CallID: "elsewhere"}})
	h.press("H", "g", "L")
	h.mustContain("the ledger has no record of call elsewhere")
}

// TestLedgerNone: without a ledger, E says none is kept and L is off.
func TestLedgerNone(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 30)
	h.press("E")
	h.mustContain("no ledger is kept")
	h.press("esc")
	h.m.c.history = []*callRecord{{seq: 1, tool: "demo.echo", result: fixedResult()}}
	h.press("H")
	h.mustNotContain("L ledger")
}
