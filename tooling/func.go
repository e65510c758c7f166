package tooling

import (
	"context"
	"fmt"
)

// Func makes a tool's Run from a typed handler: the arguments, validated
// and with schema defaults filled in, are decoded into an In with
// Call.Decode (encoding/json rules: exported fields, json tags), and the Out
// it returns is the tool's output, encoded as JSON. The Input schema stays
// the tool's contract and is written by hand: Func derives nothing from In.
//
//	type shoutIn struct {
//		Text string `json:"text"`
//	}
//
//	Run: tooling.Func(func(ctx context.Context, c tooling.Call, in shoutIn) (string, error) {
//		return strings.ToUpper(in.Text), nil
//	}),
//
// Arguments that the schema accepts but In cannot hold (a field of the
// wrong Go type) end the call with tool_error naming the field.
func Func[In, Out any](f func(ctx context.Context, c Call, in In) (Out, error)) func(context.Context, Call) (any, error) {
	return func(ctx context.Context, c Call) (any, error) {
		var in In
		if err := c.Decode(&in); err != nil {
			return nil, fmt.Errorf("%s: the arguments do not fit the tool's Go type: %w", c.Tool, err)
		}
		out, err := f(ctx, c, in)
		if err != nil {
			return nil, err
		}
		return out, nil
	}
}
