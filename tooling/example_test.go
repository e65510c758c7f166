package tooling_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
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
		Run: tooling.Func(func(ctx context.Context, c tooling.Call, in struct{ Text string }) (string, error) {
			return strings.ToUpper(in.Text), nil
		}),
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
		Run: tooling.Func(func(ctx context.Context, c tooling.Call, in struct{ A, B int }) (int, error) {
			return in.A + in.B, nil
		}),
	})
	ctx := context.Background()
	res, _ := tooling.ExecuteTool(ctx, "example.add", json.RawMessage(`{"a":41}`))
	fmt.Println(res.Status, string(res.Output))

	res, err := tooling.ExecuteTool(ctx, "example.add", json.RawMessage(`{"a":"one"}`), tooling.WithOrigin(tooling.OriginLLM))
	fmt.Println(res.Code, errors.Is(err, codes.ValidationError))
	for _, f := range res.Fields {
		fmt.Println(f.Path, f.Message)
	}
	// Output:
	// ok 42
	// validation_error true
	// /a must be an integer, got a string
}

// Func makes a Run from a typed handler; the schema stays the contract.
func ExampleFunc() {
	type shoutArgs struct {
		Text  string `json:"text"`
		Times int    `json:"times"`
	}
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{
		Name:  "text.shout",
		Input: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"times":{"type":"integer","minimum":1,"default":2}},"required":["text"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: tooling.Func(func(ctx context.Context, c tooling.Call, in shoutArgs) ([]string, error) {
			out := make([]string, in.Times) // the schema's default fills an absent times
			for i := range out {
				out[i] = strings.ToUpper(in.Text)
			}
			return out, nil
		}),
	})
	res, _ := r.Execute(context.Background(), "text.shout", json.RawMessage(`{"text":"hi"}`))
	fmt.Println(string(res.Output))
	// Output: ["HI","HI"]
}

// A middleware sees every call that passed validation and consent, and
// may refuse it with a code of its own before it spends anything.
func ExampleRegistry_Use() {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{
		Name: "demo.ping",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run:  func(context.Context, tooling.Call) (any, error) { return "pong", nil },
	})
	r.Use(func(next tooling.Handler) tooling.Handler {
		return func(ctx context.Context, c *tooling.Call) (*tooling.Result, error) {
			if c.Principal.Tenant == "acme" {
				return nil, &tooling.Error{Code: "budget_exceeded", Message: "tenant acme spent its budget"}
			}
			return next(ctx, c)
		}
	})
	ctx := context.Background()
	res, err := r.Execute(ctx, "demo.ping", nil, tooling.WithPrincipal(tooling.Principal{Subject: "ci", Tenant: "initech"}))
	fmt.Println(res.Status, string(res.Output), err)
	res, err = r.Execute(ctx, "demo.ping", nil, tooling.WithPrincipal(tooling.Principal{Subject: "ci", Tenant: "acme"}))
	fmt.Println(res.Status, res.Code, errors.Is(err, codes.Code("budget_exceeded")))
	// Output:
	// ok "pong" <nil>
	// denied budget_exceeded true
}

// A consent function decides for a call that needs consent and carries
// none; WithConsent says the caller asked already.
func ExampleRegistry_SetConsentFunc() {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{
		Name:  "notes.add",
		Input: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		Meta:  tooling.Meta{Effects: tooling.EffectWrite},
		Run:   func(ctx context.Context, c tooling.Call) (any, error) { return "kept", nil },
	})
	r.SetConsentFunc(func(ctx context.Context, req tooling.ConsentRequest) (tooling.ConsentDecision, error) {
		fmt.Printf("asked: %s, %s effects, %s risk, from %s\n", req.Tool, req.Effects, req.Safety, req.Origin)
		if req.Origin == tooling.OriginLLM {
			return tooling.ConsentDeny, nil
		}
		return tooling.ConsentOnce, nil
	})
	ctx := context.Background()
	args := json.RawMessage(`{"text":"milk"}`)
	_, err := r.Execute(ctx, "notes.add", args, tooling.WithOrigin(tooling.OriginLLM))
	fmt.Println(errors.Is(err, codes.ConsentRequired))
	res, _ := r.Execute(ctx, "notes.add", args, tooling.WithOrigin(tooling.OriginUI))
	fmt.Println(res.Status)
	res, _ = r.Execute(ctx, "notes.add", args, tooling.WithConsent()) // not asked
	fmt.Println(res.Status)
	// Output:
	// asked: notes.add, write effects, medium risk, from llm
	// true
	// asked: notes.add, write effects, medium risk, from ui
	// ok
	// ok
}

// An audit hook gets a begin and an end event per call, refusals
// included, with digests and sizes, never content.
func ExampleRegistry_Audit() {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{
		Name: "demo.ping",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run:  func(context.Context, tooling.Call) (any, error) { return "pong", nil },
	})
	remove := r.Audit(func(ctx context.Context, ev tooling.Event) {
		if ev.End {
			fmt.Println("end:", ev.Tool, ev.Status, ev.Code, ev.OutputSize, "bytes")
		} else {
			fmt.Println("begin:", ev.Tool, ev.Origin)
		}
	})
	ctx := context.Background()
	r.Execute(ctx, "demo.ping", nil)
	r.Execute(ctx, "demo.pong", nil)
	remove()
	// Output:
	// begin: demo.ping app
	// end: demo.ping ok  6 bytes
	// begin: demo.pong app
	// end: demo.pong denied not_found 0 bytes
}
