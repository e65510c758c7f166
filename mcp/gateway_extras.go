package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// served is one prompt, resource or resource template a gateway serves:
// the server it comes from, its name there, and its listing as JSON, to
// tell when it changed.
type served struct {
	from   *Remote
	remote string
	listed []byte
}

// servedExtras are the upstreams' prompts (by name), resources (by URI)
// and resource templates (by URI template) a gateway serves.
type servedExtras struct {
	prompts, resources, templates map[string]served
}

// refreshExtras makes the prompts, resources and resource templates served
// those of the upstreams now (Options.Upstreams), each allowed by
// Options.ExposeName under its name "SERVER.name"; s.mu is held. Of two
// servers with a resource of the same URI, the first by name serves it.
func (s *Server) refreshExtras() {
	if s.opts.Upstreams == nil {
		return
	}
	if s.extras.prompts == nil {
		s.extras = servedExtras{prompts: map[string]served{}, resources: map[string]served{}, templates: map[string]served{}}
	}
	ups := s.opts.Upstreams()
	sort.Slice(ups, func(i, j int) bool { return ups[i].name < ups[j].name })
	prompts, resources, templates := map[string]served{}, map[string]served{}, map[string]served{}
	for _, r := range ups {
		if r.Err() != nil {
			continue // down: its tools are gone too
		}
		x := r.extrasNow()
		taken := map[string]bool{}
		for _, p := range x.prompts {
			name := remoteName(r.name, p.Name, taken)
			taken[name] = true
			if !s.exposedName(name) {
				continue
			}
			cp := *p
			cp.Name = name
			if cp.Title == "" && name != r.name+"."+p.Name {
				cp.Title = p.Name
			}
			b, _ := json.Marshal(cp)
			prompts[name] = served{from: r, remote: p.Name, listed: b}
			if old, ok := s.extras.prompts[name]; !ok || old.from != r || string(old.listed) != string(b) {
				s.srv.AddPrompt(&cp, s.promptHandler(r, p.Name))
			}
		}
		names := map[string]bool{}
		for _, res := range x.resources {
			name := remoteName(r.name, res.Name, names)
			names[name] = true
			if _, dup := resources[res.URI]; dup || !s.exposedName(name) {
				continue
			}
			b, _ := json.Marshal(res)
			resources[res.URI] = served{from: r, listed: b}
			if old, ok := s.extras.resources[res.URI]; !ok || old.from != r || string(old.listed) != string(b) {
				if !addSafely(func() { s.srv.AddResource(res, s.readHandler(r)) }) {
					delete(resources, res.URI)
				}
			}
		}
		for _, t := range x.templates {
			name := remoteName(r.name, t.Name, names)
			names[name] = true
			if _, dup := templates[t.URITemplate]; dup || !s.exposedName(name) {
				continue
			}
			b, _ := json.Marshal(t)
			templates[t.URITemplate] = served{from: r, listed: b}
			if old, ok := s.extras.templates[t.URITemplate]; !ok || old.from != r || string(old.listed) != string(b) {
				if !addSafely(func() { s.srv.AddResourceTemplate(t, s.readHandler(r)) }) {
					delete(templates, t.URITemplate)
				}
			}
		}
	}
	if gone := missing(s.extras.prompts, prompts); len(gone) > 0 {
		s.srv.RemovePrompts(gone...)
	}
	if gone := missing(s.extras.resources, resources); len(gone) > 0 {
		s.srv.RemoveResources(gone...)
	}
	if gone := missing(s.extras.templates, templates); len(gone) > 0 {
		s.srv.RemoveResourceTemplates(gone...)
	}
	s.extras = servedExtras{prompts: prompts, resources: resources, templates: templates}
	s.resubscribe()
}

// addSafely runs add, which panics on a URI or URI template the SDK
// refuses; it reports whether it did not.
func addSafely(add func()) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	add()
	return true
}

// missing returns the keys of old not in now.
func missing(old, now map[string]served) []string {
	var gone []string
	for k := range old {
		if _, ok := now[k]; !ok {
			gone = append(gone, k)
		}
	}
	return gone
}

// exposedName reports whether a prompt or resource of this name is served
// (Options.ExposeName).
func (s *Server) exposedName(name string) bool {
	return s.opts.ExposeName == nil || s.opts.ExposeName(name)
}

func (s *Server) promptHandler(r *Remote, name string) sdk.PromptHandler {
	return func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return r.getPrompt(ctx, name, req.Params.Arguments)
	}
}

func (s *Server) readHandler(r *Remote) sdk.ResourceHandler {
	return func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return r.readResource(ctx, req.Params.URI)
	}
}

// audited serves a prompts/get or resources/read with next and gives
// Options.Audit its begin and end events.
func (s *Server) audited(ctx context.Context, method string, r sdk.Request, next sdk.MethodHandler) (sdk.Result, error) {
	var refused error
	if s.opts.Refusal != nil {
		if why := s.opts.Refusal(); why != nil {
			refused = &jsonrpc.Error{Code: codeRefused, Message: "unavailable: " + why.Error()}
		}
	}
	if s.opts.Audit == nil {
		if refused != nil {
			return nil, refused
		}
		return next(ctx, method, r)
	}
	var what string
	served := false
	s.mu.Lock()
	switch p := r.GetParams().(type) {
	case *sdk.GetPromptParams:
		what = p.Name
		_, served = s.extras.prompts[p.Name]
	case *sdk.ReadResourceParams:
		what = p.URI
		served = s.resourceFrom(p.URI) != nil
	}
	s.mu.Unlock()
	params, _ := json.Marshal(r.GetParams())
	sum := sha256.Sum256(params)
	begin := tooling.Event{Time: time.Now(), CallID: s.accessID(), Tool: method + " " + what, Origin: s.opts.Origin,
		Principal: s.principal(ctx, r), ArgsSHA256: hex.EncodeToString(sum[:]), ArgsSize: len(params)}
	s.opts.Audit(ctx, begin)
	var res sdk.Result
	err := refused
	if refused == nil {
		res, err = next(ctx, method, r)
	}
	end := begin
	end.End, end.Time = true, time.Now()
	end.Run = end.Time.Sub(begin.Time)
	switch {
	case refused != nil:
		end.Status, end.Code = "denied", codes.Unavailable
	case err == nil:
		end.Status, end.Code = "ok", ""
		if out, merr := json.Marshal(res); merr == nil {
			sum := sha256.Sum256(out)
			end.OutputSHA256, end.OutputSize = hex.EncodeToString(sum[:]), len(out)
		}
	case !served:
		end.Status, end.Code = "denied", codes.NotFound
	case isRemoteError(err):
		end.Status, end.Code = "error", codes.ToolError
	default:
		end.Status, end.Code = "error", codes.Unavailable
	}
	s.opts.Audit(ctx, end)
	return res, err
}

// codeRefused is the JSON-RPC error code of a prompts/get or
// resources/read refused by Options.Refusal: a server error (-32000 to
// -32099).
const codeRefused = -32001

// accessID is the call id of the events of one prompts/get or
// resources/read: "access-" and a number unique in the server.
func (s *Server) accessID() string {
	return "access-" + strconv.FormatUint(s.accesses.Add(1), 36)
}
