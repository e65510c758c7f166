package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"hash/fnv"
	"strconv"

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
	elicitation bool
	elicit      ElicitFunc
	configFile  string
	changed     func()
	observer    Observer
	sample      SampleFunc
	roots       *Roots
}

// WithToolsChanged calls f each time the server's tools in the registry
// change after Connect: the server said its list changed
// (notifications/tools/list_changed) and the tools it lists now replaced
// those it listed before. A gateway passes the change on to its clients.
func WithToolsChanged(f func()) ConnectOption {
	return func(o *connectOptions) { o.changed = f }
}

// WithConfigFile names the config file the server's settings come from. A
// confined server whose write paths hold that file is not started, as a
// confined tool's are refused: it could rewrite what the next start reads.
// (Write paths that hold the running program are refused with or without
// this option.)
func WithConfigFile(path string) ConnectOption {
	return func(o *connectOptions) { o.configFile = path }
}

// WithElicitation lets the server ask for input while a call of its tools
// runs (MCP elicitation). A call made through a Server (a gateway: serve
// fronting this server) asks the MCP client that made it, the same call's
// client, when that client supports elicitation in the mode asked, and
// declines when it does not. Other calls (the console's, the command
// line's) are answered by f, in form mode (a request to open a URL is
// declined); a nil f declines them. Without this option the client does
// not offer elicitation, and a server that needs it leaves such tools out
// or fails their calls.
//
// A client on protocol 2026-07-28 or later cannot be asked during the call
// (SEP-2322): the call then ends with the question (an input-required
// result), and the client's call made again with the answer runs the
// remote tool again, where the answer is given when the server asks the
// same question. When several calls of the server are in flight and the
// server asks outside of them (elicitation/create, not an input request
// of the call's result), the question cannot be tied to one call: it goes
// to their client when they all come from one client that can be asked
// during a call, and is declined otherwise.
func WithElicitation(f ElicitFunc) ConnectOption {
	return func(o *connectOptions) { o.elicitation, o.elicit = true, f }
}

// elicitation is the SDK's handler of the server's questions: asked of
// the MCP client of the call they are about when that call came through a
// Server, else answered by f.
func (r *Remote) elicitation(f ElicitFunc) func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	return func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		p := req.Params
		if p == nil {
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		switch in, callCtx, ok := r.inbound(ctx); {
		case !ok:
			return &sdk.ElicitResult{Action: "decline"}, nil
		case in != nil:
			return in.elicit(callCtx, r.name, p)
		case f == nil:
			return &sdk.ElicitResult{Action: "decline"}, nil
		}
		return elicitForm(ctx, r.name, f, p)
	}
}

// inbound finds the call a question of the server is about: the call whose
// context ctx is (an input request of its result), else the one call in
// flight. It returns the MCP call that call serves (nil for a call made
// otherwise) and the call's context. ok is false when the question cannot
// be tied to a call that can be asked: calls from several MCP clients, or
// from one client that cannot be asked during a call.
func (r *Remote) inbound(ctx context.Context) (in *callContext, callCtx context.Context, ok bool) {
	if c, isCall := ctx.Value(callKey{}).(*callContext); isCall {
		return c, ctx, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var one *flight
	for f := range r.flights {
		switch {
		case one == nil:
			one = f
		case f.in == nil && one.in == nil:
		case f.in == nil || one.in == nil || f.in.req.Session != one.in.req.Session || !askable(f.in.req.Session):
			return nil, nil, false
		}
	}
	if one == nil {
		return nil, ctx, true // no call in flight: the person at the console, if any
	}
	return one.in, one.ctx, true
}

// askable reports whether a client can be asked during a call
// (elicitation/create sent by the server): before protocol 2026-07-28.
func askable(ss *sdk.ServerSession) bool {
	version := mrtrVersion // the SDK assumes the newest when it does not know
	if ss == nil {
		return false
	}
	if p := ss.InitializeParams(); p != nil {
		version = p.ProtocolVersion
	}
	return version < mrtrVersion
}

// mrtrVersion is the protocol version from which a server asks its client
// for input only in a call's result (multi round-trip requests, SEP-2322).
const mrtrVersion = "2026-07-28"

// elicit asks the client of the call c for the server's question p: the
// answer it gave already when the call is made again with it, else the
// client is asked now when it can be during a call, else the question ends
// the call and goes back with its result. A client that does not support
// elicitation in p's mode is not asked: the question is declined.
func (c *callContext) elicit(ctx context.Context, server string, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	id := questionID(server, p)
	if a, ok := c.answer(id).(*sdk.ElicitResult); ok {
		return a, nil
	}
	mode := p.Mode
	if mode == "" {
		mode = "form"
	}
	if !supportsElicitation(c.req, mode) {
		return &sdk.ElicitResult{Action: "decline"}, nil
	}
	if askable(c.req.Session) {
		return c.req.Session.Elicit(ctx, p)
	}
	c.ask(id, p)
	return nil, errAsked
}

// errAsked ends a remote call whose server's question goes back to the
// MCP client with the call's result.
var errAsked = errors.New("the question is asked of the MCP client, and the call will be made again with its answer")

// questionID names a server's question among a call's input requests,
// the same for the same question when the call is made again.
func questionID(server string, p *sdk.ElicitParams) string {
	h := fnv.New64a()
	schema, _ := json.Marshal(p.RequestedSchema)
	for _, s := range []string{p.Mode, p.Message, p.URL, string(schema)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return "elicit:" + server + ":" + strconv.FormatUint(h.Sum64(), 36)
}

// elicitForm answers a form elicitation with f.
func elicitForm(ctx context.Context, server string, f ElicitFunc, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	if p.Mode == "url" {
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
