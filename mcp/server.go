package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/internal/toolstates"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

// Options configure a Server: one listener.
type Options struct {
	// Name and Version are what the server tells clients it is. Default:
	// "toolexplorer" and "dev".
	Name, Version string
	// Origin is the origin of every call made through the server. Default:
	// tooling.OriginLLM.
	Origin tooling.Origin
	// Consent names the tools whose calls carry consent on this listener:
	// they are never asked about nor refused for want of consent.
	Consent []string
	// PageSize is the number of tools per tools/list page. Default: the
	// SDK's (1000).
	PageSize int
	// OtherConsent decides consent for calls of the registry that are not
	// made through an MCP server (the registry has one consent function,
	// which NewServer sets). Nil: such calls are refused with
	// consent_required.
	OtherConsent func(context.Context, tooling.ConsentRequest) (tooling.ConsentDecision, error)
	// Principal is who calls through this listener (serve over stdio: the
	// local user). A session run with a ctx that carries a principal
	// (tooling.ContextWithPrincipal) calls as that one instead, and an
	// HTTP request as the principal its credentials authenticated. Either
	// way the client's clientInfo, when it sent one, becomes
	// Principal.Client. Zero: the anonymous principal.
	Principal tooling.Principal
	// Expose, when set, chooses the tools served: a tool it refuses is
	// neither listed nor called (a call of it is refused not_found). Nil:
	// every tool the registry exports for the origin.
	Expose func(tooling.Tool) bool
	// NotFoundHint, when set, says why there is no tool of a name (its
	// server is down, say); it replaces the registry's hint of a call
	// refused not_found when it returns one.
	NotFoundHint func(name string) string
	// Upstreams, when set, makes the server a gateway of the prompts and
	// resources of these remote servers too: it lists their prompts as
	// "SERVER.prompt" and their resources and resource templates under their
	// own URIs, and forwards prompts/get, resources/read and
	// resources/subscribe to the server they come from, and that server's
	// notifications/resources/updated to the clients that subscribed. It is
	// called at each Refresh, with the servers connected then.
	Upstreams func() []*Remote
	// ExposeName, when set, chooses the upstreams' prompts, resources and
	// resource templates served, by their names "SERVER.name" (the
	// server's name for them in lower snake case): one it refuses is not
	// listed, and cannot be got or read. Nil: all of them.
	ExposeName func(name string) bool
	// Audit, when set, is given a begin and an end event for each
	// prompts/get and resources/read of a gateway (Upstreams), served or
	// refused, as the registry gives its audit hooks for a call: Tool is
	// the method and the prompt's name or the resource's URI ("prompts/get
	// docs.greet", "resources/read docs://readme"), Principal the caller,
	// ArgsSHA256 the digest of the request's params, and the end's Status
	// and Code say how it went (denied not_found for one not served, error
	// tool_error for the server's refusal, error unavailable when it could
	// not be asked). Events carry no content.
	// Nil: none (the registry's audit hooks see tool calls only).
	Audit func(context.Context, tooling.Event)
	// Refusal, when set, is asked before each prompts/get and
	// resources/read of a gateway, as a registry's middleware is before a
	// call: an error refuses it (a JSON-RPC error naming it; Audit's end
	// event says denied, unavailable) without asking the upstream. A
	// ledger that refuses calls while it cannot write refuses these too
	// (ledger.Ledger.Refusal). Nil: none refused.
	Refusal func() error
}

// Server serves the tools of a registry to MCP clients. It is safe for
// concurrent use and serves any number of sessions.
type Server struct {
	reg     *tooling.Registry
	opts    Options
	consent map[string]bool
	srv     *sdk.Server

	mu     sync.Mutex
	listed map[string][]byte // the tools served, by name: their export as JSON
	extras servedExtras      // the upstreams' prompts and resources served

	// streams holds each HTTP POST being served, by the identity of its
	// header map (trackStreams).
	streamMu sync.Mutex
	streams  map[unsafe.Pointer]*postStream

	// opening counts the HTTP requests opening a session, being served
	// (capSessions).
	capMu   sync.Mutex
	opening int

	// stateKey signs the requestState of the results that ask the client
	// for input, which carries the answers it gave so far.
	stateKey [32]byte

	accesses atomic.Uint64 // the prompts/get and resources/read audited (accessID)

	subsMu sync.Mutex
	subs   map[string]*subscription // the resources clients subscribed to, by URI

	unaudit    func() // stops following the tools' states
	detachOnce sync.Once
}

// NewServer returns a server of reg's tools. It sets reg's consent function
// (tooling.Registry.SetConsentFunc) to ask the MCP client of each call.
func NewServer(reg *tooling.Registry, opts Options) *Server {
	if opts.Origin == "" {
		opts.Origin = tooling.OriginLLM
	}
	if opts.Name == "" {
		opts.Name = "toolexplorer"
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{reg: reg, opts: opts, consent: map[string]bool{}, listed: map[string][]byte{}}
	for _, n := range opts.Consent {
		s.consent[toolname.ParseExport(n)] = true
	}
	_, _ = rand.Read(s.stateKey[:]) // never fails (crypto/rand)
	sopts := &sdk.ServerOptions{
		PageSize: opts.PageSize,
		// Tools only: no logging capability, and tools/list_changed.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
	}
	if opts.Upstreams != nil {
		// A gateway: its upstreams' prompts and resources too.
		sopts.Capabilities.Prompts = &sdk.PromptCapabilities{ListChanged: true}
		// A client's subscription to a resource is the gateway's to the
		// server it comes from (subscriptions.go).
		sopts.Capabilities.Resources = &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true}
		sopts.SubscribeHandler, sopts.UnsubscribeHandler = s.subscribe, s.unsubscribe
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: opts.Name, Version: opts.Version}, sopts)
	other := opts.OtherConsent
	reg.SetConsentFunc(func(ctx context.Context, req tooling.ConsentRequest) (tooling.ConsentDecision, error) {
		switch c := ctx.Value(callKey{}).(type) {
		case *callContext:
			return consentOf(c, req)
		case unlisted:
			return tooling.ConsentDeny, errors.New("the tool is not listed to MCP clients")
		}
		if other == nil {
			return tooling.ConsentDeny, errors.New("no one to ask")
		}
		return other(ctx, req)
	})
	s.srv.AddReceivingMiddleware(serverSpans, s.unlistedCalls)
	// A tool paused, deprecated or enabled again changes the list: the
	// clients hear of it (notifications/tools/list_changed). A follower
	// of states, not an audit hook: the calls do not report to it.
	s.unaudit = toolstates.Follow(reg, func(ctx context.Context) { s.Refresh(ctx) })
	s.Refresh(context.Background())
	return s
}

// Detach gives the registry back what NewServer took, once the server is
// done with it: its consent function becomes Options.OtherConsent again
// (none when that is nil), and the server no longer follows its tools'
// states. A registry that outlives its server (a host that serves, then
// runs calls of its own) decides consent as before it served. Detach ends
// no session (Close does).
func (s *Server) Detach() {
	s.detachOnce.Do(func() {
		s.unaudit()
		s.reg.SetConsentFunc(s.opts.OtherConsent)
	})
}

// Serve serves reg's tools over t until ctx ends or the client goes away,
// then gives the registry back (Detach).
func Serve(ctx context.Context, reg *tooling.Registry, t sdk.Transport, opts Options) error {
	s := NewServer(reg, opts)
	defer s.Detach()
	return s.Run(ctx, t)
}

// Run serves one session over t until ctx ends or the client goes away.
func (s *Server) Run(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// Close ends every session of the server (stdio, in memory and HTTP);
// calls in flight are canceled. The server may serve new sessions
// afterwards.
func (s *Server) Close() {
	var all []*sdk.ServerSession
	for ss := range s.srv.Sessions() {
		all = append(all, ss)
	}
	for _, ss := range all {
		ss.Close()
	}
}

// Connect starts a session over t and returns it without waiting for it to
// end (for in-process transports).
func (s *Server) Connect(ctx context.Context, t sdk.Transport) (*sdk.ServerSession, error) {
	return s.srv.Connect(ctx, t, nil)
}

// Refresh makes the served list the registry's MCP export for the
// listener's origin now: tools registered, removed, enabled or disabled
// since are added or dropped, and the clients are sent
// notifications/tools/list_changed when the list changed. It reports
// whether it did.
func (s *Server) Refresh(ctx context.Context) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := export.MCP(ctx, s.reg, export.Options{Origin: s.opts.Origin})
	seen := make(map[string]bool, len(list.Tools))
	changed := false
	for _, t := range list.Tools {
		if !objectSchema(t.InputSchema) {
			// MCP needs an object; the call would be refused anyway.
			continue
		}
		if !s.exposed(t.Name) {
			continue
		}
		seen[t.Name] = true
		b, err := json.Marshal(t)
		if err != nil {
			continue
		}
		if old, ok := s.listed[t.Name]; ok && bytes.Equal(old, b) {
			continue
		}
		s.listed[t.Name] = b
		s.srv.AddTool(sdkTool(t), s.handler(t.Name, len(t.OutputSchema) > 0))
		changed = true
	}
	var gone []string
	for name := range s.listed {
		if !seen[name] {
			gone = append(gone, name)
			delete(s.listed, name)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
		changed = true
	}
	s.refreshExtras()
	return changed
}

// exposed reports whether the tool name, when registered, is served
// (Options.Expose); a name not registered is.
func (s *Server) exposed(name string) bool {
	if s.opts.Expose == nil {
		return true
	}
	t, ok := s.reg.Lookup(name)
	return !ok || s.opts.Expose(t)
}

// objectSchema reports whether a schema has "type": "object" at its root,
// which MCP requires of input schemas.
func objectSchema(b json.RawMessage) bool {
	var v struct {
		Type any `json:"type"`
	}
	return json.Unmarshal(b, &v) == nil && v.Type == "object"
}

func sdkTool(t export.MCPTool) *sdk.Tool {
	a := t.Annotations
	destructive, openWorld := a.DestructiveHint, a.OpenWorldHint
	out := &sdk.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
		Annotations: &sdk.ToolAnnotations{Title: a.Title, ReadOnlyHint: a.ReadOnlyHint, DestructiveHint: &destructive,
			IdempotentHint: a.IdempotentHint, OpenWorldHint: &openWorld}}
	if len(t.OutputSchema) > 0 {
		out.OutputSchema = t.OutputSchema
	}
	return out
}

// callKey is the context key of a tools/call served (its *callContext),
// for the consent function and the remote tools.
type callKey struct{}

// unlisted marks a call of a tool the server does not list.
type unlisted struct{}

// callContext is the context of one tools/call served: it carries the
// request, for the consent function and for a remote tool's call, whose
// server's questions (elicitation) go to this call's client, and whose
// result is passed on as the server gave it. One allocation serves as the
// context value and its holder.
type callContext struct {
	context.Context
	s    *Server
	req  *sdk.CallToolRequest
	tool string // the tool called, by its registry name

	mu      sync.Mutex
	answers sdk.InputResponseMap // the client's answers given earlier, from requestState; decoded on first use
	decoded bool
	asked   sdk.InputRequestMap // questions for the client, asked by the call's result
	remote  *sdk.CallToolResult // the result of the remote server the call went to
	output  json.RawMessage     // the registry's output made of remote
}

func (c *callContext) Value(key any) any {
	if key == (callKey{}) {
		return c
	}
	return c.Context.Value(key)
}

// answer is the client's answer to the question id: in this request, or
// in an earlier one (carried by requestState); nil when it gave none.
func (c *callContext) answer(id string) sdk.InputResponse {
	if a, ok := c.req.Params.InputResponses[id]; ok {
		return a
	}
	if c.req.Params.RequestState == "" {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.decoded {
		c.decoded = true
		c.answers = c.s.readState(c.req.Params.RequestState)
	}
	return c.answers[id]
}

// ask notes a question for the client: the call ends, and its result asks
// the question; the client calls again with the answer.
func (c *callContext) ask(id string, q sdk.InputRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.asked == nil {
		c.asked = sdk.InputRequestMap{}
	}
	c.asked[id] = q
}

// questions returns the questions noted by ask.
func (c *callContext) questions() sdk.InputRequestMap {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
}

// setRemote notes the result of the server a remote tool called, and the
// output it made of it, when that tool is the one called.
func (c *callContext) setRemote(tool string, res *sdk.CallToolResult, out json.RawMessage) {
	if tool != c.tool {
		return // a tool that a tool called
	}
	c.mu.Lock()
	c.remote, c.output = res, out
	c.mu.Unlock()
}

// forwarded is the remote server's result, passed on as it gave it (its
// content blocks, structuredContent and _meta), when res is the successful
// call of the remote tool with the output made of that result (the output
// check passed, and no middleware changed it); nil otherwise.
func (c *callContext) forwarded(res *tooling.Result) *sdk.CallToolResult {
	c.mu.Lock()
	remote, out := c.remote, c.output
	c.mu.Unlock()
	if remote == nil || !res.OK() || !bytes.Equal(res.Output, out) {
		return nil
	}
	return remote
}

// principalExtra is the key of auth.TokenInfo.Extra under which the HTTP
// handler's authentication keeps the principal it verified.
const principalExtra = "toolexplorer.principal"

// principal is who makes the call req: the principal ctx carries, else the
// listener's, with the client that the session's initialize named.
func (s *Server) principal(ctx context.Context, req sdk.Request) tooling.Principal {
	p, ok := tooling.PrincipalFromContext(ctx)
	if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil {
		p, ok = extra.TokenInfo.Extra[principalExtra].(tooling.Principal)
	}
	if !ok {
		p = s.opts.Principal
	}
	if ss, _ := req.GetSession().(*sdk.ServerSession); ss != nil {
		if init := ss.InitializeParams(); init != nil && init.ClientInfo != nil && init.ClientInfo.Name != "" {
			p.Client = strings.TrimSpace(init.ClientInfo.Name + " " + init.ClientInfo.Version)
		}
	}
	return p
}

// handler runs one tools/call of the named tool. The options every call
// of it carries are made once.
func (s *Server) handler(name string, hasOutput bool) sdk.ToolHandler {
	base := []tooling.Option{tooling.WithOrigin(s.opts.Origin)}
	if s.consent[name] {
		base = append(base, tooling.WithConsent())
	}
	base = base[:len(base):len(base)] // a call that adds an option copies them
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		opts := base
		// The call ends as well when the HTTP request that carried it
		// ends first (the client dropped the stream).
		ctx, st, i, cancel := s.tie(ctx, req)
		if st != nil {
			defer s.untie(st, i, cancel)
		}
		opts = append(opts, tooling.WithPrincipal(s.principal(ctx, req)))
		if k, ok := req.Params.Meta[IdempotencyKeyMeta]; ok {
			key, isString := k.(string)
			if !isString || key == "" {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{
					Text: fmt.Sprintf("validation_error: _meta %q must be a non-empty string", IdempotencyKeyMeta)}}}, nil
			}
			opts = append(opts, tooling.WithIdempotencyKey(key))
		}
		c := &callContext{Context: ctx, s: s, req: req, tool: name}
		if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
			opts = append(opts, tooling.WithProgress(progressTo(ctx, req.Session, token)))
		}
		res, err := s.reg.Execute(c, name, req.Params.Arguments, opts...)
		if err != nil {
			if ask := (*askError)(nil); errors.As(err, &ask) {
				c.ask(consentInput, consentQuestion(ask.req))
			}
		}
		// A remote server's question asked by the result: whatever the
		// server made of having no answer (an error, or a result without
		// it), the call is made again with the answer.
		if q := c.questions(); len(q) > 0 {
			return &sdk.CallToolResult{InputRequests: q, RequestState: s.writeState(c)}, nil
		}
		if fwd := c.forwarded(res); fwd != nil {
			return fwd, nil
		}
		out := callResult(res, hasOutput)
		if res.Replayed {
			if out.Meta == nil {
				out.Meta = sdk.Meta{}
			}
			out.Meta[ReplayedMeta] = true
		}
		return out, nil
	}
}

// IdempotencyKeyMeta is the _meta key of a tools/call that carries an
// idempotency key (a string): a tool that takes keys runs the first call
// made with it, and a repeat with the same arguments gets that call's
// result, its _meta carrying ReplayedMeta, without running again (see
// tooling.Meta.IdempotencyKeys). Keys are the caller's: two principals'
// keys never meet.
const IdempotencyKeyMeta = "io.toolexplorer/idempotency-key"

// ReplayedMeta is the _meta key, set to true, of a result replayed for an
// idempotency key.
const ReplayedMeta = "io.toolexplorer/replayed"

// writeState is the requestState of a result that asks the client for
// input: the answers the client gave so far (this request's and earlier
// ones), so that a call asked several times in turn (consent, then a
// remote server's question) gets every answer on the last attempt. It is
// signed with the server's key: a state the server did not make is ignored.
func (s *Server) writeState(c *callContext) string {
	all := sdk.InputResponseMap{}
	if c.req.Params.RequestState != "" {
		for id, a := range s.readState(c.req.Params.RequestState) {
			all[id] = a
		}
	}
	for id, a := range c.req.Params.InputResponses {
		all[id] = a
	}
	if len(all) == 0 {
		return ""
	}
	b, err := json.Marshal(all)
	if err != nil {
		return ""
	}
	mac := hmac.New(sha256.New, s.stateKey[:])
	mac.Write(b)
	return base64.RawURLEncoding.EncodeToString(b) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// readState decodes a requestState made by writeState; nil when it is not
// one.
func (s *Server) readState(state string) sdk.InputResponseMap {
	payload, sig, ok := strings.Cut(state, ".")
	if !ok {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil
	}
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil {
		return nil
	}
	mac := hmac.New(sha256.New, s.stateKey[:])
	mac.Write(b)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return nil
	}
	var m sdk.InputResponseMap
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// unlistedCalls answers a tools/call of a tool the server does not list
// (unknown, disabled, not for the listener's origin) with the registry's
// refusal, as a tool result, rather than an unknown-tool protocol error. A
// call by the exported spelling of its name ("." as "__") is a call of the tool.
func (s *Server) unlistedCalls(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, r sdk.Request) (sdk.Result, error) {
		switch method {
		case "tools/list":
			return s.visibleTools(ctx, r, next)
		case "prompts/list", "resources/list", "resources/templates/list":
			s.Refresh(ctx) // what the upstreams list now
			return next(ctx, method, r)
		case "prompts/get", "resources/read":
			return s.audited(ctx, method, r, next)
		}
		req, ok := r.(*sdk.CallToolRequest)
		if method != "tools/call" || !ok || req.Params == nil {
			return next(ctx, method, r)
		}
		s.mu.Lock()
		_, listed := s.listed[req.Params.Name]
		name, listedAs := req.Params.Name, false
		if !listed {
			name = toolname.ParseExport(name)
			_, listedAs = s.listed[name]
		}
		s.mu.Unlock()
		switch {
		case listed:
		case listedAs:
			req.Params.Name = name
		default:
			return s.unlistedCall(ctx, req), nil
		}
		return next(ctx, method, r)
	}
}

// unlistedCall answers a tools/call of a tool the server does not list.
// It is a function of its own so that the frame of the usual call, which
// runs the governed call deeper on the same stack, stays small.
func (s *Server) unlistedCall(ctx context.Context, req *sdk.CallToolRequest) *sdk.CallToolResult {
	if !s.exposed(toolname.ParseExport(req.Params.Name)) {
		res := &tooling.Result{Tool: req.Params.Name, Origin: s.opts.Origin, Status: "denied", Code: codes.NotFound,
			Message: fmt.Sprintf("no tool named %q is served here", req.Params.Name)}
		return callResult(res, false)
	}
	res, _ := s.reg.Execute(context.WithValue(ctx, callKey{}, unlisted{}), req.Params.Name, req.Params.Arguments,
		tooling.WithOrigin(s.opts.Origin), tooling.WithPrincipal(s.principal(ctx, req)))
	if res.Code == codes.NotFound && s.opts.NotFoundHint != nil {
		if hint := s.opts.NotFoundHint(res.Tool); hint != "" {
			res.Hint = hint
		}
	}
	t, _ := s.reg.Lookup(res.Tool)
	return callResult(res, len(t.Output) > 0)
}

// visibleTools answers tools/list with the tools the caller's principal
// sees (tooling.Registry.Visible): a tool the registry's Authorizer hides
// from it is left out, as it could not call it. The list is the
// registry's now (Refresh): whatever changed it since the last list
// (a reload, a server's tools, a tool enabled), a client lists what it can
// call.
func (s *Server) visibleTools(ctx context.Context, r sdk.Request, next sdk.MethodHandler) (sdk.Result, error) {
	s.Refresh(ctx)
	out, err := next(ctx, "tools/list", r)
	list, ok := out.(*sdk.ListToolsResult)
	if err != nil || !ok {
		return out, err
	}
	who := s.principal(ctx, r)
	kept := list.Tools[:0:0]
	for _, t := range list.Tools {
		if s.reg.Visible(who, s.opts.Origin, toolname.ParseExport(t.Name)) {
			kept = append(kept, t)
		}
	}
	if len(kept) == len(list.Tools) {
		return list, nil
	}
	cp := *list
	cp.Tools = kept
	return &cp, nil
}

// progressTo sends a tool's progress reports to the client as
// notifications on token.
func progressTo(ctx context.Context, ss *sdk.ServerSession, token any) func(tooling.Progress) {
	ctx = context.WithoutCancel(ctx)
	return func(p tooling.Progress) {
		_ = ss.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: p.Done, Total: p.Total, Message: p.Message})
	}
}

// ResultMetaKey is the _meta key of a failed call's full tooling.Result
// when the tool declares an output schema: MCP clients check any
// structuredContent against that schema, error or not, so the Result
// cannot be the structured content there.
const ResultMetaKey = "toolexplorer/result"

// callResult is a call's Result as an MCP tool result, without the stack
// of a panic. hasOutput: the tool declares an output schema.
func callResult(res *tooling.Result, hasOutput bool) *sdk.CallToolResult {
	if res.OK() {
		out := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(res.Output)}}}
		if isObject(res.Output) {
			out.StructuredContent = res.Output
		}
		return out
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", res.Code, res.Message)
	for _, f := range res.Fields {
		// A field the message does not name gets a line of its own.
		if line := f.String(); !strings.Contains(res.Message, line) {
			fmt.Fprintf(&b, "\n%s", line)
		}
	}
	if res.MoreFields > 0 {
		fmt.Fprintf(&b, "\n... and %d more", res.MoreFields)
	}
	if res.Hint != "" {
		fmt.Fprintf(&b, "\nhint: %s", res.Hint)
	}
	// The stack of a panic stays with the host (its console, history,
	// observers): it names the host's source files, and a remote caller
	// has the code and message.
	local := *res
	local.Stack = ""
	full, err := json.Marshal(&local)
	out := &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}}
	switch {
	case err != nil:
	case hasOutput:
		out.Meta = sdk.Meta{ResultMetaKey: json.RawMessage(full)}
	default:
		out.StructuredContent = json.RawMessage(full)
	}
	return out
}

func isObject(b json.RawMessage) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// consentInput is the id of the consent question among a call's input
// requests.
const consentInput = "consent"

// askError refuses a call for now: the client is to be asked for consent
// to req, and the call made again with its answer.
type askError struct{ req tooling.ConsentRequest }

func (*askError) Error() string { return "the client is asked for consent" }

// consentOf decides consent for a call: by the client's answer to the
// consent question when the call carries one; otherwise the client is
// asked (errAsk) when it supports form elicitation, and the call is
// refused when it does not.
func consentOf(c *callContext, req tooling.ConsentRequest) (tooling.ConsentDecision, error) {
	if a, ok := c.answer(consentInput).(*sdk.ElicitResult); ok {
		if a.Action == "accept" && a.Content["allow"] == true {
			return tooling.ConsentOnce, nil
		}
		return tooling.ConsentDeny, nil
	}
	if !supportsElicitation(c.req, "form") {
		return tooling.ConsentDeny, errors.New("the MCP client does not support form elicitation")
	}
	return tooling.ConsentDeny, &askError{req}
}

// supportsElicitation reports whether the client that made req answers
// elicitations in mode ("form" or "url"). An elicitation capability that
// names no mode is form (before protocol 2025-11-25, form was the only one).
func supportsElicitation(req *sdk.CallToolRequest, mode string) bool {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	if mode == "url" {
		return e.URL != nil
	}
	return e.Form != nil || e.URL == nil
}

// consentQuestion is the form elicitation that asks for consent to a call.
func consentQuestion(req tooling.ConsentRequest) *sdk.ElicitParams {
	msg := fmt.Sprintf("%s wants to %s: allow once?", req.Tool, effectVerbs(req.Effects))
	if args, err := json.Marshal(req.Args); err == nil && len(req.Args) > 0 {
		msg += "\narguments: " + string(args)
	}
	return &sdk.ElicitParams{Mode: "form", Message: msg, RequestedSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{"allow": map[string]any{"type": "boolean", "title": "Allow once",
			"description": "Run this call once.", "default": false}},
		"required": []any{"allow"},
	}}
}

// effectVerbs says what effects do, for the consent question.
func effectVerbs(e tooling.Effects) string {
	s := e.String()
	return strings.ReplaceAll(s, "|", ", ")
}
