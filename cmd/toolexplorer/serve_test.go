package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveStdio runs `toolexplorer serve args...` in process and connects a
// go-sdk client to its stdin and stdout.
func serveStdio(t *testing.T, opts *sdk.ClientOptions, args ...string) *sdk.ClientSession {
	t.Helper()
	return serveStdioErr(t, opts, &syncBuffer{}, args...)
}

// serveStdioErr is serveStdio writing serve's stderr to stderr.
func serveStdioErr(t *testing.T, opts *sdk.ClientOptions, stderr *syncBuffer, args ...string) *sdk.ClientSession {
	t.Helper()
	t.Cleanup(func() { tooling.Default().SetConsentFunc(nil) })
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), append([]string{"serve"}, args...), inR, outW, stderr)
		outW.Close()
		done <- code
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(),
		&sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		if code := <-done; code != exitOK {
			t.Errorf("serve ended with exit %d; stderr: %s", code, stderr.String())
		}
		inR.Close()
	})
	return cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name, args string) (*sdk.CallToolResult, tooling.Result) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s %s: %v", name, args, err)
	}
	var txt strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			txt.WriteString(tc.Text)
		}
	}
	var r tooling.Result
	if res.IsError {
		sc := res.StructuredContent
		if m, ok := res.Meta[mcp.ResultMetaKey]; ok {
			sc = m
		}
		b, _ := json.Marshal(sc)
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
		if !strings.HasPrefix(txt.String(), string(r.Code)+": "+r.Message) {
			t.Errorf("%s: text %q does not start with the code and message of %s", name, txt.String(), b)
		}
	} else {
		r.Output = json.RawMessage(txt.String())
	}
	return res, r
}

// TestServeGoSDKClient serves the demo tools over stdio to the go-sdk
// client: the list is the MCP export, and each call ends with the code the
// registry gives the llm origin.
func TestServeGoSDKClient(t *testing.T) {
	cs := serveStdio(t, nil)
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	var want []string
	for _, tool := range export.MCP(context.Background(), tooling.Default(), export.Options{}).Tools {
		want = append(want, tool.Name)
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("listed %v\nthe export lists %v", names, want)
	}

	for _, c := range []struct {
		tool, args string
		code       codes.Code
	}{
		{"demo.echo", `{"text":"hi"}`, ""},
		{"demo__echo", `{"text":"hi"}`, ""},
		{"demo.echo", `{"repeat":0,"extra":1}`, codes.ValidationError},
		{"demo.slow", `{"ms":0}`, ""},
		{"demo.slow", `{"ms":5000}`, codes.Timeout},
		{"demo.fail", `{"mode":"error"}`, codes.ToolError},
		{"demo.fail", `{"mode":"panic"}`, codes.Panic},
		{"demo.fail", `{"mode":"bad_output"}`, codes.OutputInvalid},
		{"demo.unavailable", `{}`, codes.Unavailable},
		{"demo.llm_only", `{}`, ""},
		{"demo.write_note", `{"text":"a note"}`, codes.ConsentRequired},
		{"demo.nope", `{}`, codes.NotFound},
	} {
		res, r := callTool(t, cs, c.tool, c.args)
		if res.IsError != (c.code != "") || r.Code != c.code {
			t.Errorf("%s %s: isError %v, code %q; want code %q", c.tool, c.args, res.IsError, r.Code, c.code)
		}
		if c.code != "" && r.Origin != tooling.OriginLLM {
			t.Errorf("%s: origin %q, want llm", c.tool, r.Origin)
		}
	}
	// demo.limited allows two calls a minute, some of which other tests
	// may have spent: within three calls one is rate_limited.
	limited := false
	for i := 0; i < 3 && !limited; i++ {
		res, r := callTool(t, cs, "demo.limited", `{}`)
		if res.IsError && r.Code != codes.RateLimited {
			t.Errorf("demo.limited: code %q", r.Code)
		}
		limited = r.Code == codes.RateLimited
	}
	if !limited {
		t.Errorf("demo.limited: three calls, none rate_limited")
	}

	_, r := callTool(t, cs, "demo.echo", `{"repeat":0,"extra":1}`)
	var paths []string
	for _, f := range r.Fields {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "/extra /repeat /text" {
		t.Errorf("invalid arguments list %v", paths)
	}
}

// TestServeConsent: --consent grants a tool on the listener; a client that
// can elicit is asked and its answer decides.
func TestServeConsent(t *testing.T) {
	granted := serveStdio(t, nil, "--consent", "demo.write_note")
	if res, r := callTool(t, granted, "demo.write_note", `{"text":"granted"}`); res.IsError {
		t.Errorf("granted: %s %s", r.Code, r.Message)
	}
	var asked []string
	var mu sync.Mutex
	ask := serveStdio(t, &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		mu.Unlock()
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
	}})
	if res, r := callTool(t, ask, "demo.write_note", `{"text":"asked"}`); res.IsError {
		t.Errorf("asked and allowed: %s %s", r.Code, r.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "demo.write_note wants to write: allow once?") {
		t.Errorf("asked %q", asked)
	}
}

func TestServeUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http", "0.0.0.0:0"}, "not a loopback address"},
		{[]string{"serve", "--origin", "nobody"}, "--origin"},
		{[]string{"serve", "--consent", "demo.nope"}, "no tool"},
		// An address that is not HOST:PORT is named as such, not taken
		// for one off loopback.
		{[]string{"serve", "--http", "localhost"}, "--http localhost: want HOST:PORT, like 127.0.0.1:8080 (missing port in address)"},
		{[]string{"serve", "--http", "8080"}, "--http 8080: want HOST:PORT"},
		{[]string{"serve", "--http", "127.0.0.1:99999"}, "--http 127.0.0.1:99999: want HOST:PORT, like 127.0.0.1:8080 (invalid port)"},
		{[]string{"serve", "--metrics", "bad", "--http", "127.0.0.1:0"}, "--metrics bad: want HOST:PORT"},
	} {
		o := cli(t, "", c.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%v: %s", c.args, o)
		}
	}
	if o := cli(t, "", "help"); !strings.Contains(o.stdout, "serve") {
		t.Errorf("help does not list serve: %s", o)
	}
}

// TestServeSlowProgress: demo.slow reports progress as it starts and as it
// sleeps; a client that asked for it gets the notifications.
func TestServeSlowProgress(t *testing.T) {
	var mu sync.Mutex
	var got []sdk.ProgressNotificationParams
	cs := serveStdio(t, &sdk.ClientOptions{ProgressNotificationHandler: func(ctx context.Context, req *sdk.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, *req.Params)
		mu.Unlock()
	}})
	params := &sdk.CallToolParams{Name: "demo.slow", Arguments: map[string]any{"ms": 250}}
	params.SetProgressToken("slow-1")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("demo.slow: %v %+v", err, res)
	}
	// The notifications precede the result on the stream; a ping after
	// the result makes sure the client has handled them.
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0].ProgressToken != "slow-1" || got[0].Progress != 0 || got[0].Total != 250 {
		t.Fatalf("progress %+v, want a first report 0 of 250 on slow-1", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Progress < got[i-1].Progress || got[i].Progress > 250 {
			t.Errorf("progress %v after %v (of 250)", got[i].Progress, got[i-1].Progress)
		}
	}
}

// TestServeConfig: the config's serve section grants consent to the tools
// it names and gives the HTTP listener its bearer token.
func TestServeConfig(t *testing.T) {
	cfg := writeFile(t, "c.json", `{"serve": {"token": "from-config", "consent": ["demo.write_note"]}}`)
	granted := serveStdio(t, nil, "--config", cfg)
	if res, r := callTool(t, granted, "demo.write_note", `{"text":"granted"}`); res.IsError {
		t.Errorf("granted by the config: %s %s", r.Code, r.Message)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	defer func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve --http: exit %d: %s", code, stderr.String())
		}
	}()
	url := waitFor(t, func() (string, bool) {
		_, after, ok := strings.Cut(stderr.String(), "serving MCP at ")
		return strings.TrimSpace(after), ok
	})
	for token, want := range map[string]int{"": http.StatusUnauthorized, "wrong": http.StatusUnauthorized, "from-config": http.StatusOK} {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("token %q: status %d, want %d", token, res.StatusCode, want)
		}
	}

	bad := writeFile(t, "c.json", `{"serve": {"consent": ["demo.nope"]}}`)
	if o := cli(t, "", "serve", "--config", bad); o.code != exitUsage || !strings.Contains(o.stderr, `/serve/consent: no tool "demo.nope"`) {
		t.Errorf("a config that grants consent to no tool: %s", o)
	}
}

// waitFor polls f until it reports ok, for up to two minutes (a hang
// guard a loaded machine does not reach), and returns its value.
func waitFor[T any](t *testing.T, f func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if v, ok := f(); ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatal("gave up waiting")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
