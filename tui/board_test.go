package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// fixedGovernance is a governance picture with something in every section.
// The sections whose types are package sandbox's come from JSON: the
// console sees them only through the fields of tooling.Stats.
func fixedGovernance() tooling.Stats {
	t0 := fixedTime
	var g tooling.Stats
	sections := fmt.Sprintf(`{
		"slots": {"Limit": 256, "Used": 3, "Waiting": 1},
		"locks": [{"Key": "notes", "Holder": {"Name": "demo.write_note", "ID": "call-7"}, "HeldSince": %q,
			"Waiters": [{"Name": "demo.write_note", "ID": "call-8"}]}],
		"main_thread": {"Started": true, "OnMainThread": true, "QueueDepth": 2, "Current": "demo.main call call-9",
			"CurrentSince": %q, "Stuck": true, "Served": 41},
		"buckets": [{"Key": "demo.fetch", "Rate": {"PerMinute": 60, "Burst": 5}, "Tokens": 2.5}]}`,
		t0.Add(-1500*time.Millisecond).Format(time.RFC3339Nano), t0.Add(-12*time.Second).Format(time.RFC3339Nano))
	if err := json.Unmarshal([]byte(sections), &g); err != nil {
		panic(err)
	}
	g.Time = t0
	g.Tools = []tooling.ToolStats{
		{Tool: "demo.echo", Calls: 12, OK: 10, Errors: map[codes.Code]uint64{codes.ValidationError: 2}, Peak: 3,
			Last: 1200 * time.Microsecond, P50: 1024 * time.Microsecond, P95: 4096 * time.Microsecond},
		{Tool: "demo.slow", Calls: 3, OK: 1, Errors: map[codes.Code]uint64{codes.Canceled: 1, codes.Timeout: 1},
			Running: 1, Peak: 2, Last: 500 * time.Millisecond, P50: 262144 * time.Microsecond, P95: 524288 * time.Microsecond},
	}
	g.InFlight, g.Abandoned = 2, 1
	return g
}

func TestBoardShowsGovernance(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 120, 40)
	h.m.c.governance = fixedGovernance
	h.press("B")
	h.mustContain(
		"Governance · live, every 100ms · in flight 2 · abandoned 1",
		"3 in use of 256 · 1 waiting",
		"on the process main thread · queue 2 · served 41",
		"running demo.main call call-9 for 12s  STUCK",
		"notes            held by demo.write_note (call-7) for 1.5s",
		"                   waiting: demo.write_note (call-8)",
		"demo.fetch       [█████·····]  2.5 of 5 tokens · 60/min",
		// The registry's quantiles are bucket bounds, and shown as bounds.
		"demo.echo     12     10    0    3   1.2ms  ≤1.02ms   ≤4.1ms  validation_error 2",
		"P50, P95: upper bounds (latencies are counted in buckets that double)",
		"demo.slow      3      1    1    2   500ms   ≤262ms   ≤524ms  canceled 1, timeout 1",
	)
}

func TestBoardRefreshesOnlyWhileOpen(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	reads := 0
	h.m.c.governance = func() tooling.Stats {
		reads++
		g := fixedGovernance()
		g.InFlight = int64(reads)
		return g
	}
	h.press("B")
	if reads != 1 {
		t.Fatalf("opening the board read the stats %d times", reads)
	}
	gen := h.m.board.gen
	_, cmd := h.m.Update(boardTickMsg{gen: gen, at: fixedTime})
	if reads != 2 || cmd == nil {
		t.Fatalf("a tick: %d reads, next tick %v", reads, cmd != nil)
	}
	h.mustContain("in flight 2")

	h.press("p") // pause
	h.mustContain("paused (p resumes)")
	if _, cmd := h.m.Update(boardTickMsg{gen: h.m.board.gen}); cmd != nil || reads != 2 {
		t.Fatal("a paused board refreshes")
	}
	h.press("p")
	if reads != 3 {
		t.Fatalf("resuming did not refresh: %d reads", reads)
	}

	h.press("esc")
	if h.m.top() == h.m.board {
		t.Fatal("esc did not leave the board")
	}
	for _, g := range []int{gen, h.m.board.gen} {
		if _, cmd := h.m.Update(boardTickMsg{gen: g}); cmd != nil {
			t.Fatal("a tick after the board closed schedules another")
		}
	}
	if reads != 3 {
		t.Fatalf("the closed board read the stats: %d reads", reads)
	}
}

func TestBoardLive(t *testing.T) {
	// The real registry's picture: a call of demo.echo shows in the tools.
	reg := newTestRegistry(t)
	h := newHarness(t, reg, 120, 30)
	openRun(t, h, "demo.echo", `{"text":"x"}`)
	h.press("ctrl+s")
	h.runDone(1)
	h.press("B")
	h.mustContain("0 in use of 256 · 0 waiting", "not started", "none held", "demo.echo      1      1")
}

// TestBoardShowsBudgets: the board shows what each budget leaves the
// principal the console calls as: its window, when it refills, and per
// count what is used and left, a count the output of a call took past its
// bound marked so; it reads them again every second while open (never
// two reads at once), and for the principal A switches to.
func TestBoardShowsBudgets(t *testing.T) {
	var mu sync.Mutex
	var reads []string
	nReads := func() int { mu.Lock(); defer mu.Unlock(); return len(reads) }
	budgets := func(_ context.Context, p tooling.Principal) ([]Budget, error) {
		mu.Lock()
		reads = append(reads, p.String())
		mu.Unlock()
		if p.Subject == "mallory" {
			return nil, errors.New("the store is down")
		}
		return []Budget{
			{Name: "egress", Per: "tenant", Who: p.Tenant, Window: 24 * time.Hour, Refill: 5*time.Hour + 2*time.Minute + 3*time.Second,
				Counts: []BudgetCount{{What: "calls", Used: 3, Bound: 10}, {What: "bytes_out", Used: 212, Bound: 150}}},
			{Name: "searches", Per: "subject", Who: p.Subject, Window: time.Minute, Refill: 30 * time.Second,
				Counts: []BudgetCount{{What: "calls", Used: 2, Bound: 2}}},
		}, nil
	}
	alice := tooling.Principal{Subject: "alice", Tenant: "acme", Auth: "local"}
	h := newHarnessWith(t, newTestRegistry(t), Options{Principal: alice, Budgets: budgets}, 120, 40)
	h.m.c.governance = fixedGovernance
	// The reads answer in commands: wait for the nth answer, which may
	// come in the background on a loaded machine.
	answered := func(n int) {
		t.Helper()
		count := func(tea.Msg) bool {
			seen := 0
			for _, m := range h.seen {
				if _, ok := m.(budgetsMsg); ok {
					seen++
				}
			}
			return seen >= n
		}
		if !count(nil) {
			h.waitFor(fmt.Sprintf("answer %d of the budgets", n), count)
		}
	}
	h.press("B")
	answered(1)
	h.mustContain(
		"Budgets of alice@acme",
		"egress           tenant acme · per day · refills in 5h2m3s",
		"  calls          [███████···] 3 of 10 used · 7 left",
		"  bytes out      [··········] 212 of 150 used · 62 past the budget: calls are refused until it refills",
		"searches         subject alice · per minute · refills in 30s",
		"  calls          [··········] 2 of 2 used · spent: calls are refused until it refills",
	)
	if n := nReads(); n != 1 {
		t.Fatalf("opening the board read the budgets %d times", n)
	}
	for i := range budgetTicks - 1 {
		h.m.Update(boardTickMsg{gen: h.m.board.gen, at: fixedTime.Add(time.Duration(i) * boardInterval)})
	}
	if n := nReads(); n != 1 {
		t.Fatalf("%d ticks read the budgets %d times", budgetTicks-1, n)
	}
	_, cmd := h.m.Update(boardTickMsg{gen: h.m.board.gen})
	// Until the read comes back, ticks start no other.
	for range 2 * budgetTicks {
		h.m.Update(boardTickMsg{gen: h.m.board.gen})
	}
	h.exec(cmd)
	answered(2)
	if n := nReads(); n != 2 {
		t.Fatalf("a second of ticks read the budgets %d times, want once more", n-1)
	}

	h.press("esc")
	h.press("A")
	h.typeText("mallory@acme")
	h.press("enter")
	h.press("B")
	answered(3)
	h.mustContain("Budgets of mallory@acme", "cannot be read: the store is down")
	h.mustNotContain("egress")
}

// TestBoardShowsSharedState: with state shared with other replicas, the
// board says where it is decided and how, read at each refresh; without
// it, the section is not there.
func TestBoardShowsSharedState(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 160, 50)
	h.m.c.governance = fixedGovernance
	h.press("B")
	h.mustNotContain("Shared state")
	status := "Redis at 127.0.0.1:6379 · key prefix prod · connected"
	h.m.c.sharedState = func() string { return status }
	h.press("esc")
	h.press("B")
	h.mustContain("Shared state", "Redis at 127.0.0.1:6379 · key prefix prod · connected")
	status = "Redis at 127.0.0.1:6379 · key prefix prod · falling back to local"
	h.m.Update(boardTickMsg{gen: h.m.board.gen})
	h.mustContain("falling back to local")
}
