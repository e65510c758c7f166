//go:build linux

package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// peerEnv makes the test binary a stdio MCP server (see peerMain) instead
// of running the tests; its value is the server's behaviour.
const peerEnv = "TOOLEXPLORER_TEST_MCP_PEER"

func init() {
	if mode, ok := os.LookupEnv(peerEnv); ok {
		os.Exit(peerMain(mode))
	}
}

// peerMain is a small MCP server over stdio. Mode "serve" serves the test
// tools; "crash" writes to stderr and exits; "chatter" writes text that is
// not MCP to stdout and exits.
func peerMain(mode string) int {
	if raw, ok := strings.CutPrefix(mode, "raw-"); ok {
		return rawPeer(raw)
	}
	switch mode {
	case "extras":
		return extrasPeer()
	case "crash":
		fmt.Fprintln(os.Stderr, "peer: cannot open the database")
		return 3
	case "chatter":
		fmt.Println("hello, I am not a protocol")
		return 0
	case "silent":
		_, _ = io.Copy(io.Discard, os.Stdin) // reads, never answers, exits at EOF
		return 0
	case "env":
		s := sdk.NewServer(&sdk.Implementation{Name: "peer", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "env", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil
			})
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "peer", Version: "1"}, nil)
	obj := func(s string) json.RawMessage { return json.RawMessage(s) }
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	args := func(req *sdk.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	yes := false
	s.AddTool(&sdk.Tool{Name: "echo", Description: "echoes", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes},
		InputSchema: obj(`{"type":"object","properties":{"text":{"type":"string","minLength":1}},"required":["text"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return text("echo: " + args(req)["text"].(string)), nil
		})
	s.AddTool(&sdk.Tool{Name: "addNumbers", Description: "adds", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema:  obj(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		OutputSchema: obj(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			a := args(req)
			sum := a["a"].(float64) + a["b"].(float64)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: fmt.Sprint(sum)}}, StructuredContent: map[string]any{"sum": sum}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "lies", Description: "breaks its output schema",
		InputSchema:  obj(`{"type":"object"}`),
		OutputSchema: obj(`{"type":"object","properties":{"sum":{"type":"number"}},"required":["sum"]}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"sum": "many"}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "fails", Description: "reports an error", InputSchema: obj(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "the disk is full"}}}, nil
		})
	s.AddTool(&sdk.Tool{Name: "broken", Description: "a schema that does not compile",
		InputSchema: obj(`{"type":"object","properties":{"x":{"type":"nope"}}}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("ran"), nil })
	s.AddTool(&sdk.Tool{Name: "spawn", Description: "starts a process that outlives the call",
		InputSchema: obj(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			c := exec.Command("sleep", "300")
			if err := c.Start(); err != nil {
				return nil, err
			}
			return text(strconv.Itoa(c.Process.Pid)), nil
		})
	s.AddTool(&sdk.Tool{Name: "block", Description: "blocks until canceled", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: obj(`{"type":"object"}`)},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "peer: blocking")
			<-ctx.Done()
			fmt.Fprintln(os.Stderr, "peer: canceled")
			return nil, ctx.Err()
		})
	s.AddTool(&sdk.Tool{Name: "cat", Description: "reads a file", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: obj(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			b, err := os.ReadFile(args(req)["path"].(string))
			if err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
			}
			return text(string(b)), nil
		})
	s.AddTool(&sdk.Tool{Name: "write", Description: "writes a file",
		InputSchema: obj(`{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"}},"required":["path","text"]}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			a := args(req)
			if err := os.WriteFile(a["path"].(string), []byte(a["text"].(string)), 0o644); err != nil {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: err.Error()}}}, nil
			}
			return text("written"), nil
		})
	s.AddTool(&sdk.Tool{Name: "die", Description: "exits", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: obj(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "peer: out of memory")
			os.Exit(2)
			return nil, nil
		})
	s.AddTool(&sdk.Tool{Name: "steps", Description: "reports progress", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: obj(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			for i := 1; i <= 3; i++ {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
					Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
			}
			// The client handles what it receives in order: once it has
			// answered a ping, it has handled the notifications before it.
			if err := req.Session.Ping(ctx, nil); err != nil {
				return nil, err
			}
			return text("done"), nil
		})
	fmt.Fprintln(os.Stderr, "peer: ready")
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// peer is the config of the test server in the given mode.
func peer(t *testing.T, mode string) mcp.Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Spec{Command: exe, Env: map[string]string{peerEnv: mode}}
}

func connectPeer(t *testing.T, reg *tooling.Registry) *mcp.Remote {
	t.Helper()
	r, err := mcp.Connect(context.Background(), reg, "peer", peer(t, "serve"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func TestConnectAddsRemoteTools(t *testing.T) {
	reg := tooling.NewRegistry()
	r := connectPeer(t, reg)
	var got []string
	for _, rt := range r.Tools() {
		got = append(got, rt.Name+"="+rt.Remote)
	}
	want := "peer.add_numbers=addNumbers peer.block=block peer.cat=cat peer.die=die peer.echo=echo peer.fails=fails peer.lies=lies peer.spawn=spawn peer.steps=steps peer.write=write" // the server lists them by name
	if strings.Join(got, " ") != want {
		t.Fatalf("tools %q, want %q", strings.Join(got, " "), want)
	}
	if s := r.Skipped(); len(s) != 1 || !strings.Contains(s[0].Error(), `tool "broken"`) {
		t.Fatalf("skipped %v, want the tool whose schema does not compile", s)
	}
	if _, ok := reg.Lookup("peer.broken"); ok {
		t.Fatal("a tool whose schema does not compile was added")
	}
	if !strings.Contains(r.Stderr(), "peer: ready") {
		t.Fatalf("stderr %q, want the server's stderr kept", r.Stderr())
	}
	tool, _ := reg.Lookup("peer.add_numbers")
	if tool.Title != "addNumbers" {
		t.Fatalf("title %q, want the server's name of a renamed tool", tool.Title)
	}
	if tool.Source != "mcp:peer" {
		t.Fatalf("source %q, want mcp:peer", tool.Source)
	}
}

func TestAnnotationsMapToMeta(t *testing.T) {
	reg := tooling.NewRegistry()
	connectPeer(t, reg)
	echo, _ := reg.Lookup("peer.echo")
	if echo.Meta.Effects != tooling.EffectRead || echo.Meta.NeedsConsent() {
		t.Fatalf("echo (read-only, closed world) meta %+v", echo.Meta)
	}
	fails, _ := reg.Lookup("peer.fails") // no annotations: MCP's defaults
	m := fails.Meta
	if m.Effects&(tooling.EffectWrite|tooling.EffectNetwork) != (tooling.EffectWrite|tooling.EffectNetwork) || m.EffectiveSafety() != tooling.SafetyHigh || !m.NeedsConsent() {
		t.Fatalf("unannotated tool meta %+v, want write+network, high risk, consent", m)
	}
	// The server orders its calls: every tool's calls share its key, up
	// to its concurrency at once.
	for _, m := range []tooling.Meta{echo.Meta, m} {
		if m.Concurrency != tooling.Exclusive || len(m.Resources) != 1 || m.Resources[0] != "mcp:peer" || m.Parallel != mcp.DefaultConcurrency {
			t.Fatalf("meta %+v, want exclusive on mcp:peer, %d at once", m, mcp.DefaultConcurrency)
		}
	}
}

func TestCallsThroughTheRegistry(t *testing.T) {
	reg := tooling.NewRegistry()
	connectPeer(t, reg)
	ctx := context.Background()
	cases := []struct {
		tool, args string
		opts       []tooling.Option
		code       codes.Code
		output     string // the output, or a part of the message
	}{
		{"peer.echo", `{"text":"hi"}`, nil, codes.OK, `"echo: hi"`},
		{"peer.echo", `{"text":""}`, nil, codes.ValidationError, "/text"},
		{"peer.echo", `{}`, nil, codes.ValidationError, "text"},
		{"peer.add_numbers", `{"a":2,"b":3.5}`, nil, codes.OK, `{"sum":5.5}`},
		{"peer.lies", `{}`, []tooling.Option{tooling.WithConsent()}, codes.OutputInvalid, "/sum"},
		{"peer.fails", `{}`, nil, codes.ConsentRequired, ""},
		{"peer.fails", `{}`, []tooling.Option{tooling.WithConsent()}, codes.ToolError, "the disk is full"},
	}
	for _, c := range cases {
		res, _ := reg.Execute(ctx, c.tool, json.RawMessage(c.args), c.opts...)
		if res.Code != c.code {
			t.Errorf("%s %s: code %q (%s), want %q", c.tool, c.args, res.Code, res.Message, c.code)
			continue
		}
		if c.code == codes.OK {
			if string(res.Output) != c.output {
				t.Errorf("%s %s: output %s, want %s", c.tool, c.args, res.Output, c.output)
			}
			continue
		}
		all := res.Message
		for _, f := range res.Fields {
			all += " " + f.Path
		}
		if !strings.Contains(all, c.output) {
			t.Errorf("%s %s: message %q, want it to name %q", c.tool, c.args, all, c.output)
		}
	}
}

// TestCloseLeavesNoProcess starts a server that starts a process of its
// own, closes the connection and checks that both are gone and the tools
// removed.
func TestCloseLeavesNoProcess(t *testing.T) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "peer", peer(t, "serve"))
	if err != nil {
		t.Fatal(err)
	}
	res, _ := reg.Execute(context.Background(), "peer.spawn", nil, tooling.WithConsent())
	if !res.OK() {
		t.Fatalf("spawn: %s %s", res.Code, res.Message)
	}
	var s string
	if err := json.Unmarshal(res.Output, &s); err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	if !alive(pid) {
		t.Fatalf("the control: the grandchild %d is not running before Close", pid)
	}
	if err := r.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	// The grandchild was killed; once its new parent reaps it, it is gone.
	deadline := time.Now().Add(30 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if alive(pid) {
		t.Fatalf("process %d, started by the server, is still running after Close", pid)
	}
	if len(reg.List(context.Background(), tooling.Filter{})) != 0 {
		t.Fatalf("%d tools left in the registry after Close: %v", len(reg.List(context.Background(), tooling.Filter{})), reg.List(context.Background(), tooling.Filter{}))
	}
}

// alive reports whether pid is a running process (not a zombie).
func alive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestConnectFailures(t *testing.T) {
	cases := []struct {
		name   string
		server mcp.Spec
		want   []string
	}{
		{"missing", mcp.Spec{Command: "/nonexistent/server"}, []string{`server "x": cannot start "/nonexistent/server": no such file or directory`}},
		{"not in PATH", mcp.Spec{Command: "toolexplorer-no-such-program"}, []string{`cannot start "toolexplorer-no-such-program": there is no program of that name in $PATH`}},
		{"crash", peer(t, "crash"), []string{`it exited (exit status 3) before answering "initialize": it is not an MCP server, or it failed to start; its stderr ends with: peer: cannot open the database`}},
		{"exits at once", mcp.Spec{Command: "true"}, []string{`it exited with status 0 before answering "initialize"`}},
		{"chatter", peer(t, "chatter"), []string{`not an MCP server: it wrote "hello, I am not a protocol" on its standard output, where an MCP server writes only MCP messages`}},
		{"usage", mcp.Spec{Command: "sh", Args: []string{"-c", "echo 'usage: server PORT'; exit 2"}}, []string{`not an MCP server: it wrote "usage: server PORT" on its standard output`}},
		{"logs JSON", mcp.Spec{Command: "sh", Args: []string{"-c", `echo '{"level":30,"msg":"listening"}'; cat >/dev/null`}}, []string{`not an MCP server, or one that logs on its standard output: it wrote "{\"level\":30,\"msg\":\"listening\"}" there, JSON but not an MCP message`}},
		{"echoes", mcp.Spec{Command: "cat"}, []string{"not an MCP server: it wrote back the request it was sent"}},
		{"neither", mcp.Spec{}, []string{"neither a command nor a url"}},
		{"both", mcp.Spec{Command: "x", URL: "http://127.0.0.1:1/"}, []string{"both"}},
		{"no host", mcp.Spec{URL: "http://"}, []string{`the url "http://" names no host`}},
		{"bad url", mcp.Spec{URL: "http://[::1"}, []string{`the url "http://[::1" does not parse: missing ']' in host`}},
		{"refused", mcp.Spec{URL: "http://127.0.0.1:1/mcp"}, []string{"nothing listens at http://127.0.0.1:1/mcp (connection refused)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := tooling.NewRegistry()
			r, err := mcp.Connect(context.Background(), reg, "x", c.server)
			if err == nil {
				_ = r.Close()
				t.Fatal("connected")
			}
			var ce *mcp.ConnectError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v, want a *ConnectError", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to say %q", err, w)
				}
			}
			if len(reg.List(context.Background(), tooling.Filter{})) != 0 {
				t.Errorf("%d tools added", len(reg.List(context.Background(), tooling.Filter{})))
			}
		})
	}
}

// TestConnectDeadline: a server that never answers is a *ConnectError
// once the caller's deadline passes, and it is stopped.
func TestConnectDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(ctx, reg, "mute", peer(t, "silent"))
	if err == nil {
		_ = r.Close()
		t.Fatal("connected to a server that never answers")
	}
	var ce *mcp.ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `no answer to "initialize" before the deadline (context deadline exceeded): it wrote nothing on its standard output; it is not an MCP server, it is waiting for something`) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want a *ConnectError saying there was no answer in time", err)
	}
}

// TestServerEnvironment: a stdio server gets the variables MCP hosts pass
// on (PATH, HOME, the locale) and its env, not the rest of the host's
// environment (a credential meant for tools files); with InheritEnv, it
// gets the whole of it.
func TestServerEnvironment(t *testing.T) {
	t.Setenv("MY_PARENT_SECRET", "hunter2")
	t.Setenv("LC_TIME", "C")
	t.Setenv("HOME", "/home/someone")
	envOf := func(inherit bool) map[string]string {
		t.Helper()
		reg := tooling.NewRegistry()
		spec := peer(t, "env")
		spec.Env["FROM_CONFIG"] = "yes"
		spec.InheritEnv = inherit
		r, err := mcp.Connect(context.Background(), reg, "peer", spec)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		res, err := reg.Execute(context.Background(), "peer.env", nil, tooling.WithConsent())
		if err != nil {
			t.Fatal(err)
		}
		var text string
		if err := json.Unmarshal(res.Output, &text); err != nil {
			t.Fatalf("output %s: %v", res.Output, err)
		}
		env := map[string]string{}
		for _, kv := range strings.Split(text, "\n") {
			k, v, _ := strings.Cut(kv, "=")
			env[k] = v
		}
		return env
	}
	env := envOf(false)
	for k, want := range map[string]string{"PATH": os.Getenv("PATH"), "HOME": "/home/someone", "LC_TIME": "C", "FROM_CONFIG": "yes"} {
		if env[k] != want {
			t.Errorf("the server's %s is %q, want %q", k, env[k], want)
		}
	}
	if v, ok := env["MY_PARENT_SECRET"]; ok {
		t.Errorf("the server sees MY_PARENT_SECRET=%q from the host's environment", v)
	}
	// The control: with inherit_env, it does.
	if env := envOf(true); env["MY_PARENT_SECRET"] != "hunter2" || env["FROM_CONFIG"] != "yes" {
		t.Errorf("with InheritEnv, MY_PARENT_SECRET=%q FROM_CONFIG=%q; want hunter2 and yes", env["MY_PARENT_SECRET"], env["FROM_CONFIG"])
	}
}
