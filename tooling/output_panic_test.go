package tooling_test

import (
	"context"
	"errors"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// panicky is an output whose JSON encoding panics.
type panicky struct{}

func (panicky) MarshalJSON() ([]byte, error) { panic("encoding went wrong") }

// TestOutputEncodingPanicIsContained: an output whose MarshalJSON panics
// ends the call with code panic, as a panic in Run does; the host goes on.
func TestOutputEncodingPanicIsContained(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.panicky", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return panicky{}, nil }})
	res, err := r.Execute(context.Background(), "t.panicky", nil)
	if !errors.Is(err, codes.Panic) || res.Code != codes.Panic || res.Output != nil {
		t.Fatalf("got code %q, err %v, output %s; want code panic and no output", res.Code, err, res.Output)
	}
}
