//lint:file-ignore SA1019 sampling, roots and logging are deprecated from protocol 2026-07-28, and servers still use them

package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Sampling is a server's request that the client's language model answer
// a conversation (sampling/createMessage).
type Sampling struct {
	Server       string
	SystemPrompt string
	// Messages are the conversation, oldest first.
	Messages  []SamplingMessage
	MaxTokens int64
	// Params is the request's params as the server sent them.
	Params json.RawMessage
}

// SamplingMessage is one message of a sampling request's conversation.
type SamplingMessage struct {
	// Role is "user" or "assistant".
	Role string
	// Text is the message's text, or a description of content that is not
	// text ("[image image/png]").
	Text string
}

// SampleFunc answers a sampling request: the reply's text, the name of
// the model that wrote it, and accept true; accept false declines it. An
// error cancels the request (ctx ended).
type SampleFunc func(ctx context.Context, s Sampling) (reply, model string, accept bool, err error)

// WithSampling lets the server ask the client for a language model's reply
// (MCP sampling), answered by f. Without it the client does not offer
// sampling.
func WithSampling(f SampleFunc) ConnectOption {
	return func(o *connectOptions) { o.sample = f }
}

// errDeclined is the JSON-RPC error a declined sampling request gets.
var errDeclined = &jsonrpc.Error{Code: -1, Message: "the user declined the sampling request"}

// sampling is the SDK's handler of sampling/createMessage, answered by f.
func (r *Remote) sampling(f SampleFunc) func(context.Context, *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	return func(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
		p := req.Params
		if p == nil {
			return nil, errDeclined
		}
		s := Sampling{Server: r.name, SystemPrompt: p.SystemPrompt, MaxTokens: p.MaxTokens}
		s.Params, _ = json.Marshal(p)
		for _, m := range p.Messages {
			if m != nil {
				s.Messages = append(s.Messages, SamplingMessage{Role: string(m.Role), Text: contentText(m.Content)})
			}
		}
		reply, model, accept, err := f(ctx, s)
		switch {
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return nil, err
		case !accept:
			return nil, errDeclined
		}
		return &sdk.CreateMessageResult{Role: "assistant", Model: model, StopReason: "endTurn", Content: &sdk.TextContent{Text: reply}}, nil
	}
}

// contentText is a content block's text, or what it is when it is not
// text.
func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return "[image " + c.MIMEType + "]"
	case *sdk.AudioContent:
		return "[audio " + c.MIMEType + "]"
	case nil:
		return ""
	}
	b, _ := json.Marshal(c)
	return string(b)
}

// Root is a directory or file the client tells servers they may work in
// (MCP roots).
type Root struct {
	// URI is a file:// URI.
	URI  string
	Name string
}

// Roots are the roots the client gives every server connected WithRoots:
// changing them tells those servers (notifications/roots/list_changed),
// and each one's roots/list is answered from them. The zero value is an
// empty list, ready to use.
type Roots struct {
	mu      sync.Mutex
	list    []Root
	clients map[*sdk.Client]struct{}
}

// WithRoots answers the server's roots/list from roots.
func WithRoots(roots *Roots) ConnectOption {
	return func(o *connectOptions) { o.roots = roots }
}

// List returns the roots now.
func (rs *Roots) List() []Root {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.list)
}

// Set makes list the roots and tells the servers connected with them.
// A URI that is not file:// is an error, and nothing changes.
func (rs *Roots) Set(list []Root) error {
	for _, r := range list {
		if !strings.HasPrefix(r.URI, "file://") {
			return errors.New("mcp: a root's URI starts with file://: " + r.URI)
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	old := rs.list
	rs.list = slices.Clone(list)
	for c := range rs.clients {
		setRoots(c, old, rs.list)
	}
	return nil
}

// attach gives c the roots and keeps it told of their changes, until
// detach.
func (rs *Roots) attach(c *sdk.Client) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.clients == nil {
		rs.clients = map[*sdk.Client]struct{}{}
	}
	rs.clients[c] = struct{}{}
	setRoots(c, nil, rs.list)
}

func (rs *Roots) detach(c *sdk.Client) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	delete(rs.clients, c)
}

// setRoots changes c's roots from old to now.
func setRoots(c *sdk.Client, old, now []Root) {
	var gone []string
	for _, o := range old {
		if !slices.ContainsFunc(now, func(n Root) bool { return n.URI == o.URI }) {
			gone = append(gone, o.URI)
		}
	}
	add := make([]*sdk.Root, 0, len(now))
	for _, n := range now {
		if !slices.Contains(old, n) {
			add = append(add, &sdk.Root{URI: n.URI, Name: n.Name})
		}
	}
	if len(gone) > 0 {
		c.RemoveRoots(gone...)
	}
	if len(add) > 0 {
		c.AddRoots(add...)
	}
}
