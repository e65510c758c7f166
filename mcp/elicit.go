package mcp

import (
	"context"
	"encoding/json"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Elicitation is a server's request, during a call of one of its tools,
// for input from the person using the tool (MCP elicitation, form mode).
type Elicitation struct {
	// Server is the server's name.
	Server string
	// Message says what the input is for.
	Message string
	// Schema is the JSON Schema of the input: an object of flat fields.
	Schema json.RawMessage
}

// ElicitFunc answers an elicitation: accept true with the content given,
// or false to decline. An error cancels the request (the person dismissed
// it, or ctx ended).
type ElicitFunc func(ctx context.Context, e Elicitation) (content map[string]any, accept bool, err error)

// ConnectOption tunes Connect.
type ConnectOption func(*connectOptions)

type connectOptions struct {
	elicit ElicitFunc
}

// WithElicitation lets the server ask for input while a call of its tools
// runs: f answers each request (in form mode; a request to open a URL is
// declined). Without it the client does not offer elicitation, and a
// server that needs it leaves such tools out or fails their calls.
func WithElicitation(f ElicitFunc) ConnectOption {
	return func(o *connectOptions) { o.elicit = f }
}

// elicitHandler is the SDK's handler of elicitation/create for server.
func elicitHandler(server string, f ElicitFunc) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		p := req.Params
		if p == nil || p.Mode == "url" {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		schema, err := json.Marshal(p.RequestedSchema)
		if err != nil || p.RequestedSchema == nil {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		content, accept, err := f(ctx, Elicitation{Server: server, Message: p.Message, Schema: schema})
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return &sdk.ElicitResult{Action: "cancel"}, nil
		case !accept:
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		if content == nil {
			content = map[string]any{}
		}
		return &sdk.ElicitResult{Action: "accept", Content: content}, nil
	}
}
