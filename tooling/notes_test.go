package tooling_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestToolDecisionsAndDetailReachResultAndEvent(t *testing.T) {
	r := tooling.NewRegistry()
	var key string
	r.Register(tooling.Tool{Name: "t.noted", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			key = c.IdempotencyKey
			c.Decide("retry", "attempt 2 of 3")
			c.SetDetail("attempts", "2")
			return "ok", nil
		}},
		tooling.Tool{Name: "t.noted_err", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(_ context.Context, c tooling.Call) (any, error) {
				c.Decide("retry", "gave up")
				c.SetDetail("attempts", "3")
				return nil, errors.New("down")
			}})
	rec := &recorder{}
	remove := r.Audit(rec.Observe)
	res := mustExec(t, r, "t.noted", `{}`, tooling.WithIdempotencyKey("k-1"))
	failed, _ := r.Execute(context.Background(), "t.noted_err", nil)
	remove()

	if key != "k-1" {
		t.Fatalf("Call.IdempotencyKey = %q, want k-1", key)
	}
	last := res.Governance[len(res.Governance)-1]
	if last != (tooling.Decision{Step: "retry", Detail: "attempt 2 of 3"}) {
		t.Fatalf("last decision %+v, want the tool's", last)
	}
	if last := failed.Governance[len(failed.Governance)-1]; last.Detail != "gave up" || failed.Code != codes.ToolError {
		t.Fatalf("failed call: %+v", failed)
	}
	if len(rec.events) != 4 {
		t.Fatalf("%d events", len(rec.events))
	}
	if rec.events[0].Detail != nil {
		t.Fatalf("begin event has detail %v", rec.events[0].Detail)
	}
	if got := rec.events[1].Detail["attempts"]; got != "2" {
		t.Fatalf("end event detail %v", rec.events[1].Detail)
	}
	if got := rec.events[3].Detail["attempts"]; got != "3" {
		t.Fatalf("failed call's end event detail %v", rec.events[3].Detail)
	}
}

// A tool that notes after its call has returned (it was abandoned) changes
// nothing: the notes are closed.
func TestNotesAfterReturnAreDropped(t *testing.T) {
	r := tooling.NewRegistry()
	late := make(chan tooling.Call, 1)
	r.Register(tooling.Tool{Name: "t.late", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			late <- c
			return "ok", nil
		}})
	res := mustExec(t, r, "t.late", `{}`)
	n := len(res.Governance)
	c := <-late
	c.Decide("late", "too late")
	c.SetDetail("late", "1")
	if len(res.Governance) != n {
		t.Fatalf("a decision after the call returned reached its result: %+v", res.Governance)
	}
}
