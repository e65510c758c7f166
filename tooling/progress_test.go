package tooling_test

import (
	"context"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestProgressReachesWithProgress(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.steps", Description: "reports two steps",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			c.ReportProgress(1, 2, "one")
			c.ReportProgress(2, 2, "two")
			return "done", nil
		}})
	var got []tooling.Progress
	if _, err := r.Execute(context.Background(), "t.steps", nil, tooling.WithProgress(func(p tooling.Progress) { got = append(got, p) })); err != nil {
		t.Fatal(err)
	}
	want := []tooling.Progress{{Done: 1, Total: 2, Message: "one"}, {Done: 2, Total: 2, Message: "two"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("progress %v, want %v", got, want)
	}
	// Without WithProgress the reports are dropped.
	if _, err := r.Execute(context.Background(), "t.steps", nil); err != nil {
		t.Fatal(err)
	}
}
