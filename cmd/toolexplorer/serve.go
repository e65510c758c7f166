package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/gctune"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// tokenEnv holds the bearer token of serve --http.
const tokenEnv = "TOOLEXPLORER_SERVE_TOKEN"

var serveCommand = &command{
	name:    "serve",
	args:    "[flags]",
	summary: "serve the tools to MCP clients, over stdio or streamable HTTP",
	help: `Serves the tools to an MCP client (an MCP host, an inspector, an agent):
over stdin and stdout by default, as an MCP host starts a server; with
--http ADDR over streamable HTTP at ADDR (path /), until interrupted. On
stdin, a line that is not a JSON-RPC message is answered with a JSON-RPC
error (-32700 when it is not JSON) and serving goes on.

tools/list lists the tools the origin may call and the config enables,
as 'schemas --format mcp' prints them. Every tools/call is one governed
call from the origin (--origin, default llm): a refused or failed call is
a tool result with isError set, its text naming the code and message and
its structuredContent the full result (in _meta under "toolexplorer/result"
for a tool with an output schema), less the stack of a panic, which stays
here. A call that needs consent asks the
client (form elicitation) when it can, and is refused with
consent_required otherwise, unless --consent or the config's
serve.consent names the tool.

With --server or the config's servers, serve is a gateway: it serves
their tools and those of the tools files, not toolexplorer's own tools,
each call governed here. --expose PATTERN (or the config's serve.tools)
chooses the tools served instead ("github.*", "*"). A server that stops
is started again (an HTTP server reached again), waiting longer each
time, up to its max_restarts in a row (default 5), then given up on;
its tools are not listed while it is down, and clients are sent
notifications/tools/list_changed whenever the list changes. SIGHUP
reloads the tools files and starts again the servers that are down; it
never ends serve. A server that asks for input
during a call (elicitation) has its question asked of the client that
made the call when that client supports elicitation, and declined
otherwise.

HTTP listens on loopback unless told otherwise. A non-loopback ADDR needs
authentication: a bearer token (from $` + tokenEnv + ` or else the
config's serve.token; its calls are made by subject "token"), API keys
(serve.api_keys: each key's SHA-256 digest and who calls with it; see
'toolexplorer apikey'), or OAuth (serve.oauth: JWT access tokens of an
issuer for this server, checked against the issuer's keys; the protected
resource metadata is served at /.well-known/oauth-protected-resource).
With any of them every request must carry one as 'Authorization: Bearer
...' (401 otherwise; 403 insufficient_scope for a token without a
required scope), and its calls are made by the principal it names.
Requests on a loopback address whose Host is not loopback, and browser
requests from another origin, are refused. HTTP keeps at most the
config's serve.max_sessions sessions open (default 100): a client that
would open one more is refused (503, with a JSON-RPC error) until one
ends; a session whose client sends nothing for serve.idle_timeout
(default 30m) ends. With --stateless (or the config's serve.stateless)
HTTP keeps no session: each request is answered on its own, so that
replicas behind a load balancer serve any request, sharing their limits,
budgets and idempotency records through state.redis. A client of MCP
protocol 2025-11-25 or earlier is then never asked for consent and sent
no tools/list_changed; one of 2026-07-28 or later is.

With --metrics ADDR the calls' metrics (tool_invocations_total,
tool_denied_total, tool_errors_total, tool_latency_seconds,
tool_budget_bytes_total, tool_in_flight, tool_queue) are served for
Prometheus at http://ADDR/metrics; the config's telemetry.otlp exports
traces and metrics to an OpenTelemetry collector.

A tool's state changes while serve runs: set tools.NAME.state (paused or
deprecated, with reason and replacement) in the config file, or take it
out, then send serve SIGHUP (kill -HUP PID): serve reads the config again,
applies its settings, says on standard error which tools changed state,
and sends the clients notifications/tools/list_changed. A config that no
longer loads leaves everything as it was.

serve runs Go's garbage collector at GOGC=400 unless $GOGC is set: its heap
may grow to five times what is live (at least 16 MB) before a collection,
which under load halves the processor time of a call. Set GOGC=100 for Go's
default, or GOMEMLIMIT to cap the heap.

Examples: over stdio, as an MCP host starts it; a gateway in front of
an MCP server; streamable HTTP on loopback, with metrics:

  $ toolexplorer serve
  $ toolexplorer serve --server "everything=npx -y @modelcontextprotocol/server-everything"
  $ toolexplorer serve --http 127.0.0.1:8080 --metrics 127.0.0.1:9464

Exit status: 0 when the client went away or on interrupt, 1 when serving
failed, 2 for a usage error.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			addr, origin, metrics string
			consent               stringList
			expose                stringList
			stateless             bool
		)
		fs.StringVar(&addr, "http", "", "serve streamable HTTP at `ADDR` (host:port; loopback unless $"+tokenEnv+" is set)")
		fs.StringVar(&origin, "origin", "llm", "the origin `O` of every call (app, ui, llm, system)")
		fs.Var(&consent, "consent", "grant consent to the calls of tool `NAME` (repeat or separate with commas)")
		fs.Var(&expose, "expose", "serve only the tools that match `PATTERN` (\"github.*\"; repeat or separate with commas); default: the config's serve.tools")
		fs.StringVar(&metrics, "metrics", "", "serve the calls' metrics for Prometheus at http://`ADDR`/metrics")
		fs.BoolVar(&stateless, "stateless", false, "with --http, keep no session: any replica behind a balancer answers any request (default: the config's serve.stateless)")
		return func(a *app, args []string) int {
			if len(args) > 0 {
				return a.usageError("serve", "unexpected argument %q", args[0])
			}
			for _, f := range []struct{ name, addr string }{{"--http", addr}, {"--metrics", metrics}} {
				if err := checkListenAddr(f.addr); err != nil {
					return a.usageError("serve", "%s %s: %v", f.name, f.addr, err)
				}
			}
			o, err := parseOrigin(a.reg, origin)
			if err != nil {
				return a.usageError("serve", "--origin: %v", err)
			}
			for _, n := range consent {
				if _, ok := a.reg.Lookup(n); !ok {
					return a.usageError("serve", "--consent: no tool %q", n)
				}
			}
			for _, n := range a.cfg.Serve.Consent {
				if _, ok := a.reg.Lookup(n); !ok {
					a.errorf("config: /serve/consent: no tool %q", n)
					return exitUsage
				}
			}
			consent = append(consent, a.cfg.Serve.Consent...)
			token := strings.TrimSpace(a.getenv(tokenEnv))
			if token == "" {
				token = a.cfg.Serve.Token
			}
			ho := httpOptions(a.cfg.Serve, token)
			ho.Stateless = stateless || a.cfg.Serve.Stateless
			if stateless && addr == "" {
				return a.usageError("serve", "--stateless is for --http")
			}
			if err := ho.Validate(); err != nil {
				a.errorf("config: /serve: %v", err)
				return exitUsage
			}
			if addr != "" && !mcp.Loopback(addr) && ho.Token == "" && len(ho.APIKeys) == 0 && ho.OAuth == nil {
				return a.usageError("serve", "--http %s is not a loopback address: set $%s, or serve.token, serve.api_keys or serve.oauth in the config, so that clients must authenticate", addr, tokenEnv)
			}
			if code := a.startLedger(); code != exitOK {
				return code
			}
			// A long-lived server collects its garbage less often than Go's default.
			defer gctune.ForServing(a.getenv)()
			stopTelemetry, err := a.startTelemetry(metrics)
			if err != nil {
				a.errorf("serve: %v", err)
				return exitFailed
			}
			defer stopTelemetry()
			// SIGHUP reloads the tools files and starts again the servers
			// that are down; MCP clients see the tools change.
			defer a.serveHangups()()
			// Over stdio the client is a program the local user started: it
			// calls as that user (or --as). Over HTTP a caller is who its
			// credentials say; with none it is anonymous.
			var who tooling.Principal
			if addr == "" {
				who = a.principal()
			}
			mo := mcp.Options{Version: versionString(), Origin: o, Consent: consent, Principal: who,
				NotFoundHint: a.serverHint, Expose: a.exposed(expose), Upstreams: a.upstreams, ExposeName: a.exposedName(expose)}
			if a.ledger != nil {
				// The upstreams' prompts got and resources read are in the
				// ledger too, refused or not.
				mo.Audit = a.ledger.Record
				// And refused alike while it cannot write, when its
				// on_failure is refuse.
				mo.Refusal = a.ledger.Refusal
			}
			srv := mcp.NewServer(a.reg, mo)
			defer srv.Detach()
			// What changes the tools on its own (a server that stops or comes
			// back, a reload) is listed to the clients at once.
			refresh := func() { srv.Refresh(context.WithoutCancel(a.ctx)) }
			a.onToolsChanged.Store(&refresh)
			defer a.onToolsChanged.Store(nil)
			// SIGHUP also reads the config file again: tools paused,
			// deprecated or enabled there change state now.
			defer a.reloadConfigOnHangup(srv)()
			// The state command reaches this serve on its control socket.
			defer a.listenControl()()
			if addr == "" {
				t := mcp.IOTransport(io.NopCloser(a.stdin), nopWriteCloser{a.rawStdout})
				// A client that went away while a notification was on its way
				// (tools/list_changed) closed the pipe: that is its going away.
				if err := srv.Run(a.ctx, t); err != nil && a.ctx.Err() == nil && !errors.Is(err, io.EOF) &&
					!errors.Is(err, io.ErrClosedPipe) && !errors.Is(err, syscall.EPIPE) {
					a.errorf("serve: %v", err)
					return exitFailed
				}
				return exitOK
			}
			return serveHTTP(a, srv, addr, ho)
		}
	},
}

// checkListenAddr checks that addr ("" for none) is an address to listen
// on: HOST:PORT, the host possibly empty (every address), the port a
// number up to 65535 or a service name.
func checkListenAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err == nil {
		_, err = net.LookupPort("tcp", port)
	}
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			err = errors.New(ae.Err)
		}
		return fmt.Errorf("want HOST:PORT, like 127.0.0.1:8080 (%v)", err)
	}
	return nil
}

// exposed chooses the tools serve serves: those patterns match (--expose,
// else the config's serve.tools); without patterns, every tool, or, when
// there are servers, their tools and the tools files' (a gateway serves
// what it fronts, not the program's own tools).
func (a *app) exposed(patterns []string) func(tooling.Tool) bool {
	if len(patterns) == 0 {
		patterns = a.cfg.Serve.Tools
	}
	if len(patterns) > 0 {
		return func(t tooling.Tool) bool {
			for _, p := range patterns {
				if toolname.Match(p, t.Name) {
					return true
				}
			}
			return false
		}
	}
	a.serversMu.Lock()
	gateway := len(a.servers) > 0
	a.serversMu.Unlock()
	if gateway {
		return func(t tooling.Tool) bool { return t.Source != "" }
	}
	return nil
}

// upstreams are the servers connected now, whose prompts and resources a
// gateway serves beside their tools.
func (a *app) upstreams() []*mcp.Remote {
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	var out []*mcp.Remote
	for _, s := range a.servers {
		if s.remote != nil {
			out = append(out, s.remote)
		}
	}
	return out
}

// exposedName decides which of the servers' prompts and resources
// ("SERVER.name") serve serves, by the rules of the tools: the patterns of
// --expose or serve.tools when there are any, and the config's whitelist
// and blacklist.
func (a *app) exposedName(patterns []string) func(name string) bool {
	if len(patterns) == 0 {
		patterns = a.cfg.Serve.Tools
	}
	white, black := a.cfg.Whitelist, a.cfg.Blacklist
	matches := func(list []string, name string) bool {
		for _, p := range list {
			if toolname.Match(p, name) {
				return true
			}
		}
		return false
	}
	return func(name string) bool {
		return (len(patterns) == 0 || matches(patterns, name)) && (len(white) == 0 || matches(white, name)) && !matches(black, name)
	}
}

// serveHangups makes each SIGHUP reload the tools files, when there are
// any, and start again at once the servers that are down, until stop is
// called. A SIGHUP never ends serve.
func (a *app) serveHangups() (stop func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-c:
			}
			a.filesMu.Lock()
			files := a.files != nil
			a.filesMu.Unlock()
			if files {
				if ch, err := a.reloadToolFiles(); err != nil {
					a.errorf("tools files not reloaded, the tools in place stay: %s", reloadError(err))
				} else {
					a.errorf("%s", changeText(ch))
				}
			}
			a.reviveServers()
			a.toolsChanged()
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
		<-finished
	}
}

// serveHTTP serves srv at addr until the command's context ends.
func serveHTTP(a *app, srv *mcp.Server, addr string, o mcp.HTTPOptions) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		a.errorf("serve: %v", err)
		return exitFailed
	}
	o.MaxSessions, o.IdleTimeout = a.cfg.Serve.MaxSessions, a.cfg.Serve.IdleTimeout
	hs := &http.Server{Handler: srv.Handler(o), ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.stderr, "toolexplorer: serving MCP at http://%s/\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err = <-done:
		a.errorf("serve: %v", err)
		return exitFailed
	case <-a.ctx.Done():
	}
	srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(ctx); err != nil {
		hs.Close()
	}
	<-done
	return exitOK
}

// httpOptions are the credentials serve --http accepts: the token, and
// the API keys and OAuth of the config.
func httpOptions(c config.Serve, token string) mcp.HTTPOptions {
	o := mcp.HTTPOptions{Token: token}
	names := make([]string, 0, len(c.APIKeys))
	for name := range c.APIKeys {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		k := c.APIKeys[name]
		o.APIKeys = append(o.APIKeys, mcp.APIKey{SHA256: k.SHA256,
			Principal: tooling.Principal{Subject: k.Subject, Tenant: k.Tenant, Roles: k.Roles}})
	}
	if c.OAuth != nil {
		o.OAuth = &mcp.OAuth{Issuer: c.OAuth.Issuer, Resource: c.OAuth.Resource, JWKSURL: c.OAuth.JWKSURL, Scopes: c.OAuth.Scopes,
			SubjectClaim: c.OAuth.SubjectClaim, TenantClaim: c.OAuth.TenantClaim, RolesClaim: c.OAuth.RolesClaim, Leeway: c.OAuth.Leeway}
	}
	return o
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
