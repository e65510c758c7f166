package tooling_test

import (
	"context"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestOutputOfTheWrongType: an output that is not of its schema's type as a
// whole is named as the output, not as the arguments.
func TestOutputOfTheWrongType(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.text", Input: raw(`{"type":"object"}`), Output: raw(`{"type":"object"}`),
		Run: func(context.Context, tooling.Call) (any, error) { return "3", nil }})
	res, _ := r.Execute(context.Background(), "t.text", nil)
	const want = "t.text returned output that does not match its output schema: (output): must be an object, got a string"
	if res.Code != codes.OutputInvalid || res.Message != want {
		t.Fatalf("code %q, message %q; want output_invalid, %q", res.Code, res.Message, want)
	}
}
