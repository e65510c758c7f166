package bindings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// HTTPSource is a HTTP source in a tools file: where its tools send their
// requests and what they may reach.
type HTTPSource struct {
	// BaseURL is the http or https URL the tools' paths are appended to. An
	// https source never follows a redirect to plain http. It may hold
	// ${NAME} (or ${NAME:-default}) references, resolved when the file
	// loads (and again when it is reloaded).
	BaseURL string `yaml:"base_url" json:"base_url"`
	// Headers are sent with every request of the source's tools; a value may
	// hold ${NAME} (or ${NAME:-default}) references resolved at call time,
	// shown as ${NAME} everywhere else.
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// Timeout bounds one attempt, within the call's deadline. Zero: 30s.
	Timeout time.Duration `yaml:"timeout,omitempty" json:"timeout,omitempty"`
	// AllowHosts are the hosts besides the base URL's that a redirect may
	// lead to: "api.example.com" (any port), "api.example.com:8443", or
	// "*.example.com" (its subdomains, not example.com itself).
	AllowHosts []string `yaml:"allow_hosts,omitempty" json:"allow_hosts,omitempty"`
	// AllowPrivate lets the tools reach loopback, link-local and private
	// addresses (RFC 1918, ULA, CGNAT, unspecified). Zero: refused, checked
	// on the address actually dialled.
	AllowPrivate bool `yaml:"allow_private,omitempty" json:"allow_private,omitempty"`
	// Methods are the methods the source's tools may use. Zero: each tool
	// its own method only.
	Methods []string `yaml:"methods,omitempty" json:"methods,omitempty"`
	// MaxResponseBytes caps a response body. Zero: 4 MiB.
	MaxResponseBytes int64 `yaml:"max_response_bytes,omitempty" json:"max_response_bytes,omitempty"`
	// ContentTypes are the media types a successful response may have
	// ("application/json", "text/*"). Zero: JSON, or text for a binding
	// whose response is text.
	ContentTypes []string `yaml:"content_types,omitempty" json:"content_types,omitempty"`
}

// HTTPBinding is a tool's HTTP binding in a tools file: one request built
// from the call's arguments.
type HTTPBinding struct {
	// Source names the source, one of the file's sources of this kind.
	Source string `yaml:"source" json:"source"`
	// Method is GET (the zero value), HEAD, OPTIONS, POST, PUT, PATCH or
	// DELETE.
	Method string `yaml:"method,omitempty" json:"method,omitempty"`
	// Path is appended to the source's base URL; each {param} is replaced
	// by that argument, escaped as one path segment. Path parameters must
	// be required by the input schema.
	Path string `yaml:"path,omitempty" json:"path,omitempty"`
	// Query maps query parameters to values: text with {param} references;
	// a parameter whose arguments are all absent is left out, and a value
	// that is exactly "{param}" with an array argument repeats.
	Query map[string]string `yaml:"query,omitempty" json:"query,omitempty"`
	// Headers are added to the source's (and override them); values as in
	// Query, plus ${NAME} credentials.
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// Body is the JSON body: any JSON value where a string that is exactly
	// "{param}", or an object {"$arg": "param"}, is replaced by the
	// argument's JSON value (an object member whose argument is absent is
	// left out). Nothing is spliced into text. Zero: no body.
	Body any `yaml:"body,omitempty" json:"body,omitempty"`
	// Response says what the output is.
	Response HTTPResponse `yaml:"response,omitempty" json:"response,omitempty"`
}

// HTTPResponse maps a response to the tool's output.
type HTTPResponse struct {
	// Data locates the output in the JSON body, as a JSON pointer
	// ("/data/items") or a dotted path ("data.items", "$.data.items").
	// Zero, "/" or "$": the whole body.
	Data string `yaml:"data,omitempty" json:"data,omitempty"`
	// Error locates the error message in the JSON body of an error status,
	// like Data. Zero: the start of the body.
	Error string `yaml:"error,omitempty" json:"error,omitempty"`
	// Text makes the output the body as a string, and accepts text media
	// types. Zero: the body must be JSON.
	Text bool `yaml:"text,omitempty" json:"text,omitempty"`
}

const (
	defaultHTTPTimeout   = 30 * time.Second
	defaultMaxResponse   = 4 << 20
	maxRedirects         = 5
	maxRequestURLBytes   = 8 << 10
	maxRequestHeaderSize = 32 << 10
	errorSnippet         = 200
)

// httpSource is an opened HTTP source: its checked settings and its client,
// shared by the source's tools so that connections are reused.
type httpSource struct {
	name         string
	base         *url.URL
	headers      []headerTmpl
	timeout      time.Duration
	guard        *guard
	methods      []string // nil: each binding its own
	maxBytes     int64
	contentTypes []string
	client       *http.Client
	transport    *http.Transport
}

type headerTmpl struct {
	name string // canonical
	t    tmpl
}

// expandBaseURL returns s with the ${NAME} and ${NAME:-default} references
// of its base URL resolved by env, as the file loads: the URL decides which
// hosts the source may reach, so it is fixed until the file is loaded
// again, where headers are resolved at each call.
func expandBaseURL(s *HTTPSource, env Env) (*HTTPSource, error) {
	if !credRef.MatchString(s.BaseURL) {
		return s, nil
	}
	u, err := expand(s.BaseURL, env)
	if err != nil {
		return nil, fmt.Errorf("base_url: %w", err)
	}
	c := *s
	c.BaseURL = u
	return &c, nil
}

// openHTTP checks a source and prepares its client; it connects to nothing.
func openHTTP(name string, s *HTTPSource) (*httpSource, error) {
	base, err := url.Parse(s.BaseURL)
	switch {
	case s.BaseURL == "":
		return nil, errors.New("base_url: missing")
	case err != nil:
		return nil, fmt.Errorf("base_url: %v", errors.Unwrap(err))
	case base.Scheme != "http" && base.Scheme != "https":
		return nil, fmt.Errorf("base_url: scheme %q is not http or https", base.Scheme)
	case base.Host == "" || base.Hostname() == "":
		return nil, errors.New("base_url: no host")
	case base.User != nil:
		return nil, errors.New("base_url: credentials in the URL are refused; send them in headers with ${NAME}")
	case base.RawQuery != "" || base.ForceQuery || base.Fragment != "":
		return nil, errors.New("base_url: no query or fragment (use the bindings' query)")
	case strings.Contains(s.BaseURL, "${"):
		return nil, errors.New("base_url: ${ that is not a ${NAME} or ${NAME:-default} reference")
	}
	base.Path = strings.TrimSuffix(base.Path, "/")
	base.RawPath = strings.TrimSuffix(base.RawPath, "/")
	src := &httpSource{
		name:     name,
		base:     base,
		timeout:  s.Timeout,
		maxBytes: s.MaxResponseBytes,
	}
	if src.timeout < 0 {
		return nil, errors.New("timeout: negative")
	}
	if src.timeout == 0 {
		src.timeout = defaultHTTPTimeout
	}
	if src.maxBytes < 0 {
		return nil, errors.New("max_response_bytes: negative")
	}
	if src.maxBytes == 0 {
		src.maxBytes = defaultMaxResponse
	}
	if src.headers, err = parseHeaders("headers", s.Headers, nil); err != nil {
		return nil, err
	}
	for _, m := range s.Methods {
		u := strings.ToUpper(m)
		if !knownMethod(u) {
			return nil, fmt.Errorf("methods: %q is not one of GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE", m)
		}
		src.methods = append(src.methods, u)
	}
	for _, ct := range s.ContentTypes {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || !strings.Contains(mt, "/") {
			return nil, fmt.Errorf("content_types: %q is not a media type", ct)
		}
		src.contentTypes = append(src.contentTypes, mt)
	}
	if src.guard, err = newGuard(base, s.AllowHosts, s.AllowPrivate); err != nil {
		return nil, err
	}
	src.transport = src.guard.transport()
	src.client = &http.Client{Transport: src.transport, CheckRedirect: src.guard.checkRedirect(src.methods)}
	return src, nil
}

func (s *httpSource) close() error {
	s.transport.CloseIdleConnections()
	return nil
}

func knownMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// httpBinding is a compiled HTTP binding.
type httpBinding struct {
	src     *httpSource
	method  string
	path    tmpl
	route   string // the path as the tools file writes it: url.template of its spans
	query   []queryTmpl
	headers []headerTmpl // the source's, then the binding's
	// credHeaders are the headers holding a ${NAME} reference, dropped on
	// a redirect to another origin.
	credHeaders []string
	body        any // the template; nil: no body
	hasBody     bool
	data        []string // response path, nil: the whole body
	errPath     []string
	text        bool
}

type queryTmpl struct {
	name string
	t    tmpl
}

// compileHTTP checks a binding against its source and the tool's input.
func compileHTTP(b *HTTPBinding, src *httpSource, in Input) (binding, error) {
	hb := &httpBinding{src: src, method: strings.ToUpper(b.Method), text: b.Response.Text}
	if hb.method == "" {
		hb.method = http.MethodGet
	}
	if !knownMethod(hb.method) {
		return nil, fmt.Errorf("method: %q is not one of GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE", b.Method)
	}
	if src.methods != nil && !slices.Contains(src.methods, hb.method) {
		return nil, fmt.Errorf("method: %s is not in the methods of source %s (%s)", hb.method, src.name, strings.Join(src.methods, ", "))
	}
	var err error
	hb.route = b.Path
	if hb.path, err = parseTemplate(b.Path, false); err != nil {
		return nil, fmt.Errorf("path: %v", err)
	}
	if b.Path != "" && !strings.HasPrefix(b.Path, "/") {
		return nil, fmt.Errorf("path: %q does not start with /", b.Path)
	}
	for _, sg := range hb.path {
		if sg.kind != segLit {
			continue
		}
		if strings.ContainsAny(sg.text, "?#") {
			return nil, errors.New("path: ? and # are not allowed (use query)")
		}
		if _, err := url.PathUnescape(sg.text); err != nil {
			return nil, fmt.Errorf("path: %v", err)
		}
	}
	if err := checkArgs("path", hb.path, in, true); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(b.Query) {
		if name == "" {
			return nil, errors.New("query: an empty parameter name")
		}
		t, err := parseTemplate(b.Query[name], false)
		if err != nil {
			return nil, fmt.Errorf("query.%s: %v", name, err)
		}
		if err := checkArgs("query."+name, t, in, false); err != nil {
			return nil, err
		}
		hb.query = append(hb.query, queryTmpl{name, t})
	}
	own, err := parseHeaders("headers", b.Headers, &in)
	if err != nil {
		return nil, err
	}
	hb.headers = mergeHeaders(src.headers, own)
	for _, h := range hb.headers {
		for _, sg := range h.t {
			if sg.kind == segEnv {
				hb.credHeaders = append(hb.credHeaders, h.name)
				break
			}
		}
	}
	if b.Body != nil {
		if hb.method == http.MethodGet || hb.method == http.MethodHead {
			return nil, fmt.Errorf("body: a %s request has no body", hb.method)
		}
		if err := checkBody("body", b.Body, in); err != nil {
			return nil, err
		}
		hb.body, hb.hasBody = b.Body, true
	}
	if hb.data, err = parsePath(b.Response.Data); err != nil {
		return nil, fmt.Errorf("response.data: %v", err)
	}
	if hb.errPath, err = parsePath(b.Response.Error); err != nil {
		return nil, fmt.Errorf("response.error: %v", err)
	}
	if hb.text && hb.data != nil {
		return nil, errors.New("response: data selects from a JSON body; a text response has none")
	}
	return hb, nil
}

func (b *httpBinding) kind() string   { return "http" }
func (b *httpBinding) source() string { return b.src.name }
func (b *httpBinding) close() error   { return nil }

func (b *httpBinding) writes() bool {
	switch b.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// built is a request as the binding builds it, before it is sent.
type built struct {
	rawURL  string
	header  http.Header
	body    []byte
	bodyVal any
}

// build makes the request from the arguments; with redact, credentials are
// written as their ${NAME} references (still checked to be set).
func (b *httpBinding) build(req *Request, redact bool) (*built, error) {
	path, _, err := b.path.render(req.Args, nil, false, renderPath)
	if err != nil {
		return nil, fmt.Errorf("http: path: %w", err)
	}
	u, err := url.Parse(b.src.base.Scheme + "://" + b.src.base.Host + b.src.base.EscapedPath() + path)
	if err != nil {
		return nil, fmt.Errorf("http: path: %v", errors.Unwrap(err))
	}
	if len(b.query) > 0 {
		q := make(url.Values, len(b.query))
		for _, p := range b.query {
			if err := p.t.addQuery(q, p.name, req.Args); err != nil {
				return nil, fmt.Errorf("http: query %s: %w", p.name, err)
			}
		}
		u.RawQuery = q.Encode()
	}
	raw := u.String()
	if len(raw) > maxRequestURLBytes {
		return nil, fmt.Errorf("http: the request URL would be %d bytes, over the %d-byte limit", len(raw), maxRequestURLBytes)
	}
	out := &built{rawURL: raw, header: make(http.Header, len(b.headers)+4)}
	size := 0
	for _, h := range b.headers {
		v, ok, err := h.t.render(req.Args, req.Env, redact, renderHeader)
		if err != nil {
			return nil, fmt.Errorf("http: header %s: %w", h.name, err)
		}
		if ok {
			out.header[h.name] = []string{v}
			size += len(h.name) + len(v)
		}
	}
	if size > maxRequestHeaderSize {
		return nil, fmt.Errorf("http: the request headers would be %d bytes, over the %d-byte limit", size, maxRequestHeaderSize)
	}
	if out.header.Get("Accept") == "" {
		if b.text {
			out.header.Set("Accept", "text/*, application/json;q=0.9")
		} else {
			out.header.Set("Accept", "application/json")
		}
	}
	if out.header.Get("User-Agent") == "" {
		out.header.Set("User-Agent", "toolexplorer")
	}
	if req.IdempotencyKey != "" {
		if !validHeaderValue(req.IdempotencyKey) {
			return nil, errors.New("http: the idempotency key holds a control character")
		}
		out.header.Set("Idempotency-Key", req.IdempotencyKey)
	}
	if b.hasBody {
		out.bodyVal, _ = fillBody(b.body, req.Args)
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out.bodyVal); err != nil {
			return nil, fmt.Errorf("http: body: %v", err)
		}
		out.body = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if out.header.Get("Content-Type") == "" {
			out.header.Set("Content-Type", "application/json")
		}
	}
	return out, nil
}

func (b *httpBinding) do(ctx context.Context, req *Request) (Outcome, error) {
	if req.Shadow {
		r, err := b.build(req, true)
		if err != nil {
			return Outcome{}, err
		}
		headers := make(map[string]any, len(r.header))
		for k, v := range r.header {
			headers[k] = v[0]
		}
		out := map[string]any{"method": b.method, "url": r.rawURL, "headers": headers}
		if b.hasBody {
			out["body"] = r.bodyVal
		}
		return Outcome{Output: out, Status: "shadow"}, nil
	}
	r, err := b.build(req, false)
	if err != nil {
		return Outcome{}, err
	}
	// The source's timeout, unless the call's deadline comes first.
	actx, cancel := ctx, context.CancelFunc(func() {})
	if d, ok := ctx.Deadline(); !ok || time.Until(d) > b.src.timeout {
		actx, cancel = context.WithTimeout(ctx, b.src.timeout)
	}
	defer cancel()
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	hr, err := http.NewRequestWithContext(context.WithValue(actx, credHeadersKey{}, b.credHeaders), b.method, r.rawURL, body)
	if err != nil {
		return Outcome{}, fmt.Errorf("http: %v", err)
	}
	hr.Header = r.header
	span := b.startSpan(hr)
	resp, err := b.src.client.Do(hr)
	if err != nil {
		err = b.sendError(ctx, actx, err)
		endSpan(span, 0, err)
		return Outcome{}, err
	}
	defer resp.Body.Close()
	endSpan(span, resp.StatusCode, nil)
	data, err := readCapped(resp, b.src.maxBytes)
	if err != nil {
		if ctx.Err() == nil && actx.Err() != nil {
			return Outcome{}, &TransientError{Err: fmt.Errorf("http: no whole response within the source's timeout of %s", b.src.timeout)}
		}
		if ctx.Err() != nil {
			return Outcome{}, ctx.Err()
		}
		return Outcome{}, err
	}
	oc := Outcome{Status: resp.Status, ResponseBytes: len(data), Effects: map[string]string{
		"host": hostPort(resp.Request.URL), "method": b.method, "bytes_sent": strconv.Itoa(len(r.body))}}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		oc.Output, err = b.output(resp, data)
		return oc, err
	case code == http.StatusTooManyRequests || code >= 500:
		return oc, &TransientError{Err: b.statusError(resp, data), After: retryAfter(resp.Header.Get("Retry-After"), time.Now())}
	default:
		return oc, b.statusError(resp, data)
	}
}

// sendError says why a request got no response: a guard's refusal, the
// call's end, the source's timeout, or a connection failure worth a retry.
func (b *httpBinding) sendError(ctx, actx context.Context, err error) error {
	var g *guardError
	switch {
	case errors.As(err, &g):
		return g
	case ctx.Err() != nil:
		return ctx.Err()
	case actx.Err() != nil:
		return &TransientError{Err: fmt.Errorf("http: no response within the source's timeout of %s", b.src.timeout)}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		return fmt.Errorf("http: host %s not found", dnsErr.Name)
	}
	if ue, ok := err.(*url.Error); ok {
		err = ue.Err
	}
	return &TransientError{Err: fmt.Errorf("http: %s %s: %v", b.method, redactedURL(b.src.base), err)}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// redactedURL is a URL for messages: no user, query or fragment.
func redactedURL(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path, RawPath: u.RawPath}).String()
}

var _ binding = (*httpBinding)(nil)
