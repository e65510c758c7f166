package tooling_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// A tool package registers its tools from init(); this example uses its own
// registry so that it can run on its own.
func ExampleRegistry_Register() {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{
		Name:        "text.shout",
		Description: "Upper-cases text.",
		Input:       json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Meta:        tooling.Meta{Concurrency: tooling.ReadOnly, Idempotent: true},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			return strings.ToUpper(c.String("text")), nil
		},
	})
	res, err := r.Execute(context.Background(), "text.shout", json.RawMessage(`{"text":"hi"}`))
	fmt.Println(string(res.Output), err)
	// Output: "HI" <nil>
}

// Register panics with a message that names the tool and the fix.
func ExampleRegister() {
	defer func() { fmt.Println(recover()) }()
	tooling.NewRegistry().Register(tooling.Tool{Name: "Text.Shout", Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	// Output: tooling: Register("Text.Shout"): segment "Text" is not lower snake case (a letter, then letters, digits and single underscores): try "text.shout"
}

func ExampleExecuteTool() {
	tooling.Register(tooling.Tool{
		Name:  "example.add",
		Input: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer","default":1}},"required":["a"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			return c.Int("a") + c.Int("b"), nil
		},
	})
	ctx := context.Background()
	res, _ := tooling.ExecuteTool(ctx, "example.add", json.RawMessage(`{"a":41}`))
	fmt.Println(res.Status, string(res.Output))

	res, err := tooling.ExecuteTool(ctx, "example.add", json.RawMessage(`{"a":"one"}`), tooling.WithOrigin(tooling.OriginLLM))
	fmt.Println(res.Code, errors.Is(err, tooling.CodeValidationError))
	for _, f := range res.Fields {
		fmt.Println(f.Path, f.Message)
	}
	// Output:
	// ok 42
	// validation_error true
	// /a must be an integer, got a string
}
