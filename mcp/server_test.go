package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

// TestMain runs the tests, then fails on any goroutine left behind. goleak.Find alone gives
// ending goroutines (closed connections, finished calls) about 0.4 s, which a loaded machine
// can outlast: it is repeated until none is left, for a minute at most (a hang guard).
func TestMain(m *testing.M) {
	if confine.Main() { // a confined child (of a confined server) serves and exits here
		return
	}
	if servedPeer() { // a server of BenchmarkServedPeers
		return
	}
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(time.Minute)
		for {
			// The threads confined children are started from live as long as the process.
			err := goleak.Find(goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox/confine.spawner"))
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
				code = 1
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	os.Exit(code)
}

var echoInput = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"},"n":{"type":"integer","minimum":0}},"required":["text"],"additionalProperties":false}`)

// testRegistry holds tools for every path of a call: ok, tool error,
// consent, a blocking tool and one that reports progress.
func testRegistry(t *testing.T) (*tooling.Registry, chan struct{}, chan error) {
	t.Helper()
	r := tooling.NewRegistry()
	started, ended := make(chan struct{}, 1), make(chan error, 1)
	r.Register(
		tooling.Tool{Name: "t.echo", Title: "Echo", Description: "echoes", Input: echoInput,
			Output: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Meta:   tooling.Meta{Concurrency: tooling.ReadOnly, Idempotent: true},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				return map[string]any{"text": callargs.String(c.Args, "text")}, nil
			}},
		tooling.Tool{Name: "t.fail", Description: "fails",
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				return nil, errors.New("it broke")
			}},
		tooling.Tool{Name: "t.write", Title: "Write", Description: "writes",
			Meta: tooling.Meta{Concurrency: tooling.Exclusive, Effects: tooling.EffectWrite, Consent: true},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				return "written", nil
			}},
		tooling.Tool{Name: "t.block", Description: "blocks until canceled",
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				started <- struct{}{}
				<-ctx.Done()
				ended <- ctx.Err()
				return nil, ctx.Err()
			}},
		tooling.Tool{Name: "t.progress", Description: "reports progress",
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				for i := 1; i <= 3; i++ {
					c.ReportProgress(float64(i), 3, fmt.Sprintf("step %d", i))
				}
				return "done", nil
			}},
	)
	return r, started, ended
}

// connect serves srv in memory to a go-sdk client with opts, speaking the
// newest protocol.
func connect(t *testing.T, srv *mcp.Server, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	return connectVersion(t, srv, opts, "")
}

// connectVersion is connect speaking protocol version v ("": the newest).
func connectVersion(t *testing.T, srv *mcp.Server, opts *sdk.ClientOptions, v string) *sdk.ClientSession {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: v})
	if err != nil {
		t.Fatal(err)
	}
	if v != "" && cs.InitializeResult() != nil && cs.InitializeResult().ProtocolVersion != v {
		t.Fatalf("negotiated %q, want %q", cs.InitializeResult().ProtocolVersion, v)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func call(t *testing.T, cs *sdk.ClientSession, name string, args any) *sdk.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func text(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// resultOf decodes the structured content of an error result.
func resultOf(t *testing.T, res *sdk.CallToolResult) tooling.Result {
	t.Helper()
	sc := res.StructuredContent
	if m, ok := res.Meta[mcp.ResultMetaKey]; ok {
		if sc != nil {
			t.Errorf("an error result with both structuredContent and %s", mcp.ResultMetaKey)
		}
		sc = m
	}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	var r tooling.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
	return r
}

func listAll(t *testing.T, cs *sdk.ClientSession) []*sdk.Tool {
	t.Helper()
	var out []*sdk.Tool
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tool)
	}
	return out
}

func TestListIsTheExportPaginated(t *testing.T) {
	r, _, _ := testRegistry(t)
	cs := connect(t, mcp.NewServer(r, mcp.Options{PageSize: 2}), nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 2 || res.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q; want 2 and a cursor", len(res.Tools), res.NextCursor)
	}
	got := listAll(t, cs)
	want := export.MCP(context.Background(), r, export.Options{}).Tools
	if len(got) != len(want) {
		t.Fatalf("listed %d tools, the export has %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		gb, _ := json.Marshal(map[string]any{"name": g.Name, "title": g.Title, "description": g.Description,
			"inputSchema": g.InputSchema, "outputSchema": g.OutputSchema, "annotations": g.Annotations})
		wb, _ := json.Marshal(map[string]any{"name": w.Name, "title": w.Title, "description": w.Description,
			"inputSchema": json.RawMessage(w.InputSchema), "outputSchema": outputOrNil(w.OutputSchema), "annotations": w.Annotations})
		if !jsonEqual(t, gb, wb) {
			t.Errorf("tool %d:\n got %s\nwant %s", i, gb, wb)
		}
	}
}

func outputOrNil(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func TestCallResults(t *testing.T) {
	r, _, _ := testRegistry(t)
	cs := connect(t, mcp.NewServer(r, mcp.Options{}), nil)

	ok := call(t, cs, "t.echo", map[string]any{"text": "hi"})
	if ok.IsError || text(ok) != `{"text":"hi"}` {
		t.Errorf("ok call: isError %v, text %q", ok.IsError, text(ok))
	}
	if m, _ := ok.StructuredContent.(map[string]any); m["text"] != "hi" {
		t.Errorf("ok call: structured content %v", ok.StructuredContent)
	}

	fail := call(t, cs, "t.fail", nil)
	if !fail.IsError || !strings.HasPrefix(text(fail), "tool_error: ") || !strings.Contains(text(fail), "it broke") {
		t.Errorf("tool error: isError %v, text %q", fail.IsError, text(fail))
	}
	if res := resultOf(t, fail); res.Code != codes.ToolError || res.Origin != tooling.OriginLLM || res.Status != "error" {
		t.Errorf("tool error: structured result %+v", res)
	}

	bad := call(t, cs, "t.echo", map[string]any{"n": -1, "extra": true})
	res := resultOf(t, bad)
	if !bad.IsError || res.Code != codes.ValidationError {
		t.Fatalf("invalid arguments: isError %v, code %q", bad.IsError, res.Code)
	}
	for _, p := range []string{"/n", "/extra", "/text"} {
		if !strings.Contains(text(bad), p+": ") {
			t.Errorf("invalid arguments: text %q does not name %s", text(bad), p)
		}
	}
	if len(res.Fields) != 3 {
		t.Errorf("invalid arguments: fields %v, want 3", res.Fields)
	}
}

func TestOriginPerListener(t *testing.T) {
	r, _, _ := testRegistry(t)
	r.Register(tooling.Tool{Name: "t.app_only", Description: "app only",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Origins: []tooling.Origin{tooling.OriginApp}},
		Run:  func(ctx context.Context, c tooling.Call) (any, error) { return "ok", nil }})
	llm := connect(t, mcp.NewServer(r, mcp.Options{}), nil)
	for _, tool := range listAll(t, llm) {
		if tool.Name == "t.app_only" {
			t.Errorf("the llm listener lists t.app_only")
		}
	}
	if res := resultOf(t, call(t, llm, "t.app_only", nil)); res.Code != codes.OriginDenied && res.Code != codes.NotFound {
		t.Errorf("llm call of t.app_only: code %q", res.Code)
	}
	app := connect(t, mcp.NewServer(r, mcp.Options{Origin: tooling.OriginApp}), nil)
	if res := call(t, app, "t.app_only", nil); res.IsError {
		t.Errorf("app listener: %s", text(res))
	}
}

// protocols are the protocol versions the tests speak: the newest, where
// the server asks for input in its result, and one before it, where the
// server sends elicitation/create during the call.
var protocols = []string{"", "2025-11-25"}

func TestConsent(t *testing.T) {
	for _, v := range protocols {
		t.Run("protocol="+v, func(t *testing.T) { testConsent(t, v) })
	}
}

func testConsent(t *testing.T, v string) {
	r, _, _ := testRegistry(t)
	srv := mcp.NewServer(r, mcp.Options{})

	// No elicitation: refused.
	plain := connectVersion(t, srv, nil, v)
	res := call(t, plain, "t.write", nil)
	if got := resultOf(t, res); !res.IsError || got.Code != codes.ConsentRequired {
		t.Errorf("client without elicitation: code %q, text %q", got.Code, text(res))
	}

	// Elicitation: asked, and the answer decides.
	var mu sync.Mutex
	var asked []string
	answer := true
	elicit := connectVersion(t, srv, &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, req.Params.Message)
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": answer}}, nil
	}}, v)
	if res := call(t, elicit, "t.write", nil); res.IsError || text(res) != `"written"` {
		t.Errorf("consent given: isError %v, text %q", res.IsError, text(res))
	}
	mu.Lock()
	answer = false
	mu.Unlock()
	if res := call(t, elicit, "t.write", nil); resultOf(t, res).Code != codes.ConsentRequired {
		t.Errorf("consent refused: text %q", text(res))
	}
	mu.Lock()
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "t.write wants to write: allow once?") {
		t.Errorf("asked %q", asked)
	}
	mu.Unlock()

	// Granted by the listener: not asked.
	granted := connectVersion(t, mcp.NewServer(r, mcp.Options{Consent: []string{"t.write"}}), nil, v)
	if res := call(t, granted, "t.write", nil); res.IsError {
		t.Errorf("granted: %s", text(res))
	}
}

func TestCancelCancelsTheCall(t *testing.T) {
	for _, v := range protocols {
		t.Run("protocol="+v, func(t *testing.T) {
			r, started, ended := testRegistry(t)
			testCancel(t, connectVersion(t, mcp.NewServer(r, mcp.Options{}), nil, v), started, ended)
		})
	}
}

// TestHTTPCancel: a call canceled by an HTTP client (its stream closed,
// or notifications/cancelled) cancels the call's context.
func TestHTTPCancel(t *testing.T) {
	for _, v := range protocols {
		t.Run("protocol="+v, func(t *testing.T) {
			r, started, ended := testRegistry(t)
			srv := mcp.NewServer(r, mcp.Options{})
			hs := httptest.NewServer(srv.Handler(mcp.HTTPOptions{}))
			defer hs.Close()
			defer srv.Close()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
				&sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			testCancel(t, cs, started, ended)
		})
	}
}

func testCancel(t *testing.T, cs *sdk.ClientSession, started chan struct{}, ended chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "t.block", Arguments: map[string]any{}})
		errc <- err
	}()
	<-started
	cancel()
	if err := <-ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the tool's context ended with %v, want canceled", err)
	}
	if err := <-errc; err == nil {
		t.Errorf("the canceled call returned no error")
	}
}

func TestProgress(t *testing.T) {
	r, _, _ := testRegistry(t)
	var mu sync.Mutex
	var got []string
	all := make(chan struct{})
	cs := connect(t, mcp.NewServer(r, mcp.Options{}), &sdk.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		p := req.Params
		got = append(got, fmt.Sprintf("%v %v/%v %s", p.ProgressToken, p.Progress, p.Total, p.Message))
		if len(got) == 3 {
			close(all)
		}
	}})
	params := &sdk.CallToolParams{Name: "t.progress", Arguments: map[string]any{}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", err, res)
	}
	<-all
	mu.Lock()
	defer mu.Unlock()
	if want := "tok 1/3 step 1,tok 2/3 step 2,tok 3/3 step 3"; strings.Join(got, ",") != want {
		t.Errorf("progress %q, want %q", got, want)
	}
}

func TestRefreshSendsListChanged(t *testing.T) {
	r, _, _ := testRegistry(t)
	srv := mcp.NewServer(r, mcp.Options{})
	changed := make(chan struct{}, 1)
	cs := connect(t, srv, &sdk.ClientOptions{ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	if srv.Refresh(context.Background()) {
		t.Errorf("Refresh with nothing changed reports a change")
	}
	if err := r.SetEnabled("t.echo", false); err != nil {
		t.Fatal(err)
	}
	if !srv.Refresh(context.Background()) {
		t.Fatalf("Refresh after disabling t.echo reports no change")
	}
	// On the newest protocol the client opens its subscriptions/listen stream after
	// Connect returns, and a change made before the server has the subscription reaches
	// no one. Until the notification comes, the change is made again (enable, refresh,
	// disable, refresh); the hang guard is generous.
	guard := time.After(2 * time.Minute)
	for waiting := true; waiting; {
		select {
		case <-changed:
			waiting = false
		case <-time.After(time.Second):
			t.Logf("no tools/list_changed yet: changing t.echo again")
			for _, on := range []bool{true, false} {
				if err := r.SetEnabled("t.echo", on); err != nil {
					t.Fatal(err)
				}
				if !srv.Refresh(context.Background()) {
					t.Fatalf("Refresh after setting t.echo enabled=%v reports no change", on)
				}
			}
		case <-guard:
			t.Fatal("no tools/list_changed notification within 2 minutes of the change")
		}
	}
	for _, tool := range listAll(t, cs) {
		if tool.Name == "t.echo" {
			t.Errorf("t.echo is still listed once disabled")
		}
	}
	if res := resultOf(t, call(t, cs, "t.echo", map[string]any{"text": "x"})); res.Code != "" && res.Code != codes.Disabled {
		t.Errorf("call of the disabled tool: code %q", res.Code)
	}
}

func TestHTTP(t *testing.T) {
	r, _, _ := testRegistry(t)
	srv := mcp.NewServer(r, mcp.Options{})
	hs := httptest.NewServer(srv.Handler(mcp.HTTPOptions{Token: "s3cret"}))
	defer hs.Close()
	defer srv.Close()

	connectHTTP := func(token string) (*sdk.ClientSession, error) {
		hc := &http.Client{Transport: headerRT{"Authorization": "Bearer " + token}}
		return sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: hc, MaxRetries: -1}, nil)
	}
	cs, err := connectHTTP("s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "t.echo", map[string]any{"text": "over http"}); res.IsError || !strings.Contains(text(res), "over http") {
		t.Errorf("http call: %q", text(res))
	}
	cs.Close()

	if _, err := connectHTTP("wrong"); err == nil {
		t.Errorf("a client with the wrong token connected")
	}

	// The same request refused for its Origin or its Host; the control
	// without either passes.
	post := func(h map[string]string) int {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer s3cret")
		for k, v := range h {
			if k == "Host" {
				req.Host = v
			} else {
				req.Header.Set(k, v)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(nil); code != http.StatusOK {
		t.Fatalf("control request: status %d", code)
	}
	if code := post(map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}); code != http.StatusForbidden {
		t.Errorf("cross-origin request: status %d, want 403", code)
	}
	if code := post(map[string]string{"Host": "evil.example"}); code != http.StatusForbidden {
		t.Errorf("rebinding Host: status %d, want 403", code)
	}
	http.DefaultClient.CloseIdleConnections()
}

type headerRT map[string]string

func (h headerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range h {
		req.Header.Set(k, v)
	}
	return http.DefaultTransport.RoundTrip(req)
}

func TestLoopback(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:8080": true, "localhost:1": true, "[::1]:2": true, ":8080": false, "0.0.0.0:1": false, "10.0.0.1:80": false, "example.com:80": false} {
		if got := mcp.Loopback(addr); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

// TestErrorOfToolWithOutputSchema: the Result of a failed call of a tool
// with an output schema rides in _meta, so that structuredContent never
// breaks the schema; without an output schema it is the structured content.
func TestErrorOfToolWithOutputSchema(t *testing.T) {
	r, _, _ := testRegistry(t)
	cs := connect(t, mcp.NewServer(r, mcp.Options{}), nil)
	withSchema := call(t, cs, "t.echo", map[string]any{})
	if withSchema.StructuredContent != nil || withSchema.Meta[mcp.ResultMetaKey] == nil {
		t.Errorf("t.echo (output schema) error: structuredContent %v, _meta %v", withSchema.StructuredContent, withSchema.Meta)
	}
	without := call(t, cs, "t.fail", nil)
	if without.StructuredContent == nil || without.Meta[mcp.ResultMetaKey] != nil {
		t.Errorf("t.fail (no output schema) error: structuredContent %v, _meta %v", without.StructuredContent, without.Meta)
	}
}

// A call is made by the listener's principal, or by the one the session's
// ctx carries, with the client's clientInfo.
func TestPrincipalPerListener(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.who", Description: "says who calls",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			p := c.Principal
			return p.String() + " auth=" + p.Auth + " client=" + p.Client, nil
		}})
	local := tooling.Principal{Subject: "alice", Tenant: "acme", Auth: "local"}
	cs := connect(t, mcp.NewServer(r, mcp.Options{Principal: local}), nil)
	if got := text(call(t, cs, "t.who", nil)); !strings.Contains(got, "alice@acme auth=local client=test 1") {
		t.Errorf("listener's principal: %q", got)
	}
	anon := connect(t, mcp.NewServer(r, mcp.Options{}), nil)
	if got := text(call(t, anon, "t.who", nil)); !strings.Contains(got, "anonymous auth= client=test 1") {
		t.Errorf("no principal: %q", got)
	}

	srv := mcp.NewServer(r, mcp.Options{Principal: local})
	ct, st := sdk.NewInMemoryTransports()
	ctx := tooling.ContextWithPrincipal(context.Background(), tooling.Principal{Subject: "bob", Auth: "host"})
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	bob, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "2.0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { bob.Close(); ss.Wait() }()
	if got := text(call(t, bob, "t.who", nil)); !strings.Contains(got, "bob auth=host client=agent 2.0") {
		t.Errorf("ctx's principal: %q", got)
	}
}

// tools/list shows each caller what the registry's Authorizer lets it
// see, and a call of a tool it may not call is forbidden.
func TestListPerPrincipal(t *testing.T) {
	r, _, _ := testRegistry(t)
	r.SetAuthorizer(onlyFor{"alice": "t.echo"})
	names := func(cs *sdk.ClientSession) string {
		var out []string
		for _, tool := range listAll(t, cs) {
			out = append(out, tool.Name)
		}
		return strings.Join(out, ",")
	}
	alice := connect(t, mcp.NewServer(r, mcp.Options{Principal: tooling.Principal{Subject: "alice"}}), nil)
	bob := connect(t, mcp.NewServer(r, mcp.Options{Principal: tooling.Principal{Subject: "bob"}}), nil)
	if got := names(alice); !strings.Contains(got, "t.echo") || !strings.Contains(got, "t.fail") {
		t.Errorf("alice lists %s", got)
	}
	if got := names(bob); strings.Contains(got, "t.echo") || got == "" {
		t.Errorf("bob lists %s", got)
	}
	if res := resultOf(t, call(t, bob, "t.echo", map[string]any{"text": "x"})); res.Code != codes.Forbidden {
		t.Errorf("bob calls t.echo: %q %q", res.Code, res.Message)
	}
	if res := call(t, alice, "t.echo", map[string]any{"text": "x"}); res.IsError {
		t.Errorf("alice calls t.echo: %s", text(res))
	}
}

// onlyFor lets a subject alone see and call its tool; the other tools are
// everyone's.
type onlyFor map[string]string

func (o onlyFor) Visible(p tooling.Principal, _ tooling.Origin, t *tooling.Tool) bool {
	for who, tool := range o {
		if tool == t.Name {
			return p.Subject == who
		}
	}
	return true
}

func (o onlyFor) Allow(_ context.Context, c *tooling.Call) error {
	if !o.Visible(c.Principal, c.Origin, &tooling.Tool{Name: c.Tool}) {
		return errors.New("not yours")
	}
	return nil
}

// TestListIsTheRegistryNow: a tool added to the registry after the server
// was made is listed, and callable, without a Refresh; one removed is
// not listed.
func TestListIsTheRegistryNow(t *testing.T) {
	r, _, _ := testRegistry(t)
	srv := mcp.NewServer(r, mcp.Options{})
	cs := connect(t, srv, nil)
	r.Register(tooling.Tool{Name: "t.late", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(context.Context, tooling.Call) (any, error) { return "late", nil }})
	listed := func(name string) bool {
		for _, tool := range listAll(t, cs) {
			if tool.Name == name {
				return true
			}
		}
		return false
	}
	if !listed("t.late") {
		t.Fatal("a tool registered after the server was made is not listed")
	}
	if res := call(t, cs, "t.late", map[string]any{}); res.IsError || text(res) != `"late"` {
		t.Fatalf("t.late: %s", text(res))
	}
	if err := r.Replace([]string{"t.late"}, nil); err != nil {
		t.Fatal(err)
	}
	if listed("t.late") {
		t.Fatal("a tool removed from the registry is still listed")
	}
}

// TestDetachGivesTheRegistryBack: a registry that outlives its server
// decides consent as before it served (none to ask: consent_required, not
// the server's "no one to ask"), and its state changes no longer reach the
// server; Serve detaches when it returns.
func TestDetachGivesTheRegistryBack(t *testing.T) {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "t.write", Meta: tooling.Meta{Effects: tooling.EffectWrite},
		Run: func(context.Context, tooling.Call) (any, error) { return "ran", nil }})
	before, _ := reg.Execute(context.Background(), "t.write", nil)
	srv := mcp.NewServer(reg, mcp.Options{})
	during, _ := reg.Execute(context.Background(), "t.write", nil)
	if during.Code == before.Code && during.Message == before.Message {
		t.Fatalf("control: the server's consent function changes nothing (%s %s)", during.Code, during.Message)
	}
	srv.Detach()
	after, _ := reg.Execute(context.Background(), "t.write", nil)
	if after.Code != before.Code || after.Message != before.Message {
		t.Errorf("after Detach: %s %q, want as before the server: %s %q", after.Code, after.Message, before.Code, before.Message)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, st := sdk.NewInMemoryTransports()
	_ = mcp.Serve(ctx, reg, st, mcp.Options{})
	if again, _ := reg.Execute(context.Background(), "t.write", nil); again.Code != before.Code || again.Message != before.Message {
		t.Errorf("after Serve returned: %s %q, want %s %q", again.Code, again.Message, before.Code, before.Message)
	}
}
