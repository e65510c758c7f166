package mcp

import (
	"context"
	"encoding/json"
	"errors"
)

// Resource is one resource a server lists.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	// Size is its size in bytes; 0 when the server does not say.
	Size int64
}

// ResourceTemplate is a server's template of resource URIs (RFC 6570), like
// "demo://resource/dynamic/text/{index}".
type ResourceTemplate struct {
	URITemplate, Name, Title, Description, MIMEType string
}

// Prompt is one prompt a server lists.
type Prompt struct {
	Name, Title, Description string
	Arguments                []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name, Title, Description string
	Required                 bool
}

// Resources lists the server's resources, as last listed (at Connect,
// and again each time the server says its list changed).
func (r *Remote) Resources() []Resource {
	x := r.extrasNow()
	out := make([]Resource, 0, len(x.resources))
	for _, res := range x.resources {
		out = append(out, Resource{URI: res.URI, Name: res.Name, Title: res.Title, Description: res.Description, MIMEType: res.MIMEType, Size: res.Size})
	}
	return out
}

// ResourceTemplates lists the server's resource templates, as last listed.
func (r *Remote) ResourceTemplates() []ResourceTemplate {
	x := r.extrasNow()
	out := make([]ResourceTemplate, 0, len(x.templates))
	for _, t := range x.templates {
		out = append(out, ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType})
	}
	return out
}

// Prompts lists the server's prompts, as last listed.
func (r *Remote) Prompts() []Prompt {
	x := r.extrasNow()
	out := make([]Prompt, 0, len(x.prompts))
	for _, p := range x.prompts {
		pr := Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			if a != nil {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
			}
		}
		out = append(out, pr)
	}
	return out
}

// ReadResource reads the resource uri (resources/read) and returns the
// server's result as JSON: {"contents":[{"uri":…,"text":…} or {…,"blob":…}]}.
func (r *Remote) ReadResource(ctx context.Context, uri string) (json.RawMessage, error) {
	res, err := r.readResource(ctx, uri)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// GetPrompt gets the prompt name filled with args (prompts/get) and
// returns the server's result as JSON: {"description":…,"messages":[…]}.
func (r *Remote) GetPrompt(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	res, err := r.getPrompt(ctx, name, args)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// ErrNoSubscriptions is Subscribe's error for a server that does not offer
// subscriptions to its resources.
var ErrNoSubscriptions = errors.New("mcp: the server does not offer subscriptions to its resources")

// Subscribe asks the server to say when the resource uri changes
// (resources/subscribe); the Observer's Updated hears it. on false
// unsubscribes.
func (r *Remote) Subscribe(ctx context.Context, uri string, on bool) error {
	if err := r.Err(); err != nil {
		return err
	}
	if !r.subscribable() {
		return ErrNoSubscriptions
	}
	if on {
		return r.subscribe(ctx, uri)
	}
	return r.unsubscribe(ctx, uri)
}
