package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// connectFailure says why the server could not be connected at the step
// ("initialize", "tools/list") that failed with err, in the user's terms:
// what the program or URL did instead of speaking MCP, and what to check.
// wait is the deadline Connect set itself, 0 when the caller set it.
func (r *Remote) connectFailure(ctx context.Context, step string, wait time.Duration, err error) error {
	var le listError
	if errors.As(err, &le) {
		return err
	}
	if p := r.proc; p != nil {
		if !p.started() {
			return startFailure(p.cmd.Path, p.cmd.Args[0], err)
		}
		if _, ok := p.exited(); ok {
			p.drained(ctx)
		}
	}
	var out string
	switch {
	case r.proc != nil:
		out = r.proc.stdout.String()
	case r.jailOut != nil:
		if ctx.Err() == nil && closed(err) {
			// Its pipes closed once what ran it in the child returned:
			// what it wrote before is read, or their end is, soon.
			r.jailOut.wait(ctx)
		}
		out = r.jailOut.h.String()
	}
	if notMCP(out) {
		return explain(err, "not an MCP server: it wrote %s on its standard output, where an MCP server writes only MCP messages (JSON-RPC; logs go to stderr)", quoteLine(out))
	}
	if notJSONRPC(out) {
		return explain(err, "not an MCP server, or one that logs on its standard output: it wrote %s there, JSON but not an MCP message (JSON-RPC 2.0); logs go to stderr", quoteLine(out))
	}
	if strings.Contains(out, `"method":"initialize"`) || strings.Contains(out, `"method":"server/discover"`) {
		return explain(err, "not an MCP server: it wrote back the request it was sent, as a program that copies its input does")
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return explain(err, "canceled while waiting for its answer to %q", step)
		}
		within := "before the deadline"
		if wait > 0 {
			within = "within " + wait.String()
		}
		if step == "initialize" {
			if out == "" && (r.proc != nil || r.jail != nil) {
				return fmt.Errorf("no answer to %q %s (%w): it wrote nothing on its standard output; it is not an MCP server, it is waiting for something (a download, a login, input), or it leaves unanswered the requests it does not know (the first one is \"server/discover\")", step, within, ctx.Err())
			}
			return fmt.Errorf("no answer to %q %s (%w): it is not an MCP server, or it is waiting for something (a download, a login, input)", step, within, ctx.Err())
		}
		return fmt.Errorf("it answered \"initialize\", then no answer to %q %s (%w)", step, within, ctx.Err())
	}
	var how string
	if p := r.proc; p != nil {
		if exit, ok := p.exited(); ok {
			how = "with status 0"
			if exit != nil {
				how = "(" + exit.Error() + ")"
			}
		}
	}
	if r.jail != nil {
		// A confined server's pipes close only once what ran it in the
		// child has returned, so over a closed connection its exit is
		// waited for, until Connect's deadline however slow the machine;
		// otherwise it may still run, and only an exit already known is
		// told.
		wait := ctx
		if !closed(err) {
			var cancel context.CancelFunc
			wait, cancel = context.WithCancel(ctx)
			cancel()
		}
		how, _ = r.jail.exited(wait)
	}
	if how != "" {
		if step != "initialize" {
			return explain(err, "it answered \"initialize\", then exited %s before answering %q", how, step)
		}
		return explain(err, "it exited %s before answering %q: it is not an MCP server, or it failed to start", how, step)
	}
	var se *signInError
	if errors.As(err, &se) {
		return explain(err, "%s", se.Error())
	}
	if r.probe != nil {
		if msg := r.probe.failure(r.url); msg != "" {
			return explain(err, "%s", msg)
		}
		if msg := netFailure(r.url, err); msg != "" {
			return explain(err, "%s", msg)
		}
		if strings.Contains(err.Error(), "failed to decode response") {
			return explain(err, "%s answers with JSON that is not an MCP message (JSON-RPC 2.0): give the URL of the server's MCP endpoint", r.url)
		}
	}
	var we *jsonrpc.Error
	if !closed(err) && errors.As(err, &we) {
		return explain(err, "it answered %q with an error (%v): it is not an MCP server, or not one this client can talk to", step, we)
	}
	if step == "initialize" {
		return fmt.Errorf("not an MCP server, or it failed to start: %w", err)
	}
	return fmt.Errorf("%s: %w", step, err)
}

// explained is an error with a message for the user that keeps the error
// it explains for errors.Is and errors.As.
type explained struct {
	msg string
	err error
}

func (e *explained) Error() string { return e.msg }
func (e *explained) Unwrap() error { return e.err }

func explain(err error, format string, args ...any) error {
	return &explained{fmt.Sprintf(format, args...), err}
}

// startFailure says why the program could not be started.
func startFailure(path, name string, err error) error {
	var ee *exec.Error
	var pe *fs.PathError
	switch {
	case errors.As(err, &ee) && errors.Is(ee.Err, exec.ErrNotFound):
		return explain(err, "cannot start %q: there is no program of that name in $PATH", ee.Name)
	case errors.As(err, &pe):
		if path == "" {
			path = name
		}
		return fmt.Errorf("cannot start %q: %w", path, pe.Err)
	}
	return fmt.Errorf("cannot start %q: %w", name, err)
}

// confinedFailure says why a confined server could not be started.
func confinedFailure(command string, err error) error {
	var ee *exec.Error
	if errors.As(err, &ee) {
		return startFailure("", command, err)
	}
	return fmt.Errorf("starting it confined: %w", err)
}

// closed reports whether err says the connection ended.
func closed(err error) bool {
	return errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// notMCP reports whether a server's stdout starts with something that is
// not a JSON-RPC message.
func notMCP(out string) bool {
	out = strings.TrimLeft(out, " \t\r\n")
	return out != "" && out[0] != '{' && out[0] != '['
}

// notJSONRPC reports whether the first line of a server's stdout is a JSON
// object that is not a JSON-RPC 2.0 message, as a log line is.
func notJSONRPC(out string) bool {
	line, _, _ := strings.Cut(strings.TrimLeft(out, " \t\r\n"), "\n")
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return false
	}
	return m["jsonrpc"] != "2.0"
}

// quoteLine quotes the first line of s, cut at 80 bytes.
func quoteLine(s string) string {
	s = strings.TrimLeft(s, " \t\r\n")
	line, rest, _ := strings.Cut(s, "\n")
	more := strings.TrimSpace(rest) != ""
	line = strings.TrimRight(line, "\r")
	if len(line) > 80 {
		line, more = line[:80], true
	}
	q := fmt.Sprintf("%q", line)
	if more {
		q += "..."
	}
	return q
}

// netFailure says why nothing answered at url; "" when err is not about
// reaching it.
func netFailure(url string, err error) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("nothing listens at %s (connection refused): is the server running, on that port?", url)
	case errors.As(err, &dns):
		return fmt.Sprintf("cannot reach %s: the host %q is not known (%v)", url, dns.Name, dns.Err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return fmt.Sprintf("cannot reach %s: %v", url, oe)
	}
	return ""
}

// codeRejected is the JSON-RPC code the SDK gives a request its transport
// could not deliver (an HTTP request that failed).
const codeRejected = -32005

// callFailure says why a call failed when the server's answer did not
// come or could not be read.
func (r *Remote) callFailure(err error) error {
	if closed(err) {
		if r.done != nil {
			t := time.NewTimer(terminateGrace + time.Second)
			select {
			case <-r.done: // the server's exit is known
			case <-t.C:
			}
			t.Stop()
		}
		how := "stopped or closed the connection"
		if p := r.proc; p != nil {
			if exit, ok := p.exited(); ok && exit != nil {
				how = "stopped (" + exit.Error() + ")"
			} else if ok {
				how = "exited with status 0"
			}
		}
		return explain(err, "the MCP server %q %s during the call; restart it to use its tools", r.name, how)
	}
	if r.probe != nil {
		if msg := netFailure(r.url, err); msg != "" {
			return explain(err, "%s", msg)
		}
	}
	msg := strings.TrimPrefix(err.Error(), `calling "tools/call": `)
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		if we.Code == codeRejected { // the HTTP request failed
			msg = strings.ReplaceAll(msg, "rejected by transport: ", "")
			return explain(err, "the MCP server %q did not take the call: %s", r.name, msg)
		}
		return explain(err, "the MCP server %q refused the call: %v", r.name, we)
	}
	if strings.Contains(msg, "invalid character") && r.done != nil {
		// Not JSON on the stream: the connection ends with it.
		t := time.NewTimer(terminateGrace + time.Second)
		defer t.Stop()
		select {
		case <-r.done:
			return explain(err, "the MCP server %q wrote something that is not an MCP message on its standard output (%s), which ends the connection: a server writes only MCP messages there (logs go to stderr); restart it to use its tools", r.name, msg)
		case <-t.C:
		}
	}
	return explain(err, "the MCP server %q answered with a result that is not valid MCP: %s", r.name, msg)
}

// httpProbe notes the first answer of an HTTP server that is not an MCP
// message (a status that is not a success, a web page), to say what the
// URL serves instead.
type httpProbe struct {
	mu     sync.Mutex
	status int
	ctype  string
	body   string
	bearer bool // a 401 or 403 came with a Bearer challenge (OAuth)
}

// probeTransport sends headers with every request and shows the answers
// that are not MCP to the probe.
type probeTransport struct {
	h     map[string]string
	probe *httpProbe
	next  http.RoundTripper
}

// probeClient is the HTTP client of a server: it sends headers with every
// request and notes in probe the first answer that is not MCP.
func probeClient(h map[string]string, probe *httpProbe) *http.Client {
	return &http.Client{Transport: probeTransport{h, probe, http.DefaultTransport}}
}

func (t probeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.h) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.h {
			req.Header.Set(k, v)
		}
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	ctype, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	ok := resp.StatusCode/100 == 2 && (ctype == "" || ctype == "application/json" || ctype == "text/event-stream")
	if ok {
		return resp, nil
	}
	b := make([]byte, 512)
	n, _ := io.ReadFull(resp.Body, b)
	b = b[:n]
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), resp.Body), resp.Body}
	t.probe.mu.Lock()
	if t.probe.status == 0 {
		t.probe.status, t.probe.ctype, t.probe.body = resp.StatusCode, ctype, string(b)
		t.probe.bearer = strings.HasPrefix(strings.ToLower(resp.Header.Get("WWW-Authenticate")), "bearer")
	}
	t.probe.mu.Unlock()
	return resp, nil
}

// failure says what the URL answered instead of MCP; "" when it did not.
func (p *httpProbe) failure(url string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	code := p.status
	if code == 0 {
		return ""
	}
	status := fmt.Sprintf("%d %s", code, http.StatusText(code))
	switch {
	case code/100 == 4 && strings.HasSuffix(strings.TrimRight(url, "/"), "/sse"):
		return fmt.Sprintf("%s answers %s: a URL ending in /sse is usually MCP's older HTTP+SSE transport, which toolexplorer does not speak; give the server's streamable HTTP endpoint (often ending in /mcp)", url, status)
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return fmt.Sprintf("%s answers %s: it is not an MCP endpoint; check the path (servers often serve MCP at /mcp)", url, status)
	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && p.bearer:
		return fmt.Sprintf("%s answers %s with an OAuth challenge: the server wants you to sign in; add \"oauth\": {} to its entry in the config (or give a token in its headers)", url, status)
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return fmt.Sprintf("%s answers %s: the server wants credentials; give them in the server's headers in the config (such as Authorization)", url, status)
	case code/100 != 2:
		msg := fmt.Sprintf("%s answers %s", url, status)
		if p.body != "" && p.ctype != "text/html" {
			msg += ": " + quoteLine(p.body)
		}
		return msg
	case p.ctype == "text/html":
		return fmt.Sprintf("%s serves a web page (text/html), not MCP: give the URL of the server's MCP endpoint (often ending in /mcp)", url)
	}
	return fmt.Sprintf("%s answers with %s, not MCP (JSON or an event stream): give the URL of the server's MCP endpoint", url, p.ctype)
}

// skippedTool says why the server's tool was left out, with the problems
// the registry found and not the registry's own wording around them.
func skippedTool(server, tool string, err error) error {
	msg := err.Error()
	var re *tooling.RegisterError
	if errors.As(err, &re) {
		msg = strings.Join(re.Problems, "; ")
	}
	return explain(err, "mcp: server %q: tool %q left out: %s", server, tool, msg)
}

// listError is a tools/list whose pages do not end.
type listError string

func (e listError) Error() string { return string(e) }

// maxTools bounds how many tools a server may list.
const maxTools = 100_000

// listTools lists the server's tools, page after page. A server whose
// pages do not end (a cursor that comes back, more than maxTools tools) is
// an error, where following it would take until the deadline and memory
// without bound.
func listTools(ctx context.Context, session *sdk.ClientSession) ([]*sdk.Tool, error) {
	var listed []*sdk.Tool
	params := &sdk.ListToolsParams{}
	seen := map[string]bool{}
	for {
		res, err := session.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		listed = append(listed, res.Tools...)
		switch {
		case res.NextCursor == "":
			return listed, nil
		case seen[res.NextCursor]:
			return nil, listError(fmt.Sprintf("its tools/list pages do not end: the cursor %q came back after %d tools", res.NextCursor, len(listed)))
		case len(listed) > maxTools:
			return nil, listError(fmt.Sprintf("it lists more than %d tools", maxTools))
		}
		seen[res.NextCursor] = true
		params.Cursor = res.NextCursor
	}
}

// sourceOf says where a tool of the registry comes from.
func sourceOf(t tooling.Tool) string {
	if server, ok := strings.CutPrefix(t.Source, "mcp:"); ok {
		return fmt.Sprintf("of the MCP server %q", server)
	}
	if path, ok := strings.CutPrefix(t.Source, "file:"); ok {
		return "of the tools file " + path
	}
	if t.Source != "" {
		return "from " + t.Source
	}
	return "built into the program"
}

// checkURL says what is wrong with the URL of an HTTP server; nil when it
// is an http:// or https:// URL with a host.
func checkURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("the url %q does not parse: %v", ShownURL(s), err)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("the url %q is not http:// or https://", ShownURL(s))
	case u.Host == "":
		return fmt.Errorf("the url %q names no host", ShownURL(s))
	}
	return nil
}

// userinfo is the user[:password]@ of a URL's authority, found without
// parsing (a URL that does not parse may still hold one).
var userinfo = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@`)

// ShownURL is a server's URL as messages, warnings and screens show it:
// without its user name and password (user:pass@), which are credentials.
func ShownURL(s string) string {
	return userinfo.ReplaceAllString(s, "${1}")
}
