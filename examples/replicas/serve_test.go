package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/redistest"
	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/mcp"
)

// buildToolexplorer builds the toolexplorer command into a temporary
// directory, once for the test binary (TestMain removes it).
func buildToolexplorer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds toolexplorer")
	}
	bin, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var (
	builtDir string
	built    = sync.OnceValues(func() (string, error) {
		goTool, err := exec.LookPath("go")
		if err != nil {
			return "", err
		}
		if builtDir, err = os.MkdirTemp("", "replicas-toolexplorer-"); err != nil {
			return "", err
		}
		bin := filepath.Join(builtDir, "toolexplorer")
		build := exec.Command(goTool, "build", "-o", bin, "github.com/toolexplorer/toolexplorer/cmd/toolexplorer")
		build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
		if out, err := build.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build: %v\n%s", err, out)
		}
		return bin, nil
	})
)

// served is a running toolexplorer serve --http.
type served struct {
	url    string // http://host:port/
	ledger string // its ledger's file
	stop   func() // interrupts it and waits until it exits
}

// startServe starts toolexplorer serve --http on a free loopback port with
// the config cfg and a state directory of its own (its ledger and control
// socket); it is interrupted when the test ends and must exit 0.
func startServe(t *testing.T, bin, cfg string, flags ...string) served {
	t.Helper()
	state := t.TempDir()
	cmd := exec.Command(bin, append([]string{"serve", "--config", cfg, "--http", "127.0.0.1:0"}, flags...)...)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "TOOLEXPLORER_LEDGER=", "TOOLEXPLORER_CONFIG=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stderr)
	addr := ""
	for addr == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "serving MCP at "); ok {
			addr = strings.TrimSpace(after)
		}
	}
	var rest bytes.Buffer
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		for lines.Scan() {
			rest.WriteString(lines.Text() + "\n")
		}
	}()
	stop := sync.OnceFunc(func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		err := cmd.Wait()
		<-copied
		if err != nil {
			t.Errorf("serve: %v\n%s", err, rest.String())
		}
	})
	t.Cleanup(stop)
	if addr == "" {
		t.Fatalf("serve --http said nowhere it serves")
	}
	return served{url: addr, ledger: filepath.Join(state, "toolexplorer", "ledger.jsonl"), stop: stop}
}

// proxy is a round-robin reverse proxy over the replicas: each request
// goes to the next one in turn, or, when it sticks to sessions, a request
// of a session to the replica that opened it (affinity on the
// Mcp-Session-Id header). It counts the requests of each method that each
// replica got.
type proxy struct {
	*httptest.Server
	mu       sync.Mutex
	got      map[string]map[string]int // method -> replica's host -> requests
	sessions map[string]*url.URL       // session -> the replica that opened it
}

type replicaKey struct{}

func newProxy(t *testing.T, replicas []served, sticky bool) *proxy {
	t.Helper()
	var urls []*url.URL
	for _, r := range replicas {
		u, err := url.Parse(r.url)
		if err != nil {
			t.Fatal(err)
		}
		urls = append(urls, u)
	}
	p := &proxy{got: map[string]map[string]int{}, sessions: map[string]*url.URL{}}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(r.In.Context().Value(replicaKey{}).(*url.URL)) },
		ModifyResponse: func(resp *http.Response) error {
			if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
				p.mu.Lock()
				p.sessions[id] = resp.Request.Context().Value(replicaKey{}).(*url.URL)
				p.mu.Unlock()
			}
			return nil
		},
		FlushInterval: -1,
	}
	var next atomic.Int64
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := urls[int(next.Add(1)-1)%len(urls)]
		if id := r.Header.Get("Mcp-Session-Id"); sticky && id != "" {
			p.mu.Lock()
			if u := p.sessions[id]; u != nil {
				to = u
			}
			p.mu.Unlock()
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		var m struct{ Method string }
		_ = json.Unmarshal(body, &m)
		p.mu.Lock()
		if p.got[m.Method] == nil {
			p.got[m.Method] = map[string]int{}
		}
		p.got[m.Method][to.Host]++
		p.mu.Unlock()
		rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), replicaKey{}, to)))
	}))
	t.Cleanup(p.Close)
	return p
}

// spread is how many replicas got requests of method.
func (p *proxy) spread(method string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.got[method])
}

type bearer string

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(req)
}

// serveConfig is the config of the served replicas: their shared state on
// srv under a prefix of their own, a limit of 10 calls a minute of
// demo.echo per subject, an API key of subject ci-bot in tenant acme, and
// HTTP without sessions or with.
func serveConfig(t *testing.T, srv *redistest.Server, stateless bool) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	cfg := filepath.Join(t.TempDir(), "config.json")
	doc := `{
  "state": {"redis": {"addr": "` + srv.Addr + `", "prefix": "serve` + hex.EncodeToString(b[:]) + `", "timeout": "2s"}},
  "limits": [{"name": "echoes", "tools": ["demo.echo"], "per": "subject", "per_minute": 10, "burst": 10}],
  "serve": {"stateless": ` + fmt.Sprint(stateless) + `, "api_keys": {"ci": {"sha256": "` + mcp.APIKeyDigest("key-ci") + `", "subject": "ci-bot", "tenant": "acme"}}}
}`
	if err := os.WriteFile(cfg, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestServeReplicasBehindARoundRobin: three toolexplorer serve --http
// replicas, stateless, sharing a real redis-server, behind a reverse proxy
// that sends each request to the next replica. The go-sdk client,
// calling with an API key, sees one tool list whichever replica answers;
// a limit of 10 calls a minute allows 10 across the three, not 30; and
// each replica's ledger records the calls it served as made by the API
// key's principal.
func TestServeReplicasBehindARoundRobin(t *testing.T) {
	bin := buildToolexplorer(t)
	srv := redistest.Start(t)
	cfg := serveConfig(t, srv, true)
	replicas := []served{startServe(t, bin, cfg), startServe(t, bin, cfg), startServe(t, bin, cfg)}
	p := newProxy(t, replicas, false)

	ctx := context.Background()
	cs, err := connectAgent(p.URL)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	defer cs.Close()

	var lists [][]byte
	for range 3 {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		b, _ := json.Marshal(res.Tools)
		lists = append(lists, b)
	}
	if p.spread("tools/list") != 3 || !bytes.Equal(lists[0], lists[1]) || !bytes.Equal(lists[1], lists[2]) || !bytes.Contains(lists[0], []byte(`"demo.echo"`)) {
		t.Fatalf("tools/list from %d replicas; equal: %v, %v; want the same list, with demo.echo, from each of the three",
			p.spread("tools/list"), bytes.Equal(lists[0], lists[1]), bytes.Equal(lists[1], lists[2]))
	}

	start := time.Now()
	codes := map[string]int{}
	for i := range 30 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "demo.echo", Arguments: map[string]any{"text": fmt.Sprint(i)}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		code := "ok"
		if res.IsError {
			// The full result: structuredContent, or in _meta for a tool
			// with an output schema.
			full := res.StructuredContent
			if full == nil {
				full = res.Meta[mcp.ResultMetaKey]
			}
			var r struct{ Code string }
			b, _ := json.Marshal(full)
			_ = json.Unmarshal(b, &r)
			code = r.Code
		}
		codes[code]++
	}
	// A token comes back every 6 s: on a machine so loaded that the 30
	// calls took that long, those tokens were rightly given too.
	refilled := int(time.Since(start) / (6 * time.Second))
	if codes["ok"] < 10 || codes["ok"] > 10+refilled || codes["ok"]+codes["rate_limited"] != 30 || p.spread("tools/call") != 3 {
		t.Fatalf("30 calls over %d replicas with a limit of 10 a minute: %v; want 10 ok (%d more refilled at most), the rest rate_limited",
			p.spread("tools/call"), codes, refilled)
	}
	cs.Close()

	// The ledgers, once the replicas have ended: each replica recorded
	// calls, each made by the API key's principal, and the ten that ran
	// are all there is.
	ran := 0
	for i, r := range replicas {
		r.stop()
		calls, err := ledger.Read(r.ledger, ledger.Filter{Tool: "demo.echo"})
		if err != nil {
			t.Fatal(err)
		}
		if len(calls) == 0 {
			t.Errorf("replica %d recorded no call", i)
		}
		for _, c := range calls {
			who := c.Begin.Principal
			if who == nil || who.Subject != "ci-bot" || who.Tenant != "acme" || who.Auth != "api_key" || !strings.HasPrefix(who.Client, "agent") {
				t.Errorf("replica %d recorded a call by %+v; want ci-bot of acme, by API key, from the agent", i, who)
			}
			if c.Status == "ok" {
				ran++
			}
		}
	}
	if ran != codes["ok"] {
		t.Errorf("the ledgers hold %d calls that ran, the client saw %d", ran, codes["ok"])
	}
}

// connectAgent connects the go-sdk client to url with the API key of
// ci-bot.
func connectAgent(url string) (*sdk.ClientSession, error) {
	return sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1.0"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer("key-ci")}, MaxRetries: -1}, nil)
}

// TestServeReplicasWithSessionsNeedAffinity: replicas that keep MCP
// sessions (serve.stateless false, the default) fail a client behind a
// plain round robin, as its session lives on the replica that opened it;
// behind a proxy that sends a session's requests to that replica
// (affinity on Mcp-Session-Id) they serve it.
func TestServeReplicasWithSessionsNeedAffinity(t *testing.T) {
	bin := buildToolexplorer(t)
	srv := redistest.Start(t)
	cfg := serveConfig(t, srv, false)
	replicas := []served{startServe(t, bin, cfg), startServe(t, bin, cfg), startServe(t, bin, cfg)}

	use := func(url string) error {
		cs, err := connectAgent(url)
		if err != nil {
			return err
		}
		defer cs.Close()
		for range 3 {
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				return err
			}
			if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "demo.echo", Arguments: map[string]any{"text": "hi"}}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := use(newProxy(t, replicas, false).URL); err == nil || !strings.Contains(err.Error(), "session not found") {
		t.Errorf("sessions behind a plain round robin: %v; want the client to fail, its session not found", err)
	}
	if err := use(newProxy(t, replicas, true).URL); err != nil {
		t.Errorf("sessions behind a proxy with affinity: %v", err)
	}
}
