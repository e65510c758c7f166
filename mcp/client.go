package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// ConnectTimeout bounds the start of a server and the listing of its tools
// when the caller's context has no deadline.
const ConnectTimeout = 30 * time.Second

// terminateGrace is how long a stdio server has to exit once its stdin is
// closed, before it is sent SIGTERM, then SIGKILL.
const terminateGrace = 2 * time.Second

// Remote is a connected MCP server whose tools are in a registry, each
// named "SERVER.tool". Close it to remove them and stop the server.
type Remote struct {
	name     string
	reg      *tooling.Registry
	session  *sdk.ClientSession
	proc     *process         // a stdio server; nil for the others
	jail     *confinedProcess // a confined stdio server
	jailOut  *headReader      // its stdout, whose start is kept
	parallel int              // how many calls it is sent at once (Spec.parallel)
	url      string           // an HTTP server's
	probe    *httpProbe       // what an HTTP server answered that is not MCP
	tools    []RemoteTool
	skipped  []error

	// flights are the calls in flight: the server's progress notifications
	// go to the call of their token, and its questions (elicitation) to the
	// call they are about.
	mu      sync.Mutex
	flights map[*flight]struct{}
	seq     atomic.Uint64

	// relisted is signalled when the server says its list of tools,
	// prompts or resources changed; changed is WithToolsChanged's function.
	relisted chan struct{}
	changed  func()
	// extras are its prompts and resources, for a gateway.
	extras extras
	// updated are told of each resource the server says changed
	// (notifications/resources/updated), by URI: the gateways that
	// subscribed to it for their clients.
	updated map[*Server]func(uri string)
	// observer is WithObserver's; taskOnly are the tools the server runs
	// only as tasks, by their remote names (seen by a stdio server's tap).
	observer Observer
	taskOnly map[string]bool
	logLevel atomic.Pointer[string] // SetLogLevel's
	// client is the SDK's client; roots are WithRoots'.
	client *sdk.Client
	roots  *Roots

	closeOnce sync.Once
	closeErr  error
	closing   atomic.Bool
	// done is closed when the session ends, and ended holds why when it
	// ended while the server was in use (it stopped or dropped the
	// connection), not because Close was called.
	done  chan struct{}
	ended atomic.Pointer[error]
}

// RemoteTool is one tool of a server as the registry knows it.
type RemoteTool struct {
	// Name is the tool's name in the registry, "SERVER.tool".
	Name string
	// Remote is the name the server gives the tool, which calls use.
	Remote string
}

// ConnectError says why a server could not be connected.
type ConnectError struct {
	Server string
	// Stderr is the end of what a stdio server wrote to its stderr.
	Stderr string
	Err    error
}

func (e *ConnectError) Error() string {
	msg := fmt.Sprintf("mcp: server %q: %v", e.Server, e.Err)
	if e.Stderr != "" {
		msg += "; its stderr ends with: " + e.Stderr
	}
	return msg
}

func (e *ConnectError) Unwrap() error { return e.Err }

// Connect starts or reaches the server s, lists its tools and adds them to
// reg as remote tools named "NAME.tool", tool being the server's name for it
// in lower snake case ("getTinyImage" is "get_tiny_image", kept beside it in
// Tools, suffixed "_2" on a clash). Each tool's
// schemas are compiled by the registry, so arguments are validated locally
// before anything is sent, and every call goes through reg.Execute with its
// governance. A tool the registry refuses (a schema that does not compile, a
// name that is too long) is left out and reported by Skipped; the others
// are added. A stdio server's stderr is kept (Stderr), never written to the
// terminal. The server's progress notifications for a call reach the
// caller's progress function (tooling.WithProgress), and a canceled call
// is canceled on the server too.
//
// Metadata comes from the tool's MCP annotations, read with MCP's defaults
// for absent hints (not read-only, destructive, open-world): a tool that
// says nothing about itself needs consent.
//
// WithElicitation lets the server ask for input during calls.
//
// A server that cannot be started, that is not an MCP server or that does
// not answer before ctx's deadline (30s when ctx has none) is a
// *ConnectError, and nothing is added.
func Connect(ctx context.Context, reg *tooling.Registry, name string, s Spec, opts ...ConnectOption) (*Remote, error) {
	var o connectOptions
	for _, opt := range opts {
		opt(&o)
	}
	group, err := serverGroup(name)
	if err != nil {
		return nil, &ConnectError{Server: name, Err: err}
	}
	var wait time.Duration // the deadline set here, for the messages
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		wait = ConnectTimeout
		if s.OAuth != nil && s.URL != "" {
			wait = SignInTimeout // a person may have to sign in
		}
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	r := &Remote{name: group, reg: reg, parallel: s.parallel(), observer: o.observer, roots: o.roots}
	var t sdk.Transport
	switch {
	case s.Command != "" && s.URL != "":
		return nil, &ConnectError{Server: name, Err: errors.New("both a command and a url: give one")}
	case s.Command != "" && s.Confine != nil:
		if r.jail, err = startConfined(ctx, s, o.configFile); err != nil {
			return nil, &ConnectError{Server: name, Err: confinedFailure(s.Command, err)}
		}
		r.jailOut = newHeadReader(r.jail.out)
		r.jail.stderr.onLines(r.stderrLines())
		t = &tap{Transport: &sdk.IOTransport{Reader: io.NopCloser(r.jailOut), Writer: r.jail.in}, r: r}
	case s.Command != "":
		r.proc = newProcess(s)
		r.proc.stderr.onLines(r.stderrLines())
		t = &tap{Transport: r.proc, r: r}
	case s.URL != "":
		if err := checkURL(s.URL); err != nil {
			return nil, &ConnectError{Server: name, Err: err}
		}
		r.url, r.probe = ShownURL(s.URL), &httpProbe{}
		hc := probeClient(s.Headers, r.probe)
		if o.observer.Traffic != nil { // the console; a gateway does not pay for reading every message twice
			hc.Transport = &httpTap{next: hc.Transport, st: newTapState(r)}
		}
		st := &sdk.StreamableClientTransport{Endpoint: s.URL, HTTPClient: hc, MaxRetries: -1}
		if s.OAuth != nil {
			st.OAuthHandler = newSigner(name, s.URL, *s.OAuth)
		}
		t = st
	default:
		return nil, &ConnectError{Server: name, Err: errors.New("neither a command nor a url: give one")}
	}
	r.relisted, r.changed = make(chan struct{}, 1), o.changed
	copts := &sdk.ClientOptions{ProgressNotificationHandler: r.progressed,
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { r.listChanged() },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { r.listChanged() },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { r.listChanged() },
		ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				r.resourceUpdated(req.Params.URI)
				if f := r.observer.Updated; f != nil {
					f(r.name, req.Params.URI)
				}
			}
		}}
	//lint:ignore SA1019 logging is deprecated from protocol 2026-07-28, and servers still use it
	copts.LoggingMessageHandler = r.logged
	if o.elicitation {
		copts.ElicitationHandler = r.elicitation(o.elicit)
	}
	if o.sample != nil {
		//lint:ignore SA1019 sampling is deprecated from protocol 2026-07-28, and servers still use it
		copts.CreateMessageHandler = r.sampling(o.sample)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "toolexplorer", Version: "1"}, copts)
	if r.roots != nil {
		r.roots.attach(client)
	}
	r.client = client
	client.AddSendingMiddleware(clientSpans, r.levelMeta)
	r.session, err = client.Connect(ctx, t, nil)
	if err != nil {
		err = r.connectError(r.connectFailure(ctx, "initialize", wait, err))
		r.stop()
		return nil, err
	}
	listed, err := listTools(ctx, r.session)
	if err != nil {
		_ = r.session.Close()
		err = r.connectError(r.connectFailure(ctx, "tools/list", wait, err))
		r.stop()
		return nil, err
	}
	r.add(listed)
	r.extras = r.listExtras(ctx)
	r.done = make(chan struct{})
	go r.watch()
	go r.relist()
	return r, nil
}

// listChanged notes that the server's list of tools changed; relist lists
// them again.
func (r *Remote) listChanged() {
	select {
	case r.relisted <- struct{}{}:
	default: // one is pending already: it lists what is there then
	}
}

// relist replaces the server's tools in the registry with those it lists
// now, each time it says its list changed, until the session ends.
func (r *Remote) relist() {
	for {
		select {
		case <-r.done:
			return
		case <-r.relisted:
		}
		ctx, cancel := context.WithTimeout(context.Background(), ConnectTimeout)
		go func() {
			select {
			case <-r.done:
				cancel()
			case <-ctx.Done():
			}
		}()
		listed, err := listTools(ctx, r.session)
		if err != nil {
			cancel()
			continue // the session ended, or the server could not say: the tools in place stay
		}
		x := r.listExtras(ctx)
		cancel()
		replaced := r.replace(listed)
		if r.setExtras(x) || replaced {
			if r.changed != nil {
				r.changed()
			}
		}
	}
}

// replace swaps the server's tools in the registry for those of listed,
// in one step; it reports whether the registry changed.
func (r *Remote) replace(listed []*sdk.Tool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing.Load() {
		return false
	}
	old := make([]string, len(r.tools))
	for i, t := range r.tools {
		old[i] = t.Name
	}
	var tools []tooling.Tool
	var kept []RemoteTool
	var skipped []error
	names := registryNames(r.name, listed)
	for i, mt := range listed {
		name := names[i]
		if have, ok := r.reg.Lookup(name); ok && !slices.Contains(old, name) {
			skipped = append(skipped, explain(nil, "mcp: server %q: tool %q left out: the registry has a tool named %s already (%s): give the server a name that no other server or group of tools has", r.name, mt.Name, name, sourceOf(have)))
			continue
		}
		t, err := r.tool(name, mt)
		if err != nil {
			skipped = append(skipped, skippedTool(r.name, mt.Name, err))
			continue
		}
		tools = append(tools, t)
		kept = append(kept, RemoteTool{Name: name, Remote: mt.Name})
	}
	if err := r.reg.Replace(old, tools); err != nil {
		// A tool the registry refuses: add them one by one, as Connect
		// does, so that the others are there.
		_ = r.reg.Replace(old, nil)
		var added []RemoteTool
		for i, t := range tools {
			if err := r.reg.Add(t); err != nil {
				skipped = append(skipped, skippedTool(r.name, kept[i].Remote, err))
				continue
			}
			added = append(added, kept[i])
		}
		kept = added
	}
	r.tools, r.skipped = kept, skipped
	return true
}

// watch waits for the session to end and notes why when nobody closed it.
func (r *Remote) watch() {
	defer close(r.done)
	err := r.session.Wait()
	if r.closing.Load() {
		return
	}
	msg := fmt.Sprintf("the MCP server %q has stopped or closed the connection; restart it to use its tools", r.name)
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		msg = fmt.Sprintf("the MCP server %q has stopped (%v); restart it to use its tools", r.name, ee)
	}
	ended := errors.New(msg)
	r.ended.Store(&ended)
}

// Done is closed when the session with the server ends: the server stopped,
// dropped the connection, or Close was called.
func (r *Remote) Done() <-chan struct{} { return r.done }

// Err is nil while the session with the server is up or after Close; once
// the server has stopped or dropped the connection, it says so, with the
// end of its stderr. The server's tools are then unavailable with this
// reason.
func (r *Remote) Err() error {
	p := r.ended.Load()
	if p == nil {
		return nil
	}
	if tail := r.Stderr(); tail != "" {
		return fmt.Errorf("%w; its stderr ends with: %s", *p, tail)
	}
	return *p
}

// connectError wraps err with the server's stderr.
func (r *Remote) connectError(err error) error {
	return &ConnectError{Server: r.name, Stderr: r.Stderr(), Err: err}
}

// add adds the listed tools to the registry, in the server's order.
func (r *Remote) add(listed []*sdk.Tool) {
	names := registryNames(r.name, listed)
	for i, mt := range listed {
		name := names[i]
		if have, ok := r.reg.Lookup(name); ok {
			r.skipped = append(r.skipped, explain(nil, "mcp: server %q: tool %q left out: the registry has a tool named %s already (%s): give the server a name that no other server or group of tools has", r.name, mt.Name, name, sourceOf(have)))
			continue
		}
		t, err := r.tool(name, mt)
		if err == nil {
			err = r.reg.Add(t)
		}
		if err != nil {
			r.skipped = append(r.skipped, skippedTool(r.name, mt.Name, err))
			continue
		}
		r.tools = append(r.tools, RemoteTool{Name: name, Remote: mt.Name})
	}
}

// tool builds the registry's tool for the server's tool mt.
func (r *Remote) tool(name string, mt *sdk.Tool) (tooling.Tool, error) {
	in, err := schemaJSON(mt.InputSchema)
	if err != nil {
		return tooling.Tool{}, fmt.Errorf("inputSchema: %w", err)
	}
	out, err := schemaJSON(mt.OutputSchema)
	if err != nil {
		return tooling.Tool{}, fmt.Errorf("outputSchema: %w", err)
	}
	title := mt.Title
	if title == "" && mt.Annotations != nil {
		title = mt.Annotations.Title
	}
	if title == "" && name != r.name+"."+mt.Name {
		title = mt.Name // the name the server gives, shown where the registry's differs
	}
	remote, session, structured := mt.Name, r.session, out != nil
	return tooling.Tool{
		Name: name, Title: title, Description: mt.Description, Input: in, Output: out,
		Meta: metaOf(mt.Annotations, r.name, r.parallel), Source: "mcp:" + r.name,
		Available: func(context.Context, tooling.Call) error {
			if err := r.Err(); err != nil {
				return err
			}
			if r.needsTask(remote) {
				return fmt.Errorf("the MCP server %q runs its tool %q only as a task (task augmentation, taskSupport \"required\"), which toolexplorer's MCP client does not support", r.name, remote)
			}
			return nil
		},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			params := &sdk.CallToolParams{Name: remote, Arguments: c.Raw()}
			f := &flight{call: c, ctx: ctx}
			f.in, _ = ctx.Value(callKey{}).(*callContext)
			if f.in == nil || f.in.req.Params.GetProgressToken() != nil {
				// Progress has somewhere to go: the console's caller, or the
				// client of the MCP call that this call serves.
				f.token = r.name + "-" + strconv.FormatUint(r.seq.Add(1), 10)
				params.SetProgressToken(f.token)
			}
			r.track(f)
			defer r.untrack(f)
			res, err := session.CallTool(ctx, params)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if taskRequired(err) {
					return nil, explain(err, "the MCP server %q runs its tool %q only as a task (task augmentation, taskSupport \"required\"), which toolexplorer does not send: call it from an MCP client that runs tasks", r.name, remote)
				}
				return nil, r.callError(err)
			}
			if res.IsError {
				return nil, errors.New(remoteErrorText(textOf(res.Content)))
			}
			if structured && res.StructuredContent == nil {
				// MCP asks a tool with an output schema for structuredContent;
				// what its text says is not checked against the schema.
				return nil, fmt.Errorf("the server returned no structuredContent, which the tool's output schema asks for%s", contentSaid(res.Content))
			}
			out, err := output(res)
			if err == nil && f.in != nil {
				f.in.setRemote(name, res, out)
			}
			return out, err
		},
	}, nil
}

// flight is one call of a remote tool in flight.
type flight struct {
	call  tooling.Call
	ctx   context.Context // the call's context
	in    *callContext    // the MCP call this call serves (through Server); nil for others
	token string          // its progress token; "" when progress has nowhere to go
}

func (r *Remote) track(f *flight) {
	r.mu.Lock()
	if r.flights == nil {
		r.flights = map[*flight]struct{}{}
	}
	r.flights[f] = struct{}{}
	r.mu.Unlock()
}

func (r *Remote) untrack(f *flight) {
	r.mu.Lock()
	delete(r.flights, f)
	r.mu.Unlock()
}

// progressed passes a progress notification on to the call it is about.
func (r *Remote) progressed(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	if p == nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok || token == "" {
		return
	}
	var c *tooling.Call
	r.mu.Lock()
	for f := range r.flights {
		if f.token == token {
			c = &f.call
			break
		}
	}
	r.mu.Unlock()
	if c != nil {
		c.ReportProgress(p.Progress, p.Total, p.Message)
	}
}

// callError says why a call got no usable answer (see callFailure), with
// the server's stderr tail.
func (r *Remote) callError(err error) error {
	err = r.callFailure(err)
	if tail := r.Stderr(); tail != "" {
		return fmt.Errorf("%w; the server's stderr ends with: %s", err, tail)
	}
	return err
}

// schemaJSON re-encodes a schema as the SDK decoded it; nil stays nil.
func schemaJSON(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

// metaOf maps MCP annotations to Meta, with MCP's defaults for absent
// hints: not read-only, destructive, not idempotent, open-world. The
// server decides how its calls overlap: the calls of all its tools share
// one key, "mcp:GROUP", which parallel calls may hold at once.
func metaOf(a *sdk.ToolAnnotations, group string, parallel int) tooling.Meta {
	var ann sdk.ToolAnnotations
	if a != nil {
		ann = *a
	}
	m := tooling.Meta{Concurrency: tooling.Exclusive, Resources: []string{"mcp:" + group}, Parallel: parallel,
		Effects: tooling.EffectWrite, Idempotent: ann.IdempotentHint, Tags: []string{"remote"}}
	if ann.ReadOnlyHint {
		m.Effects = tooling.EffectRead
	} else if ann.DestructiveHint == nil || *ann.DestructiveHint {
		m.Safety = tooling.SafetyHigh
	} else {
		m.Additive = true // the server says its writes only add
	}
	if ann.OpenWorldHint == nil || *ann.OpenWorldHint {
		m.Effects |= tooling.EffectNetwork
	}
	return m
}

// output is a successful result's output, as JSON: its structuredContent
// when it has one (checked against the tool's outputSchema by the
// registry), else the text of a lone text block as a JSON string, else
// every content block as MCP encodes it.
func output(res *sdk.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("structuredContent: %w", err)
		}
		return b, nil
	}
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*sdk.TextContent); ok {
			return jsonenc.Marshal(t.Text)
		}
	}
	b, err := json.Marshal(res.Content)
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	return b, nil
}

// contentSaid quotes the start of the text of content, for a message.
func contentSaid(content []sdk.Content) string {
	text := textOf(content)
	if text == "" {
		return ""
	}
	if len(text) > 200 {
		text = text[:200] + "..."
	}
	return fmt.Sprintf(" (its content said %q)", text)
}

// textOf joins the text blocks of content.
func textOf(content []sdk.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*sdk.TextContent); ok && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// remoteErrorText is the message of a call the server reported failed
// (isError): its text, without the code tool_error that a toolexplorer
// server puts first, since the call's code says it already.
func remoteErrorText(text string) string {
	text = strings.TrimPrefix(text, string(codes.ToolError)+": ")
	return orText(text, "the server reported an error and said nothing more")
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// Name is the server's name, the group of its tools.
func (r *Remote) Name() string { return r.name }

// Tools lists the server's tools in the registry, in the server's order.
func (r *Remote) Tools() []RemoteTool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]RemoteTool(nil), r.tools...)
}

// Skipped lists the server's tools the registry refused, one error each.
func (r *Remote) Skipped() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.skipped...)
}

// Stderr returns the end of what a stdio server wrote to its stderr
// (the last few KiB), "" for an HTTP server.
func (r *Remote) Stderr() string {
	switch {
	case r.proc != nil:
		return r.proc.stderr.String()
	case r.jail != nil:
		return r.jail.stderr.String()
	}
	return ""
}

// Close removes the server's tools from the registry, ends the session and
// stops a stdio server: its stdin is closed, then it is sent SIGTERM and
// SIGKILL if it has not exited, and whatever it started in its process
// group is killed. Calls in flight fail.
func (r *Remote) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closing.Store(true)
		for _, t := range r.tools {
			_ = r.reg.Replace([]string{t.Name}, nil) // one by one: a tool already gone does not keep the others
		}
		r.mu.Unlock()
		err := r.session.Close()
		r.stop()
		<-r.done
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = nil // a server that exits on a signal or with a status as it is stopped
		}
		r.closeErr = err
	})
	return r.closeErr
}

// stop kills what a stdio server left behind in its process group.
func (r *Remote) stop() {
	if r.roots != nil && r.client != nil {
		r.roots.detach(r.client)
	}
	if r.proc != nil {
		r.proc.kill()
	}
	if r.jail != nil {
		_ = r.jail.stop() // the server is gone either way; how is in Err and Stderr
	}
}

// registryNames names the listed tools in the registry (remoteName): a
// tool whose name is already in lower snake case keeps it, so that of
// "get-Sum" and "get_sum" the second is group.get_sum and the first
// group.get_sum_2, whatever their order.
func registryNames(group string, listed []*sdk.Tool) []string {
	names := make([]string, len(listed))
	taken := map[string]bool{}
	for _, exact := range []bool{true, false} {
		for i, mt := range listed {
			if names[i] == "" && (snake(mt.Name) == mt.Name) == exact {
				names[i] = remoteName(group, mt.Name, taken)
				taken[names[i]] = true
			}
		}
	}
	return names
}

// remoteName is the registry name of the server's tool remote: "GROUP.tool"
// where tool is remote in lower snake case ("getTinyImage" becomes
// "get_tiny_image", "get-sum" "get_sum"), prefixed "t_" when it does not
// start with a letter, and suffixed "_2", "_3"... when taken already holds
// the result. The server's own name is kept beside it (RemoteTool) for calls.
func remoteName(group, remote string, taken map[string]bool) string {
	seg := snake(remote)
	if seg == "" || seg[0] < 'a' || seg[0] > 'z' {
		seg = "t_" + seg
		seg = strings.TrimSuffix(seg, "_")
	}
	name := group + "." + seg
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s.%s_%d", group, seg, i)
	}
	return name
}

// serverGroup is the registry group of a server's tools: its name in lower
// snake case ("my-server" becomes "my_server").
func serverGroup(name string) (string, error) {
	g := snake(name)
	if g == "" || g[0] < 'a' || g[0] > 'z' {
		return "", fmt.Errorf("the server name %q cannot name a group of tools: start it with a letter", name)
	}
	return g, nil
}

// snake spells s as one segment of a tool name, in lower snake case:
// camelCase words split, every run of other characters (dots included) one
// underscore, no underscore at either end.
func snake(s string) string {
	return toolname.Snake(strings.ReplaceAll(s, ".", "_"))
}

// environ is the environment of an unconfined stdio server: the variables
// of toolexplorer's environment that MCP hosts pass on (baseEnv), or all of
// them when all is set, then env, sorted for a stable order. So the
// credentials in toolexplorer's environment, meant for tools files, reach
// a server only when its config says so.
func environ(env map[string]string, all bool) []string {
	var out []string
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if all || (baseEnv(name) && !strings.HasPrefix(value, "()")) { // a shell function's definition is not passed on
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// baseEnv reports whether a stdio server gets the variable name of
// toolexplorer's environment without inherit_env: those MCP hosts pass on
// (the MCP SDKs' default environment), and the locale.
func baseEnv(name string) bool {
	if runtime.GOOS == "windows" {
		name = strings.ToUpper(name)
		switch name {
		case "APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE", "PROGRAMFILES",
			"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE":
			return true
		}
		return false
	}
	switch name {
	case "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LANGUAGE":
		return true
	}
	return strings.HasPrefix(name, "LC_")
}
