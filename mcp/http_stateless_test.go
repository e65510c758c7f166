package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// roundRobin is a reverse proxy that sends each request to the next of
// its backends in turn, and counts the tools/call requests each got.
type roundRobin struct {
	*httptest.Server
	mu    sync.Mutex
	calls map[string]int // tools/call requests by backend
}

type backendKey struct{}

func newRoundRobin(t *testing.T, backends ...string) *roundRobin {
	rr := &roundRobin{calls: map[string]int{}}
	var urls []*url.URL
	for _, b := range backends {
		u, err := url.Parse(b)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	p := &httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(r.In.Context().Value(backendKey{}).(*url.URL)) },
		FlushInterval: -1,
	}
	var next atomic.Int64
	rr.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := urls[int(next.Add(1)-1)%len(urls)]
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct{ Method string }
		if json.Unmarshal(body, &m) == nil && m.Method == "tools/call" {
			rr.mu.Lock()
			rr.calls[to.Host]++
			rr.mu.Unlock()
		}
		p.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), backendKey{}, to)))
	}))
	t.Cleanup(rr.Close)
	return rr
}

// statelessReplica is one server of a t.who tool that needs consent and
// says who called, behind the handler of o.
func statelessReplica(t *testing.T, o mcp.HTTPOptions) string {
	r := tooling.NewRegistry()
	if err := r.Add(tooling.Tool{Name: "t.who", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Consent: true},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]string{"subject": c.Principal.Subject, "client": c.Principal.Client}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(r, mcp.Options{})
	hs := httptest.NewServer(srv.Handler(o))
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return hs.URL
}

// TestStatelessBehindRoundRobin: two servers, stateless, behind a proxy
// that sends each request to the other: the go-sdk client connects, lists
// the tools, is asked for consent and answers, and its calls, served by
// both, are made by its API key's principal and name the client. The
// control: the same servers keeping sessions fail behind the same proxy,
// as a session opened on one is unknown to the other.
func TestStatelessBehindRoundRobin(t *testing.T) {
	keys := []mcp.APIKey{{SHA256: mcp.APIKeyDigest("key-ci"), Principal: tooling.Principal{Subject: "ci-bot", Tenant: "acme"}}}
	connect := func(proxy string, so ...*sdk.ClientSessionOptions) (*sdk.ClientSession, *atomic.Int64, error) {
		var asked atomic.Int64
		c := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "2.0"}, &sdk.ClientOptions{
			ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
				asked.Add(1)
				return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
			}})
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: proxy,
			HTTPClient: &http.Client{Transport: headerRT{"Authorization": "Bearer key-ci"}}, MaxRetries: -1}, append(so, nil)[0])
		return cs, &asked, err
	}

	o := mcp.HTTPOptions{APIKeys: keys, Stateless: true}
	proxy := newRoundRobin(t, statelessReplica(t, o), statelessReplica(t, o))
	cs, asked, err := connect(proxy.URL)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	defer cs.Close()
	for range 3 {
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "t.who" {
			t.Fatalf("tools/list: %+v, %v", list, err)
		}
	}
	for i := range 4 {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.who"})
		if err != nil || res.IsError {
			t.Fatalf("call %d: %v %+v", i, err, res)
		}
		var who map[string]string
		if err := json.Unmarshal([]byte(text(res)), &who); err != nil || who["subject"] != "ci-bot" || who["client"] != "agent 2.0" {
			t.Fatalf("call %d was made by %q (%v); want ci-bot with client agent 2.0", i, text(res), err)
		}
	}
	if asked.Load() != 4 {
		t.Errorf("the client was asked for consent %d times, want 4 (once a call)", asked.Load())
	}
	proxy.mu.Lock()
	if len(proxy.calls) != 2 {
		t.Errorf("tools/call requests by server: %v; want both to serve some", proxy.calls)
	}
	proxy.mu.Unlock()

	// A client of an earlier protocol declares its capabilities only at
	// initialize, which a stateless server forgets: it is not asked, and
	// the call is refused for want of consent.
	old, asked, err := connect(proxy.URL, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect with protocol 2025-11-25: %v", err)
	}
	defer old.Close()
	res, err := old.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.who"})
	if err != nil || !res.IsError || !strings.Contains(text(res), "consent_required") || asked.Load() != 0 {
		t.Errorf("a 2025-11-25 client, stateless: %v %s, asked %d times; want consent_required, never asked", err, text(res), asked.Load())
	}

	// The control: sessions, round robin.
	o.Stateless = false
	proxy = newRoundRobin(t, statelessReplica(t, o), statelessReplica(t, o))
	cs, _, err = connect(proxy.URL)
	if err == nil {
		defer cs.Close()
		_, err = cs.ListTools(context.Background(), nil)
		if err == nil {
			_, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.who"})
		}
	}
	if err == nil {
		t.Fatal("servers that keep sessions, behind a round robin: the client worked; want it to fail (its session is on one server)")
	}
}
