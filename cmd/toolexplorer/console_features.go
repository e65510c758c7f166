package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tui"
)

// consoleConnectOptions are the connect options of the servers of a
// console: their traffic, log and updates go to the console's feed, their
// sampling requests to the person, and their roots are the person's.
func (a *app) consoleConnectOptions() []mcp.ConnectOption {
	if !a.consoleMode {
		return nil
	}
	o := mcp.Observer{
		Traffic: func(m mcp.Message) {
			if f := a.feed.Load(); f != nil {
				f.Traffic(tui.Message{Server: m.Server, Time: m.Time, Sent: m.Sent, Kind: m.Kind, Method: m.Method, ID: m.ID, Raw: m.Raw})
			}
		},
		Log: func(e mcp.LogEntry) {
			if f := a.feed.Load(); f != nil {
				f.Log(tui.LogLine{Server: e.Server, Time: e.Time, Source: e.Source, Level: e.Level, Logger: e.Logger, Text: e.Text})
			}
		},
		Updated: func(server, uri string) {
			if f := a.feed.Load(); f != nil {
				f.Updated(server, uri)
			}
		},
	}
	return []mcp.ConnectOption{mcp.WithObserver(o), mcp.WithSampling(a.sample), mcp.WithRoots(&a.roots)}
}

// sample asks the person at the console for the reply to a server's
// sampling request; with no console open, it is declined.
func (a *app) sample(ctx context.Context, s mcp.Sampling) (string, string, bool, error) {
	asker, ok := a.consoleAsker().(interface {
		Sample(ctx context.Context, s tui.Sampling) (string, string, bool, error)
	})
	if !ok {
		return "", "", false, nil
	}
	ts := tui.Sampling{Server: s.Server, SystemPrompt: s.SystemPrompt, MaxTokens: s.MaxTokens}
	for _, m := range s.Messages {
		ts.Messages = append(ts.Messages, tui.SamplingMessage{Role: m.Role, Text: m.Text})
	}
	return asker.Sample(ctx, ts)
}

// consoleFeatures are the servers' resources, prompts, log levels and
// roots for the console.
type consoleFeatures struct{ a *app }

var _ tui.Features = consoleFeatures{}

// remote is the named server, when connected.
func (f consoleFeatures) remote(name string) (*mcp.Remote, error) {
	f.a.serversMu.Lock()
	defer f.a.serversMu.Unlock()
	for _, s := range f.a.servers {
		if s.name == name && s.remote != nil {
			return s.remote, nil
		}
	}
	return nil, errors.New("server " + name + " is not connected")
}

func (f consoleFeatures) Resources(server string) ([]tui.Resource, []tui.ResourceTemplate) {
	r, err := f.remote(server)
	if err != nil {
		return nil, nil
	}
	var res []tui.Resource
	for _, x := range r.Resources() {
		res = append(res, tui.Resource{URI: x.URI, Name: x.Name, Title: x.Title, Description: x.Description, MIMEType: x.MIMEType, Size: x.Size})
	}
	var tmpl []tui.ResourceTemplate
	for _, x := range r.ResourceTemplates() {
		tmpl = append(tmpl, tui.ResourceTemplate{URITemplate: x.URITemplate, Name: x.Name, Title: x.Title, Description: x.Description, MIMEType: x.MIMEType})
	}
	return res, tmpl
}

func (f consoleFeatures) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	r, err := f.remote(server)
	if err != nil {
		return nil, err
	}
	return r.ReadResource(ctx, uri)
}

func (f consoleFeatures) Subscribe(ctx context.Context, server, uri string, on bool) error {
	r, err := f.remote(server)
	if err != nil {
		return err
	}
	err = r.Subscribe(ctx, uri, on)
	if errors.Is(err, mcp.ErrNoSubscriptions) {
		return errors.New(strings.TrimPrefix(err.Error(), "mcp: "))
	}
	return err
}

func (f consoleFeatures) Prompts(server string) []tui.Prompt {
	r, err := f.remote(server)
	if err != nil {
		return nil
	}
	var out []tui.Prompt
	for _, p := range r.Prompts() {
		tp := tui.Prompt{Name: p.Name, Title: p.Title, Description: p.Description}
		for _, a := range p.Arguments {
			tp.Arguments = append(tp.Arguments, tui.PromptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required})
		}
		out = append(out, tp)
	}
	return out
}

func (f consoleFeatures) GetPrompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	r, err := f.remote(server)
	if err != nil {
		return nil, err
	}
	return r.GetPrompt(ctx, name, args)
}

func (f consoleFeatures) SetLogLevel(ctx context.Context, server, level string) error {
	r, err := f.remote(server)
	if err != nil {
		return err
	}
	return r.SetLogLevel(ctx, level)
}

func (f consoleFeatures) Roots() []tui.Root {
	var out []tui.Root
	for _, r := range f.a.roots.List() {
		out = append(out, tui.Root{URI: r.URI, Name: r.Name})
	}
	return out
}

func (f consoleFeatures) SetRoots(roots []tui.Root) error {
	list := make([]mcp.Root, len(roots))
	for i, r := range roots {
		list[i] = mcp.Root{URI: r.URI, Name: r.Name}
	}
	err := f.a.roots.Set(list)
	if err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "mcp: "))
	}
	return nil
}
