package tooling_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/internal/toolstates"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

func TestVersionIsSemver(t *testing.T) {
	for _, v := range []string{"", "1.0.0", "0.4.12", "2.0.0-rc.1", "1.0.0+build.5"} {
		if err := tooling.NewRegistry().Add(tooling.Tool{Name: "t.v", Meta: tooling.Meta{Version: v}, Run: run}); err != nil {
			t.Errorf("Version %q: %v, want it registered", v, err)
		}
	}
	for _, v := range []string{"v1.0.0", "1.0", "1", "01.0.0", "latest", "1.0.0 "} {
		err := tooling.NewRegistry().Add(tooling.Tool{Name: "t.v", Meta: tooling.Meta{Version: v}, Run: run})
		var re *tooling.RegisterError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "not a semantic version: write MAJOR.MINOR.PATCH") {
			t.Errorf("Version %q: %v, want a RegisterError saying how to write a semantic version", v, err)
		}
	}
}

// stateEvents records the state events of r.
func stateEvents(r *tooling.Registry) func() []tooling.Event {
	var mu sync.Mutex
	var evs []tooling.Event
	r.Audit(func(_ context.Context, ev tooling.Event) {
		if ev.State != "" {
			mu.Lock()
			evs = append(evs, ev)
			mu.Unlock()
		}
	})
	return func() []tooling.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]tooling.Event(nil), evs...)
	}
}

// TestPausedTool: a paused tool refuses new calls with code paused and the
// reason while a call that started before finishes; enabled again, it
// runs. Each change is an event with the principal who made it.
func TestPausedTool(t *testing.T) {
	r := tooling.NewRegistry()
	started, release := make(chan struct{}), make(chan struct{})
	r.Register(tooling.Tool{Name: "t.slow", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Version: "1.2.0"},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			if callargs.Bool(c.Args, "block") {
				close(started)
				<-release
			}
			return "done", nil
		},
		Input: raw(`{"type":"object","properties":{"block":{"type":"boolean"}}}`)})
	events := stateEvents(r)
	inFlight := make(chan error)
	go func() {
		_, err := r.Execute(t.Context(), "t.slow", raw(`{"block":true}`))
		inFlight <- err
	}()
	<-started
	admin := tooling.ContextWithPrincipal(t.Context(), tooling.Principal{Subject: "ops"})
	if err := r.SetState(admin, "t.slow", tooling.StatePaused, "maintenance of the backend", ""); err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(t.Context(), "t.slow", nil)
	if !errors.Is(err, codes.Paused) || res.Status != "denied" || !strings.Contains(res.Message, "maintenance of the backend") {
		t.Fatalf("a call of a paused tool: %v (status %s, message %q), want paused, denied, with the reason", err, res.Status, res.Message)
	}
	if p, _ := r.Policy("t.slow"); p.State != tooling.StatePaused || p.StateReason != "maintenance of the backend" {
		t.Fatalf("Policy = %+v, want paused with the reason", p)
	}
	close(release)
	if err := <-inFlight; err != nil {
		t.Fatalf("the call in flight when the tool was paused: %v, want it to finish ok", err)
	}
	if err := r.SetState(admin, "t.slow", tooling.StatePaused, "maintenance of the backend", ""); err != nil {
		t.Fatal(err)
	}
	if err := r.SetState(admin, "t.slow", tooling.StateEnabled, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(t.Context(), "t.slow", nil); err != nil {
		t.Fatalf("enabled again: %v", err)
	}
	evs := events()
	if len(evs) != 2 || evs[0].State != tooling.StatePaused || evs[1].State != tooling.StateEnabled {
		t.Fatalf("state events %+v, want paused then enabled (no event for a state set twice)", evs)
	}
	if ev := evs[0]; ev.Principal.Subject != "ops" || ev.Tool != "t.slow" || ev.Version != "1.2.0" || ev.CallID != "" || ev.Detail["reason"] != "maintenance of the backend" {
		t.Fatalf("pause event %+v, want ops pausing t.slow 1.2.0 with the reason", ev)
	}
	if err := r.SetState(admin, "t.slow", "asleep", "", ""); err == nil {
		t.Fatal("an unknown state was accepted")
	}
	if err := r.SetState(admin, "t.slow", tooling.StateDeprecated, "", "t.none"); err == nil {
		t.Fatal("a replacement that is not registered was accepted")
	}
}

// TestDeprecatedTool: a deprecated tool runs; its result, policy and
// exports say so and name the replacement.
func TestDeprecatedTool(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.old", Description: "Does it.", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run},
		tooling.Tool{Name: "t.new", Description: "Does it better.", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run})
	if err := r.SetState(t.Context(), "t.old", tooling.StateDeprecated, "it reads the old schema", "t.new"); err != nil {
		t.Fatal(err)
	}
	res := mustExec(t, r, "t.old", `{}`)
	if !hasIdemDecision(res, "state", "deprecated: use t.new instead (it reads the old schema)") {
		t.Fatalf("governance %+v, want the deprecation naming t.new", res.Governance)
	}
	list := export.MCP(t.Context(), r, export.Options{Origin: tooling.OriginApp})
	for _, tool := range list.Tools {
		if tool.Name == "t.old" && tool.Description != "Deprecated: use t.new instead. it reads the old schema. Does it." {
			t.Fatalf("exported description %q, want the deprecation first", tool.Description)
		}
	}
}

// TestConfigState: config tools.NAME.state pauses and deprecates; taking it
// out enables the tool again; each change is an event; an unknown state is
// refused.
func TestConfigState(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.a", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run})
	events := stateEvents(r)
	if _, err := r.Configure(tooling.Settings{Tools: map[string]tooling.Override{"t.a": {State: tooling.StatePaused, StateReason: "by config"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(t.Context(), "t.a", nil); !errors.Is(err, codes.Paused) {
		t.Fatalf("paused by config: %v", err)
	}
	// A runtime change holds until the config's state changes.
	if err := r.SetState(t.Context(), "t.a", tooling.StateEnabled, "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Configure(tooling.Settings{Tools: map[string]tooling.Override{"t.a": {State: tooling.StatePaused, StateReason: "by config"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(t.Context(), "t.a", nil); err != nil {
		t.Fatalf("enabled at runtime, the same config applied again: %v, want it enabled", err)
	}
	if _, err := r.Configure(tooling.Settings{}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(t.Context(), "t.a", nil); err != nil {
		t.Fatalf("no state in the config: %v", err)
	}
	var got []tooling.State
	for _, ev := range events() {
		got = append(got, ev.State)
	}
	if want := []tooling.State{tooling.StatePaused, tooling.StateEnabled}; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("state events %v, want %v", got, want)
	}
	if _, err := r.Configure(tooling.Settings{Tools: map[string]tooling.Override{"t.a": {State: "asleep"}}}); err == nil || !strings.Contains(err.Error(), `State is "asleep"`) {
		t.Fatalf("an unknown state in the config: %v", err)
	}
}

// TestStateFollowers: a follower of states (internal/toolstates) runs after
// each change of a tool's state, with the principal of the change in its
// context, and never for a call; a panic in it is counted as an audit
// hook's; stop ends it.
func TestStateFollowers(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.a", Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: run})
	var who []string
	stop := toolstates.Follow(r, func(ctx context.Context) {
		p, _ := tooling.PrincipalFromContext(ctx)
		who = append(who, p.Subject)
		if p.Subject == "panics" {
			panic("follower")
		}
	})
	if _, err := r.Execute(context.Background(), "t.a", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background(), "t.none", nil); err == nil {
		t.Fatal("a call of no tool succeeded")
	}
	if len(who) != 0 {
		t.Fatalf("calls reached the follower: %q", who)
	}
	ctx := tooling.ContextWithPrincipal(context.Background(), tooling.Principal{Subject: "ops"})
	if err := r.SetState(ctx, "t.a", tooling.StatePaused, "maintenance", ""); err != nil {
		t.Fatal(err)
	}
	if err := r.SetState(ctx, "t.a", tooling.StatePaused, "maintenance", ""); err != nil { // no change
		t.Fatal(err)
	}
	panics := tooling.ContextWithPrincipal(context.Background(), tooling.Principal{Subject: "panics"})
	if err := r.SetState(panics, "t.a", tooling.StateEnabled, "", ""); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(who, ","); got != "ops,panics" {
		t.Errorf("the follower ran for %q, want ops,panics", got)
	}
	if n := r.Stats().EventsPanicked; n != 1 {
		t.Errorf("EventsPanicked %d, want 1", n)
	}
	stop()
	if err := r.SetState(ctx, "t.a", tooling.StatePaused, "", ""); err != nil {
		t.Fatal(err)
	}
	if len(who) != 2 {
		t.Errorf("the follower ran after it was stopped: %q", who)
	}
}
