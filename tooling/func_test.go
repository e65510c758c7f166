package tooling_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

type addArgs struct {
	A     int64   `json:"a"`
	B     int64   `json:"b"`
	Scale float64 `json:"scale"`
}

type addOut struct {
	Sum    float64 `json:"sum"`
	Origin string  `json:"origin"`
}

func TestFuncDecodesArgumentsAndEncodesOutput(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.add", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Input: raw(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","default":2},"scale":{},"bad":{}},"required":["a"]}`),
		Run: tooling.Func(func(_ context.Context, c tooling.Call, in addArgs) (addOut, error) {
			if in.A < 0 {
				return addOut{}, errors.New("negative")
			}
			return addOut{Sum: float64(in.A+in.B) * max(in.Scale, 1), Origin: string(c.Origin)}, nil
		})})
	res := mustExec(t, r, "t.add", `{"a":40}`, tooling.WithOrigin(tooling.OriginLLM))
	if string(res.Output) != `{"sum":42,"origin":"llm"}` {
		t.Fatalf("output %s", res.Output)
	}
	if _, err := r.Execute(context.Background(), "t.add", raw(`{"a":-1}`)); !errors.Is(err, codes.ToolError) || !strings.HasSuffix(err.Error(), ": negative") {
		t.Fatalf("handler error: %v", err)
	}
	// The schema allows any scale; the Go type does not: tool_error naming it.
	res, err := r.Execute(context.Background(), "t.add", raw(`{"a":1,"scale":"big"}`))
	if !errors.Is(err, codes.ToolError) || !strings.Contains(res.Message, "t.add: the arguments do not fit the tool's Go type") || !strings.Contains(res.Message, "scale") {
		t.Fatalf("mismatch: %v", err)
	}
}
