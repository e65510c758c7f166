package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// extras are the prompts, resources and resource templates a server
// lists, kept for a gateway that serves them (Options.Upstreams).
type extras struct {
	prompts   []*sdk.Prompt
	resources []*sdk.Resource
	templates []*sdk.ResourceTemplate
}

// listExtras lists the prompts, resources and resource templates of the
// server, those it has the capability of. A list that fails is left empty:
// the server's tools do not depend on it.
func (r *Remote) listExtras(ctx context.Context) extras {
	var x extras
	init := r.session.InitializeResult()
	if init == nil || init.Capabilities == nil {
		return x
	}
	caps := init.Capabilities
	if caps.Prompts != nil {
		x.prompts, _ = collect(r.session.Prompts(ctx, nil))
	}
	if caps.Resources != nil {
		x.resources, _ = collect(r.session.Resources(ctx, nil))
		x.templates, _ = collect(r.session.ResourceTemplates(ctx, nil))
	}
	return x
}

// collect gathers what a listing yields, at most maxTools items (a server
// whose pages never end).
func collect[T any](seq iter.Seq2[T, error]) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, v)
		if len(out) > maxTools {
			return out, fmt.Errorf("more than %d listed", maxTools)
		}
	}
	return out, nil
}

// setExtras keeps x as the server's lists; it reports whether they
// changed.
func (r *Remote) setExtras(x extras) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	changed := !jsonEqual(x.prompts, r.extras.prompts) || !jsonEqual(x.resources, r.extras.resources) ||
		!jsonEqual(x.templates, r.extras.templates)
	r.extras = x
	return changed
}

// extrasNow returns the server's lists as last listed.
func (r *Remote) extrasNow() extras {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.extras
}

// getPrompt gets the server's prompt name.
func (r *Remote) getPrompt(ctx context.Context, name string, args map[string]string) (*sdk.GetPromptResult, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	res, err := r.session.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
	if err != nil && !isRemoteError(err) {
		return nil, r.callError(err)
	}
	return res, err
}

// readResource reads the server's resource uri.
func (r *Remote) readResource(ctx context.Context, uri string) (*sdk.ReadResourceResult, error) {
	if err := r.Err(); err != nil {
		return nil, err
	}
	res, err := r.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil && !isRemoteError(err) {
		return nil, r.callError(err)
	}
	return res, err
}

// jsonEqual reports whether a and b encode the same.
func jsonEqual(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}

// isRemoteError reports whether err is the server's JSON-RPC error (an
// unknown prompt, a resource not found), which goes to the client as it
// is.
func isRemoteError(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we)
}

// taskRequired reports whether err is a server's answer to a tools/call of
// a tool it runs only as a task: MCP has it answer a call without task
// augmentation with -32601 (method not found), and the SDK sends none.
func taskRequired(err error) bool {
	var we *jsonrpc.Error
	return errors.As(err, &we) && we.Code == jsonrpc.CodeMethodNotFound
}

// resourceUpdated tells the gateways that follow the server's updates
// that the resource uri changed.
func (r *Remote) resourceUpdated(uri string) {
	r.mu.Lock()
	fs := make([]func(string), 0, len(r.updated))
	for _, f := range r.updated {
		fs = append(fs, f)
	}
	r.mu.Unlock()
	for _, f := range fs {
		f(uri)
	}
}

// followUpdates has s told of the server's resource updates through f.
func (r *Remote) followUpdates(s *Server, f func(uri string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.updated == nil {
		r.updated = map[*Server]func(string){}
	}
	r.updated[s] = f
}

// subscribable reports whether the server takes subscriptions to its
// resources (resources/subscribe).
func (r *Remote) subscribable() bool {
	init := r.session.InitializeResult()
	return init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil && init.Capabilities.Resources.Subscribe
}

// subscribe subscribes to the server's resource uri. On a protocol that
// carries subscriptions on a stream of their own (subscriptions/listen,
// 2026-07-28 and later) the stream stays open until unsubscribe or the
// session's end, so it is opened on a goroutine of its own.
func (r *Remote) subscribe(ctx context.Context, uri string) error {
	if err := r.Err(); err != nil {
		return err
	}
	params := &sdk.SubscribeParams{URI: uri}
	if init := r.session.InitializeResult(); init != nil && init.ProtocolVersion >= streamedSubscriptions {
		go func() { _ = r.session.Subscribe(context.WithoutCancel(ctx), params) }()
		return nil
	}
	err := r.session.Subscribe(ctx, params)
	if err != nil && !isRemoteError(err) {
		return r.callError(err)
	}
	return err
}

// unsubscribe ends the subscription to the server's resource uri.
func (r *Remote) unsubscribe(ctx context.Context, uri string) error {
	if r.Err() != nil {
		return nil // gone with the session
	}
	// A client on subscriptions/listen unsubscribes by ending the stream:
	// the request's context is over by then.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ConnectTimeout)
	defer cancel()
	return r.session.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri})
}

// streamedSubscriptions is the first protocol version whose clients
// subscribe over subscriptions/listen.
const streamedSubscriptions = "2026-07-28"
