package bindings

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http/httpproxy"
)

// seen is what a test server received.
type seen struct {
	mu       sync.Mutex
	n        int
	uri      string
	method   string
	header   http.Header
	body     []byte
	accepted atomic.Int64 // connections
}

func (s *seen) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func (s *seen) last() (uri, method string, h http.Header, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uri, s.method, s.header, s.body
}

// server starts a local server that records each request, then runs h.
func server(t *testing.T, h http.HandlerFunc) (*httptest.Server, *seen) {
	t.Helper()
	rec := &seen{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec.mu.Lock()
		rec.n++
		rec.uri, rec.method, rec.header, rec.body = r.RequestURI, r.Method, r.Header.Clone(), body
		rec.mu.Unlock()
		if h != nil {
			h(w, r)
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			rec.accepted.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, rec
}

func jsonReply(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}
}

func open(t *testing.T, s HTTPSource) *httpSource {
	t.Helper()
	src, err := openHTTP("api", &s)
	if err != nil {
		t.Fatalf("openHTTP: %v", err)
	}
	t.Cleanup(func() { src.close() })
	return src
}

func compile(t *testing.T, b HTTPBinding, src *httpSource, in Input) binding {
	t.Helper()
	hb, err := compileHTTP(&b, src, in)
	if err != nil {
		t.Fatalf("compileHTTP: %v", err)
	}
	return hb
}

// args decodes arguments as the registry hands them over (numbers are
// json.Number).
func args(t *testing.T, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func env(vars map[string]string) Env {
	return func(name string) (string, bool) { v, ok := vars[name]; return v, ok }
}

func props(required []string, nameType ...string) Input {
	in := Input{Properties: map[string]string{}, Required: required}
	for i := 0; i+1 < len(nameType); i += 2 {
		in.Properties[nameType[i]] = nameType[i+1]
	}
	return in
}

func TestHTTPGetPathQueryHeaders(t *testing.T) {
	srv, rec := server(t, jsonReply(`{"data": {"items": [{"id": 7, "price": 12.50}]}, "next": null}`))
	src := open(t, HTTPSource{
		BaseURL:      srv.URL + "/v1/",
		Headers:      map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Region": "${REGION:-eu}"},
		AllowPrivate: true,
	})
	b := compile(t, HTTPBinding{
		Source:   "api",
		Path:     "/shops/{shop}/items",
		Query:    map[string]string{"q": "{q}", "limit": "{limit}", "tag": "{tags}", "sort": "price-{order}", "unused": "{missing}"},
		Headers:  map[string]string{"X-Trace": "t-{trace}"},
		Response: HTTPResponse{Data: "/data/items"},
	}, src, props([]string{"shop"}, "shop", "string", "q", "string", "limit", "integer", "tags", "array", "order", "string", "trace", "string", "missing", "string"))
	if b.writes() || b.kind() != "http" || b.source() != "api" {
		t.Fatalf("writes %v kind %q source %q", b.writes(), b.kind(), b.source())
	}
	out, err := b.do(context.Background(), &Request{
		Args: args(t, `{"shop": "north east", "q": "a&b=c", "limit": 20, "tags": ["x", "y"], "order": "asc", "trace": "42"}`),
		Env:  env(map[string]string{"TOKEN": "s3cret"}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(out.Output)
	if string(got) != `[{"id":7,"price":12.50}]` {
		t.Errorf("output %s", got)
	}
	if out.Status != "200 OK" || out.ResponseBytes == 0 {
		t.Errorf("status %q bytes %d", out.Status, out.ResponseBytes)
	}
	uri, method, h, _ := rec.last()
	if want := "/v1/shops/north%20east/items?limit=20&q=a%26b%3Dc&sort=price-asc&tag=x&tag=y"; uri != want || method != "GET" {
		t.Errorf("server saw %s %s, want GET %s", method, uri, want)
	}
	if h.Get("Authorization") != "Bearer s3cret" || h.Get("X-Region") != "eu" || h.Get("X-Trace") != "t-42" || h.Get("Accept") != "application/json" {
		t.Errorf("headers %v", h)
	}
	if h.Get("Idempotency-Key") != "" {
		t.Errorf("an Idempotency-Key without a key: %q", h.Get("Idempotency-Key"))
	}
}

func TestHTTPPostBodyTemplate(t *testing.T) {
	srv, rec := server(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"id": "o-1"}`)
	})
	src := open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true})
	b := compile(t, HTTPBinding{
		Source: "api", Method: "post", Path: "/orders",
		Body: map[string]any{
			"item":  "{item}",
			"qty":   map[string]any{"$arg": "qty"},
			"meta":  map[string]any{"note": "{note}", "fixed": "the {item} text stays", "gift": "{gift}"},
			"lines": []any{"{item}", 1, true, nil},
		},
	}, src, props([]string{"item"}, "item", "string", "qty", "integer", "note", "", "gift", "boolean"))
	if !b.writes() {
		t.Error("a POST does not write")
	}
	// A value made to break out of a spliced string stays one JSON string.
	item := `x", "admin": true, "y": "`
	a := map[string]any{"item": item, "qty": json.Number("3"), "note": map[string]any{"k": []any{"v"}}}
	out, err := b.do(context.Background(), &Request{Args: a, IdempotencyKey: "key-1"})
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := out.Output.(json.RawMessage); string(raw) != `{"id":"o-1"}` || out.Status != "201 Created" {
		t.Errorf("output %v status %q", out.Output, out.Status)
	}
	_, method, h, body := rec.last()
	var sent map[string]any
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	want := map[string]any{
		"item":  item,
		"qty":   3.0,
		"meta":  map[string]any{"note": map[string]any{"k": []any{"v"}}, "fixed": "the {item} text stays"},
		"lines": []any{item, 1.0, true, nil},
	}
	if g, w := mustJSON(t, sent), mustJSON(t, want); g != w || method != "POST" {
		t.Errorf("server saw %s body\n%s\nwant\n%s", method, g, w)
	}
	if h.Get("Content-Type") != "application/json" || h.Get("Idempotency-Key") != "key-1" {
		t.Errorf("headers %v", h)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHTTPPathParamsStayInTheirSegment attacks the path template with values
// that would leave their segment if spliced; the control sends the spliced
// URL to show the server would resolve it elsewhere.
func TestHTTPPathParamsStayInTheirSegment(t *testing.T) {
	srv, rec := server(t, jsonReply(`{}`))
	src := open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true})
	b := compile(t, HTTPBinding{Source: "api", Path: "/files/{name}/meta"}, src, props([]string{"name"}, "name", "string"))
	for _, v := range []string{"../../admin", "..%2F..%2Fadmin", "a/b", "x?admin=1#frag", "%00", "..;/admin"} {
		t.Run(v, func(t *testing.T) {
			if _, err := b.do(context.Background(), &Request{Args: map[string]any{"name": v}}); err != nil {
				t.Fatal(err)
			}
			uri, _, _, _ := rec.last()
			if want := "/files/" + url.PathEscape(v) + "/meta"; uri != want {
				t.Errorf("server saw %s, want %s", uri, want)
			}
			u, err := url.ParseRequestURI(uri)
			if err != nil {
				t.Fatal(err)
			}
			segs := strings.Split(u.EscapedPath(), "/")
			if len(segs) != 4 || segs[1] != "files" || segs[3] != "meta" || u.RawQuery != "" {
				t.Fatalf("the value left its segment: path %q query %q", u.EscapedPath(), u.RawQuery)
			}
			if got, _ := url.PathUnescape(segs[2]); got != v {
				t.Errorf("the segment holds %q", got)
			}
		})
	}
	t.Run("control", func(t *testing.T) {
		resp, err := http.Get(srv.URL + "/files/" + "../../admin" + "/meta")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		uri, _, _, _ := rec.last()
		if path.Clean(uri) != "/admin/meta" {
			t.Fatalf("the spliced path reached %s", uri)
		}
	})
	for _, v := range []string{".", "..", ""} {
		before := rec.count()
		_, err := b.do(context.Background(), &Request{Args: map[string]any{"name": v}})
		if err == nil || !strings.Contains(err.Error(), "not a path segment") || rec.count() != before {
			t.Errorf("%q: err %v, %d requests", v, err, rec.count()-before)
		}
	}
}

// TestHTTPHeaderInjection: a CR/LF in an argument or a credential never
// becomes a header. The control writes the spliced request over TCP and
// shows the server would take the injected header.
func TestHTTPHeaderInjection(t *testing.T) {
	srv, rec := server(t, jsonReply(`{}`))
	src := open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true, Headers: map[string]string{"X-Key": "${KEY}"}})
	b := compile(t, HTTPBinding{Source: "api", Headers: map[string]string{"X-User": "{user}"}}, src, props(nil, "user", "string"))
	inject := "ada\r\nX-Injected: 1"
	_, err := b.do(context.Background(), &Request{Args: map[string]any{"user": inject}, Env: env(map[string]string{"KEY": "k"})})
	if err == nil || !strings.Contains(err.Error(), "header X-User") || strings.Contains(err.Error(), "Injected") {
		t.Errorf("err %v", err)
	}
	_, err = b.do(context.Background(), &Request{Args: map[string]any{"user": "ada"}, Env: env(map[string]string{"KEY": "k\nX-Injected: 1"})})
	if err == nil || !strings.Contains(err.Error(), "${KEY}") || strings.Contains(err.Error(), "Injected") {
		t.Errorf("credential: err %v", err)
	}
	if rec.count() != 0 {
		t.Fatalf("%d requests reached the server", rec.count())
	}
	t.Run("control", func(t *testing.T) {
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-User: "+inject+"\r\nConnection: close\r\n\r\n")
		io.Copy(io.Discard, c)
		if _, _, h, _ := rec.last(); h.Get("X-Injected") != "1" {
			t.Fatalf("the spliced header did not reach the server: %v", h)
		}
	})
}

// TestHTTPRedirectGuard follows redirects to hosts the source does not
// allow; the control allows them and shows the redirect is followed.
func TestHTTPRedirectGuard(t *testing.T) {
	other, otherRec := server(t, jsonReply(`{"reached": true}`))
	_, port, _ := net.SplitHostPort(other.Listener.Addr().String())
	cases := []struct {
		name, to, allow string
	}{
		{"another host name", "http://localhost:" + port + "/x", "localhost"},
		{"the same address, another port", other.URL + "/x", "127.0.0.1:" + port},
		{"a private address behind a name", "http://internal.example:" + port + "/x", "internal.example"},
		{"a subdomain", "http://a.internal.example:" + port + "/x", "*.internal.example"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			front, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, c.to, http.StatusFound)
			})
			for _, control := range []bool{false, true} {
				s := HTTPSource{BaseURL: front.URL, AllowPrivate: true}
				if control {
					s.AllowHosts = []string{c.allow}
				}
				src := open(t, s)
				src.guard.resolve = func(addr string) string {
					host, p, _ := net.SplitHostPort(addr)
					if strings.HasSuffix(host, "internal.example") {
						return "127.0.0.1:" + p
					}
					return addr
				}
				b := compile(t, HTTPBinding{Source: "api", Path: "/go"}, src, Input{})
				before := otherRec.count()
				_, err := b.do(context.Background(), &Request{})
				reached := otherRec.count() - before
				if control {
					if err != nil || reached != 1 {
						t.Fatalf("control: err %v, %d requests reached", err, reached)
					}
					continue
				}
				var te *TransientError
				if err == nil || !strings.Contains(err.Error(), "neither the source's nor in its allow_hosts") || errors.As(err, &te) || reached != 0 {
					t.Fatalf("err %v (transient %v), %d requests reached", err, te != nil, reached)
				}
			}
		})
	}
}

func TestHTTPRedirectHopLimit(t *testing.T) {
	srv, rec := server(t, func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		http.Redirect(w, r, "/r/"+strconv.Itoa(n+1), http.StatusTemporaryRedirect)
	})
	b := compile(t, HTTPBinding{Source: "api", Path: "/r/0"}, open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true}), Input{})
	_, err := b.do(context.Background(), &Request{})
	if err == nil || !strings.Contains(err.Error(), "stopped after 5 redirects") {
		t.Fatalf("err %v", err)
	}
	if rec.count() != 1+maxRedirects {
		t.Errorf("%d requests, want %d", rec.count(), 1+maxRedirects)
	}
}

// TestHTTPRedirectNoDowngrade: an https source does not follow a redirect to
// http, even to an allowed host; the control is a source that allows http.
func TestHTTPRedirectNoDowngrade(t *testing.T) {
	plain, plainRec := server(t, jsonReply(`{}`))
	front := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/x", http.StatusFound)
	}))
	defer front.Close()
	for _, control := range []bool{false, true} {
		src := open(t, HTTPSource{BaseURL: front.URL, AllowPrivate: true, AllowHosts: []string{"127.0.0.1"}})
		src.transport.TLSClientConfig = front.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		src.guard.allowHTTP = control
		b := compile(t, HTTPBinding{Source: "api"}, src, Input{})
		before := plainRec.count()
		_, err := b.do(context.Background(), &Request{})
		reached := plainRec.count() - before
		if control {
			if err != nil || reached != 1 {
				t.Fatalf("control: err %v, %d requests", err, reached)
			}
		} else if err == nil || !strings.Contains(err.Error(), "never downgrades to http") || reached != 0 {
			t.Fatalf("err %v, %d requests", err, reached)
		}
	}
}

// TestHTTPPrivateAddresses: a source that does not allow private addresses
// cannot reach one, named directly or through a name that resolves to it
// (the DNS rebinding case: the check is on the address dialled). The
// control allows private addresses.
func TestHTTPPrivateAddresses(t *testing.T) {
	srv, rec := server(t, jsonReply(`{"reached": true}`))
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	for _, base := range []string{srv.URL, "http://rebind.example:" + port} {
		for _, control := range []bool{false, true} {
			src := open(t, HTTPSource{BaseURL: base, AllowPrivate: control})
			src.guard.resolve = func(addr string) string {
				if host, p, _ := net.SplitHostPort(addr); host == "rebind.example" {
					return "127.0.0.1:" + p
				}
				return addr
			}
			b := compile(t, HTTPBinding{Source: "api"}, src, Input{})
			before := rec.count()
			_, err := b.do(context.Background(), &Request{})
			reached := rec.count() - before
			if control {
				if err != nil || reached != 1 {
					t.Fatalf("%s control: err %v, %d requests", base, err, reached)
				}
				continue
			}
			var te *TransientError
			if err == nil || !strings.Contains(err.Error(), "a loopback address") || errors.As(err, &te) || reached != 0 {
				t.Fatalf("%s: err %v, %d requests", base, err, reached)
			}
		}
	}
}

func TestRefusedAddr(t *testing.T) {
	refused := []string{"127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
		"100.64.0.1", "100.127.255.254", "169.254.169.254", "0.0.0.0", "0.1.2.3", "255.255.255.255", "224.0.0.1",
		"::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
		"::ffff:169.254.169.254", "::127.0.0.1", "64:ff9b::7f00:1", "64:ff9b::a00:1", "2002:7f00:1::1", "198.18.0.1", "::ffff:0:7f00:1", "::ffff:0:a9fe:a9fe"}
	public := []string{"8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2001:4860:4860::8888", "::ffff:8.8.8.8",
		"64:ff9b::808:808", "2002:808:808::1", "::ffff:0:808:808"}
	for _, s := range refused {
		if what, bad := refusedAddr(mustAddr(t, s)); !bad {
			t.Errorf("%s is not refused", s)
		} else if what == "" {
			t.Errorf("%s: no kind", s)
		}
	}
	for _, s := range public {
		if what, bad := refusedAddr(mustAddr(t, s)); bad {
			t.Errorf("%s is refused as %s", s, what)
		}
	}
}

func TestHTTPStatusCodes(t *testing.T) {
	cases := []struct {
		status     int
		retryAfter string
		transient  bool
		after      time.Duration
		want       string
	}{
		{404, "", false, 0, "http: 404 Not Found: no order o-9"},
		{400, "", false, 0, "http: 400 Bad Request: no order o-9"},
		{409, "", false, 0, "409 Conflict"},
		{429, "7", true, 7 * time.Second, "429 Too Many Requests: no order o-9"},
		{503, "", true, 0, "503 Service Unavailable"},
		{500, "not a time", true, 0, "500 Internal Server Error"},
	}
	for _, c := range cases {
		t.Run(strconv.Itoa(c.status), func(t *testing.T) {
			srv, _ := server(t, func(w http.ResponseWriter, _ *http.Request) {
				if c.retryAfter != "" {
					w.Header().Set("Retry-After", c.retryAfter)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(c.status)
				io.WriteString(w, `{"error": {"message": "no order o-9"}}`)
			})
			b := compile(t, HTTPBinding{Source: "api", Response: HTTPResponse{Error: "error.message"}},
				open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true}), Input{})
			out, err := b.do(context.Background(), &Request{})
			var te *TransientError
			if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &te) != c.transient {
				t.Fatalf("err %v (transient %v), want %q transient %v", err, te != nil, c.want, c.transient)
			}
			if te != nil && te.After != c.after {
				t.Errorf("After %s, want %s", te.After, c.after)
			}
			if out.Status != strconv.Itoa(c.status)+" "+http.StatusText(c.status) {
				t.Errorf("status %q", out.Status)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for h, want := range map[string]time.Duration{
		"":                              0,
		"0":                             0,
		"-3":                            0,
		"120":                           2 * time.Minute,
		"Sun, 01 Mar 2026 12:00:30 GMT": 30 * time.Second,
		"Sun, 01 Mar 2026 11:00:00 GMT": 0,
		"soon":                          0,
		"99999999999":                   24 * time.Hour,
	} {
		if got := retryAfter(h, now); got != want {
			t.Errorf("%q: %s, want %s", h, got, want)
		}
	}
}

// TestHTTPSlowResponse: a server that never answers costs the source's
// timeout (a transient failure) or the call's deadline, whichever is first.
func TestHTTPSlowResponse(t *testing.T) {
	release := make(chan struct{})
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/body" {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"partial": `)
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	for _, p := range []string{"/head", "/body"} {
		b := compile(t, HTTPBinding{Source: "api", Path: p}, open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true, Timeout: 50 * time.Millisecond}), Input{})
		_, err := b.do(context.Background(), &Request{})
		var te *TransientError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "within the source's timeout of 50ms") {
			t.Errorf("%s: err %v", p, err)
		}
		b = compile(t, HTTPBinding{Source: "api", Path: p}, open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true, Timeout: time.Hour}), Input{})
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		_, err = b.do(ctx, &Request{})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &te) {
			t.Errorf("%s: call deadline: err %v", p, err)
		}
	}
}

// TestHTTPHugeResponse: a body over the cap fails without being read to its
// end: the server, writing forever, sees the connection closed. The control
// is a body exactly at the cap.
func TestHTTPHugeResponse(t *testing.T) {
	const limit = 64 << 10
	endless := make(chan int64, 1)
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/endless":
			chunk := bytes.Repeat([]byte(" "), 32<<10)
			var n int64
			for {
				k, err := w.Write(chunk)
				n += int64(k)
				if err != nil {
					endless <- n
					return
				}
			}
		case "/declared":
			w.Header().Set("Content-Length", strconv.Itoa(1<<30))
			w.WriteHeader(http.StatusOK)
		case "/exact":
			io.WriteString(w, `"`+strings.Repeat("a", limit-2)+`"`)
		}
	})
	src := open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true, MaxResponseBytes: limit})
	for _, p := range []string{"/endless", "/declared"} {
		b := compile(t, HTTPBinding{Source: "api", Path: p}, src, Input{})
		_, err := b.do(context.Background(), &Request{})
		if err == nil || !strings.Contains(err.Error(), "over max_response_bytes (65536)") {
			t.Errorf("%s: err %v", p, err)
		}
	}
	if n := <-endless; n < limit {
		t.Errorf("the server wrote only %d bytes", n)
	}
	b := compile(t, HTTPBinding{Source: "api", Path: "/exact"}, src, Input{})
	out, err := b.do(context.Background(), &Request{})
	if raw, _ := out.Output.(json.RawMessage); err != nil || len(raw) != limit || out.ResponseBytes != limit {
		t.Errorf("control: err %v, %d bytes", err, out.ResponseBytes)
	}
}

// TestHTTPOversizedArguments: an argument that would make the request URL
// or its headers huge is refused before anything is sent; the control is
// the same argument at a reasonable size.
func TestHTTPOversizedArguments(t *testing.T) {
	srv, rec := server(t, jsonReply(`{}`))
	b := compile(t, HTTPBinding{Source: "api", Path: "/p/{id}", Query: map[string]string{"q": "{q}"}, Headers: map[string]string{"X-Note": "{note}"}},
		open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true}), props([]string{"id"}, "id", "string", "q", "string", "note", "string"))
	for _, a := range []map[string]any{
		{"id": strings.Repeat("x", 9<<10)},
		{"id": "1", "q": strings.Repeat("é", 3<<10)},
		{"id": "1", "note": strings.Repeat("n", 40<<10)},
	} {
		if _, err := b.do(context.Background(), &Request{Args: a}); err == nil || !strings.Contains(err.Error(), "-byte limit") {
			t.Errorf("err %v", err)
		}
	}
	if rec.count() != 0 {
		t.Fatalf("%d requests sent", rec.count())
	}
	if _, err := b.do(context.Background(), &Request{Args: map[string]any{"id": strings.Repeat("x", 1<<10), "q": "é", "note": "n"}}); err != nil || rec.count() != 1 {
		t.Fatalf("control: err %v, %d requests", err, rec.count())
	}
}

// TestHTTPShadow: a shadow call builds the request and sends nothing;
// credentials show as their references.
func TestHTTPShadow(t *testing.T) {
	srv, rec := server(t, jsonReply(`{}`))
	src := open(t, HTTPSource{BaseURL: srv.URL + "/api", AllowPrivate: true, Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}})
	b := compile(t, HTTPBinding{
		Source: "api", Method: "DELETE", Path: "/orders/{id}", Query: map[string]string{"reason": "{reason}"},
		Body: map[string]any{"id": "{id}", "notify": "{notify}"},
	}, src, props([]string{"id"}, "id", "string", "reason", "string", "notify", "boolean"))
	e := env(map[string]string{"TOKEN": "tok-123456"})
	out, err := b.do(context.Background(), &Request{Args: map[string]any{"id": "a/b", "reason": "dup", "notify": true}, Shadow: true, Env: e, IdempotencyKey: "k1"})
	if err != nil {
		t.Fatal(err)
	}
	got := mustJSON(t, out.Output)
	want := `{"body":{"id":"a/b","notify":true},"headers":{"Accept":"application/json","Authorization":"Bearer ${TOKEN}","Content-Type":"application/json","Idempotency-Key":"k1","User-Agent":"toolexplorer"},"method":"DELETE","url":"` + srv.URL + `/api/orders/a%2Fb?reason=dup"}`
	if got != want || out.Status != "shadow" {
		t.Errorf("shadow output\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(got, "tok-123456") {
		t.Error("the credential's value is in the output")
	}
	// A missing credential fails the shadow call as it would the real one.
	for _, shadow := range []bool{true, false} {
		_, err = b.do(context.Background(), &Request{Args: map[string]any{"id": "1"}, Shadow: shadow, Env: env(nil)})
		var me *MissingEnvError
		if !errors.As(err, &me) || me.Name != "TOKEN" {
			t.Errorf("shadow %v: err %v", shadow, err)
		}
	}
	if rec.count() != 0 {
		t.Fatalf("%d requests sent", rec.count())
	}
	if _, err := b.do(context.Background(), &Request{Args: map[string]any{"id": "1"}, Env: e}); err != nil || rec.count() != 1 {
		t.Fatalf("control: err %v, %d requests", err, rec.count())
	}
	if _, _, h, _ := rec.last(); h.Get("Authorization") != "Bearer tok-123456" {
		t.Errorf("control: Authorization %q", h.Get("Authorization"))
	}
}

func TestHTTPContentTypes(t *testing.T) {
	srv, _ := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", strings.TrimPrefix(r.URL.Path, "/"))
		io.WriteString(w, `{"a": 1}`)
	})
	cases := []struct {
		s    HTTPSource
		resp HTTPResponse
		ct   string
		ok   bool
	}{
		{HTTPSource{}, HTTPResponse{}, "application/json", true},
		{HTTPSource{}, HTTPResponse{}, "application/problem+json", true},
		{HTTPSource{}, HTTPResponse{}, "text/html", false},
		{HTTPSource{}, HTTPResponse{}, "text/plain", false},
		{HTTPSource{}, HTTPResponse{Text: true}, "text/plain", true},
		{HTTPSource{}, HTTPResponse{Text: true}, "image/png", false},
		{HTTPSource{ContentTypes: []string{"text/*"}}, HTTPResponse{Text: true}, "text/csv", true},
		{HTTPSource{ContentTypes: []string{"application/vnd.api+json"}}, HTTPResponse{}, "application/json", false},
	}
	for _, c := range cases {
		c.s.BaseURL, c.s.AllowPrivate = srv.URL, true
		b := compile(t, HTTPBinding{Source: "api", Path: "/" + c.ct, Response: c.resp}, open(t, c.s), Input{})
		out, err := b.do(context.Background(), &Request{})
		if (err == nil) != c.ok {
			t.Errorf("%s (text %v, %v): err %v", c.ct, c.resp.Text, c.s.ContentTypes, err)
		}
		if err == nil && c.resp.Text && out.Output != `{"a": 1}` {
			t.Errorf("%s: text output %#v", c.ct, out.Output)
		}
	}
}

func TestHTTPConnectionReuse(t *testing.T) {
	srv, rec := server(t, jsonReply(`{}`))
	src := open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true})
	b1 := compile(t, HTTPBinding{Source: "api", Path: "/a"}, src, Input{})
	b2 := compile(t, HTTPBinding{Source: "api", Path: "/b"}, src, Input{})
	for range 3 {
		for _, b := range []binding{b1, b2} {
			if _, err := b.do(context.Background(), &Request{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := rec.accepted.Load(); n != 1 {
		t.Errorf("%d connections for 6 sequential calls of one source", n)
	}
}

func TestHTTPRedirectMethods(t *testing.T) {
	srv, rec := server(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/see-other" {
			http.Redirect(w, r, "/done", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	})
	// A POST answered by 303 is followed with a GET, the method a browser uses.
	b := compile(t, HTTPBinding{Source: "api", Method: "POST", Path: "/see-other"}, open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true}), Input{})
	if _, err := b.do(context.Background(), &Request{}); err != nil {
		t.Fatal(err)
	}
	if uri, m, _, _ := rec.last(); uri != "/done" || m != "GET" {
		t.Errorf("followed with %s %s", m, uri)
	}
	// A source that allows only POST refuses the GET hop.
	b = compile(t, HTTPBinding{Source: "api", Method: "POST", Path: "/see-other"}, open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true, Methods: []string{"POST"}}), Input{})
	before := rec.count()
	if _, err := b.do(context.Background(), &Request{}); err == nil || !strings.Contains(err.Error(), "method GET refused") || rec.count() != before+1 {
		t.Errorf("err %v, %d requests", err, rec.count()-before)
	}
}

func TestCompileHTTPErrors(t *testing.T) {
	src, err := openHTTP("api", &HTTPSource{BaseURL: "https://api.example.com", Methods: []string{"GET", "POST"}})
	if err != nil {
		t.Fatal(err)
	}
	in := props([]string{"id"}, "id", "string", "opt", "string", "obj", "object", "list", "array")
	for _, c := range []struct {
		b    HTTPBinding
		want string
	}{
		{HTTPBinding{Path: "/items/{nope}"}, "path: {nope} is not a property of the input"},
		{HTTPBinding{Path: "/items/{opt}"}, "path: {opt} is not required by the input"},
		{HTTPBinding{Path: "items"}, `path: "items" does not start with /`},
		{HTTPBinding{Path: "/items?x=1"}, "path: ? and # are not allowed"},
		{HTTPBinding{Path: "/items/${TOKEN}"}, "path: ${TOKEN}: credentials are resolved only in headers"},
		{HTTPBinding{Query: map[string]string{"q": "{nope}"}}, "query.q: {nope} is not a property of the input"},
		{HTTPBinding{Query: map[string]string{"q": "{obj}"}}, "query.q: {obj} is an object"},
		{HTTPBinding{Headers: map[string]string{"X-A": "{nope}"}}, "headers.X-A: {nope} is not a property of the input"},
		{HTTPBinding{Headers: map[string]string{"Bad Name": "x"}}, `headers: "Bad Name" is not a header name`},
		{HTTPBinding{Headers: map[string]string{"host": "evil"}}, "headers: Host is set by the client"},
		{HTTPBinding{Headers: map[string]string{"X-A": "a\r\nB: c"}}, "headers.X-A: a control character"},
		{HTTPBinding{Method: "POST", Body: map[string]any{"a": []any{"{nope}"}}}, "body.a[0]: {nope} is not a property of the input"},
		{HTTPBinding{Method: "POST", Body: map[string]any{"a": map[string]any{"$arg": "nope"}}}, "body.a: {nope} is not a property of the input"},
		{HTTPBinding{Method: "POST", Body: map[string]any{"$arg": "id", "x": 1}}, "body: $arg takes the name of a property"},
		{HTTPBinding{Body: map[string]any{"a": 1}}, "body: a GET request has no body"},
		{HTTPBinding{Method: "DELETE"}, "method: DELETE is not in the methods of source api (GET, POST)"},
		{HTTPBinding{Method: "TRACE"}, `method: "TRACE" is not one of`},
		{HTTPBinding{Response: HTTPResponse{Data: "a..b"}}, "response.data:"},
		{HTTPBinding{Response: HTTPResponse{Data: "/a", Text: true}}, "response: data selects from a JSON body"},
	} {
		c.b.Source = "api"
		_, err := compileHTTP(&c.b, src, in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.b, err, c.want)
		}
	}
}

func TestOpenHTTPErrors(t *testing.T) {
	for _, c := range []struct {
		s    HTTPSource
		want string
	}{
		{HTTPSource{}, "base_url: missing"},
		{HTTPSource{BaseURL: "ftp://h"}, `base_url: scheme "ftp" is not http or https`},
		{HTTPSource{BaseURL: "https://"}, "base_url: no host"},
		{HTTPSource{BaseURL: "https://u:p@h"}, "base_url: credentials in the URL are refused"},
		{HTTPSource{BaseURL: "https://h/?a=1"}, "base_url: no query or fragment"},
		{HTTPSource{BaseURL: "https://${HOST}/"}, "base_url"},
		{HTTPSource{BaseURL: "https://h", Headers: map[string]string{"X-A": "{id}"}}, "headers.X-A: {id}: a source's headers cannot use arguments"},
		{HTTPSource{BaseURL: "https://h", Headers: map[string]string{"X-A": "${1BAD}"}}, `"1BAD" is not a variable name`},
		{HTTPSource{BaseURL: "https://h", Headers: map[string]string{"X-A": "a ${TOKEN"}}, "headers.X-A: ${TOKEN: ${ is not closed"},
		{HTTPSource{BaseURL: "https://h", AllowHosts: []string{"https://x"}}, "allow_hosts:"},
		{HTTPSource{BaseURL: "https://h", AllowHosts: []string{"*.x:80"}}, "allow_hosts:"},
		{HTTPSource{BaseURL: "https://h", AllowHosts: []string{"a.*.x"}}, "allow_hosts:"},
		{HTTPSource{BaseURL: "https://h", Methods: []string{"CONNECT"}}, "methods:"},
		{HTTPSource{BaseURL: "https://h", ContentTypes: []string{"json"}}, "content_types:"},
		{HTTPSource{BaseURL: "https://h", Timeout: -time.Second}, "timeout: negative"},
	} {
		if _, err := openHTTP("api", &c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want %q", c.s, err, c.want)
		}
	}
}

func TestParseTemplate(t *testing.T) {
	tm, err := parseTemplate("a{b}c${D}e${F:-g h}{not a name}{}", true)
	if err != nil {
		t.Fatal(err)
	}
	want := tmpl{{kind: segLit, text: "a"}, {kind: segArg, text: "b"}, {kind: segLit, text: "c"}, {kind: segEnv, text: "D"},
		{kind: segLit, text: "e"}, {kind: segEnv, text: "F", def: "g h", hasDef: true}, {kind: segLit, text: "{not a name}{}"}}
	if mustJSONSegs(tm) != mustJSONSegs(want) {
		t.Errorf("got %+v\nwant %+v", tm, want)
	}
	// An argument's text is never read as a reference.
	s, ok, err := tm.render(map[string]any{"b": "${D}{b}"}, env(map[string]string{"D": "d"}), false, renderQuery)
	if err != nil || !ok || s != "a${D}{b}cdeg h{not a name}{}" {
		t.Errorf("render %q %v %v", s, ok, err)
	}
}

func mustJSONSegs(t tmpl) string {
	var b strings.Builder
	for _, s := range t {
		b.WriteString(strconv.Itoa(int(s.kind)) + "|" + s.text + "|" + s.def + "|" + strconv.FormatBool(s.hasDef) + ";")
	}
	return b.String()
}

func mustAddr(t *testing.T, s string) netip.Addr {
	t.Helper()
	a, err := netip.ParseAddr(s)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestSelectJSON(t *testing.T) {
	body := []byte(` {"a": {"items": [ {"n": 1.50e3, "s": "x/y"}, 2 ]}, "b": "~/", "c": {"}\"]": [], "k\u0065y": "e"}, "d": 1, "d": [ "{" , "]\\" ]} `)
	for _, c := range []struct {
		path, want, err string
	}{
		{"", `{"a":{"items":[{"n":1.50e3,"s":"x/y"},2]},"b":"~/","c":{"}\"]":[],"k\u0065y":"e"},"d":1,"d":["{","]\\"]}`, ""},
		{"/c/key", `"e"`, ""},
		{"/c/}\"]", `[]`, ""},
		{"/d", `["{","]\\"]`, ""},
		{"/d/1", `"]\\"`, ""},
		{"/d/2", "", "nothing at response.data /d/2"},
		{"/d/-1", "", "nothing at response.data /d/-1"},
		{"/a/items/0", `{"n":1.50e3,"s":"x/y"}`, ""},
		{"a.items.0.n", `1.50e3`, ""},
		{"$.a.items.1", `2`, ""},
		{"/b", `"~/"`, ""},
		{"/a/items/2", "", "nothing at response.data /a/items/2"},
		{"/a/missing/x", "", "nothing at response.data /a/missing"},
		{"/b/x", "", "nothing at response.data /b/x"},
	} {
		p, err := parsePath(c.path)
		if err != nil {
			t.Fatal(err)
		}
		got, err := selectJSON(body, p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.path, err, c.err)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.path, got, err, c.want)
		}
	}
	for _, bad := range []string{`{"a": `, `<html>`, `{"a": 1} tail`} {
		if _, err := selectJSON([]byte(bad), nil); err == nil || !strings.Contains(err.Error(), "not JSON") {
			t.Errorf("%q: err %v", bad, err)
		}
		if _, err := selectJSON([]byte(bad), []string{"a"}); err == nil {
			t.Errorf("%q /a: no error", bad)
		}
	}
}

// FuzzSelectJSON checks the walk of selectJSON against decoding the whole
// body with encoding/json.
func FuzzSelectJSON(f *testing.F) {
	f.Add([]byte(`{"a": {"items": [{"n": 1.5}, 2]}, "b": "x"}`), "/a/items/0")
	f.Add([]byte(`{"a": 1, "a": [true, "}"], "\u0061b": {"\"": null}}`), "a.1")
	f.Add([]byte(`[[], {}, "x\\\"]"]`), "/2")
	f.Fuzz(func(t *testing.T, body []byte, p string) {
		path, err := parsePath(p)
		if err != nil {
			return
		}
		got, err := selectJSON(body, path)
		whole, derr := decodeJSON(body)
		if derr != nil {
			if err == nil {
				t.Fatalf("%q is not JSON, yet selected %s", body, got)
			}
			return
		}
		want, ok := lookup(whole, path)
		if !ok {
			if err == nil {
				t.Fatalf("%q %s: selected %s, want nothing", body, p, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q %s: %v, want %v", body, p, err, want)
		}
		g, err := decodeJSON(got)
		if err != nil || mustJSON(t, g) != mustJSON(t, want) {
			t.Fatalf("%q %s: selected %s, want %s", body, p, got, mustJSON(t, want))
		}
	})
}

func TestGuardRefusal(t *testing.T) {
	base, _ := url.Parse("https://api.example.com")
	g, err := newGuard(base, []string{"cdn.example.net", "files.example.org:8443", "*.assets.example", "[::1]:9000", "10.0.0.1"}, false)
	if err != nil {
		t.Fatal(err)
	}
	for u, allowed := range map[string]bool{
		"https://api.example.com/x":       true,
		"https://API.Example.com.:443/x":  true,
		"https://api.example.com:8443/x":  false,
		"http://api.example.com/x":        false,
		"ftp://api.example.com/x":         false,
		"https://example.com/x":           false,
		"https://evil-api.example.com/x":  false,
		"https://cdn.example.net:1234/x":  true,
		"https://files.example.org:8443/": true,
		"https://files.example.org/":      false,
		"https://a.assets.example/":       true,
		"https://a.b.assets.example/":     true,
		"https://assets.example/":         false,
		"https://evilassets.example/":     false,
		"https://[::1]:9000/":             true,
		"https://[::1]:9001/":             false,
		"https://10.0.0.1:1/":             true,
	} {
		parsed, err := url.Parse(u)
		if err != nil {
			t.Fatal(err)
		}
		if why := g.refusal(parsed); (why == "") != allowed {
			t.Errorf("%s: refusal %q, want allowed %v", u, why, allowed)
		}
	}
}

// TestHTTPIgnoresProxyEnvironment: a proxy named in the environment would
// be dialled instead of the destination, so the address check would see
// the proxy's address; the source's client never uses one. The control is
// a transport that reads the environment as net/http's default one does.
func TestHTTPIgnoresProxyEnvironment(t *testing.T) {
	target, targetRec := server(t, jsonReply(`{"via": "direct"}`))
	proxy, proxyRec := server(t, jsonReply(`{"via": "proxy"}`))
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	_, port, _ := net.SplitHostPort(target.Listener.Addr().String())
	src := open(t, HTTPSource{BaseURL: "http://shop.example:" + port, AllowPrivate: true})
	src.guard.resolve = func(addr string) string { return strings.Replace(addr, "shop.example:", "127.0.0.1:", 1) }
	b := compile(t, HTTPBinding{Source: "api"}, src, Input{})
	if _, err := b.do(context.Background(), &Request{}); err != nil || targetRec.count() != 1 || proxyRec.count() != 0 {
		t.Fatalf("err %v, %d requests to the destination, %d to the proxy", err, targetRec.count(), proxyRec.count())
	}
	t.Run("control", func(t *testing.T) {
		fromEnv := httpproxy.FromEnvironment().ProxyFunc()
		src.transport.Proxy = func(r *http.Request) (*url.URL, error) { return fromEnv(r.URL) }
		src.transport.CloseIdleConnections()
		if _, err := b.do(context.Background(), &Request{}); err != nil || proxyRec.count() != 1 {
			t.Fatalf("err %v, %d requests to the proxy", err, proxyRec.count())
		}
	})
}

// TestHTTPCompressedResponse: the cap counts the bytes after decompression,
// so a small gzip body that inflates past it fails; the control is a cap
// above its inflated size.
func TestHTTPCompressedResponse(t *testing.T) {
	inflated := `"` + strings.Repeat("a", 256<<10) + `"`
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, inflated)
	zw.Close()
	srv, _ := server(t, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gz.Bytes())
	})
	for _, limit := range []int64{64 << 10, 512 << 10} {
		b := compile(t, HTTPBinding{Source: "api"}, open(t, HTTPSource{BaseURL: srv.URL, AllowPrivate: true, MaxResponseBytes: limit}), Input{})
		out, err := b.do(context.Background(), &Request{})
		if limit < int64(len(inflated)) {
			if err == nil || !strings.Contains(err.Error(), "over max_response_bytes") {
				t.Errorf("a %d-byte gzip body inflating to %d bytes under a cap of %d: err %v", gz.Len(), len(inflated), limit, err)
			}
		} else if err != nil || out.ResponseBytes != len(inflated) {
			t.Errorf("control: err %v, %d bytes", err, out.ResponseBytes)
		}
	}
}

// decodeJSON and lookup are the reference selectJSON is checked against.
func decodeJSON(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// lookup follows a parsed path into a decoded JSON value.
func lookup(v any, path []string) (any, bool) {
	for _, step := range path {
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[step]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// A redirect to another port of the same host, or to another scheme, is
// another origin: the request that follows it carries no credential (the
// standard headers and those filled from ${NAME}). The control is a
// redirect within the origin, which keeps them.
func TestHTTPRedirectDropsCredentialsAcrossOrigins(t *testing.T) {
	other, otherRec := server(t, jsonReply(`{"reached": true}`))
	_, port, _ := net.SplitHostPort(other.Listener.Addr().String())
	env := mapEnv(map[string]string{"TOKEN": "t0ps3cret", "KEY": "k3y-value"})
	for _, tc := range []struct {
		name     string
		to       func(front string) string
		sameSite bool
	}{
		{"the same host, another port", func(string) string { return other.URL + "/x" }, false},
		{"localhost for 127.0.0.1, another port", func(string) string { return "http://localhost:" + port + "/x" }, false},
		{"control: the same origin", func(front string) string { return front + "/x" }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var front *httptest.Server
			var frontRec *seen
			front, frontRec = server(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/go" {
					http.Redirect(w, r, tc.to(front.URL), http.StatusFound)
					return
				}
				jsonReply(`{"reached": true}`)(w, r)
			})
			src := open(t, HTTPSource{BaseURL: front.URL, AllowPrivate: true, AllowHosts: []string{"127.0.0.1", "localhost"},
				Headers: map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Api-Key": "${KEY}", "X-Trace": "plain"}})
			b := compile(t, HTTPBinding{Source: "api", Path: "/go", Headers: map[string]string{"Cookie": "sid=${KEY}"}}, src, Input{})
			if _, err := b.do(context.Background(), &Request{Env: env}); err != nil {
				t.Fatal(err)
			}
			rec := otherRec
			if tc.sameSite {
				rec = frontRec
			}
			rec.mu.Lock()
			h := rec.header
			rec.mu.Unlock()
			if h.Get("X-Trace") != "plain" || h.Get("Accept") == "" {
				t.Errorf("plain headers lost on the redirect: %v", h)
			}
			creds := h.Get("Authorization") + h.Get("X-Api-Key") + h.Get("Cookie")
			if tc.sameSite {
				if h.Get("Authorization") != "Bearer t0ps3cret" || h.Get("X-Api-Key") != "k3y-value" || h.Get("Cookie") != "sid=k3y-value" {
					t.Errorf("control: credentials lost within the origin: %v", h)
				}
				return
			}
			if creds != "" {
				t.Errorf("credentials reached another origin: %v", h)
			}
		})
	}
}
