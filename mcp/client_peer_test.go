//go:build linux

package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// everything is the stdio config of the reference MCP server,
// @modelcontextprotocol/server-everything at the version
// scripts/peers/package-lock.json pins, installed by scripts/install-peers.sh
// into .cache/npm. In CI (CI=true) a peer
// that cannot be installed fails the test; elsewhere the test is skipped
// with the reason.
func everything(t testing.TB) mcp.Spec {
	t.Helper()
	fail := t.Skipf
	if os.Getenv("CI") == "true" {
		fail = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		fail("node is not installed: %v", err)
	}
	if out, err := exec.Command("../scripts/install-peers.sh").CombinedOutput(); err != nil {
		fail("scripts/install-peers.sh could not install the MCP peers: %v: %s", err, out)
	}
	dir, err := filepath.Abs("../.cache/npm")
	if err != nil {
		t.Fatal(err)
	}
	return mcp.Spec{Command: node, Args: []string{filepath.Join(dir, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"), "stdio"}}
}

// everythingHTTP starts the reference server in its streamable HTTP mode
// on a free port and returns its config; the server is stopped when the
// test ends.
func everythingHTTP(t *testing.T) mcp.Spec {
	t.Helper()
	stdio := everything(t)
	for attempt := 0; ; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cmd := exec.Command(stdio.Command, stdio.Args[0], "streamableHttp")
		cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(stderr)
		var said []string
		listening := false
		for !listening && lines.Scan() {
			said = append(said, lines.Text())
			listening = strings.Contains(lines.Text(), "listening on port")
		}
		if listening {
			go func() {
				for lines.Scan() {
				}
			}()
			t.Cleanup(func() {
				cmd.Process.Kill()
				cmd.Wait()
			})
			return mcp.Spec{URL: fmt.Sprintf("http://127.0.0.1:%d/mcp", port)}
		}
		cmd.Wait()
		// Another process took the port between its choice and the start.
		if attempt == 2 || !strings.Contains(strings.Join(said, "\n"), "already in use") {
			t.Fatalf("server-everything streamableHttp did not start: %s", strings.Join(said, "\n"))
		}
	}
}

// TestServerEverything: our client against the reference server, over
// stdio and over streamable HTTP.
func TestServerEverything(t *testing.T) {
	t.Run("stdio", func(t *testing.T) { testServerEverything(t, everything(t)) })
	t.Run("http", func(t *testing.T) { testServerEverything(t, everythingHTTP(t)) })
}

func testServerEverything(t *testing.T, s mcp.Spec) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "everything", s)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	names := map[string]string{}
	for _, rt := range r.Tools() {
		names[rt.Remote] = rt.Name
	}
	for remote, want := range map[string]string{"echo": "everything.echo", "get-sum": "everything.get_sum", "get-structured-content": "everything.get_structured_content"} {
		if names[remote] != want {
			t.Errorf("the server's %q is %q in the registry, want %q (tools: %v)", remote, names[remote], want, names)
		}
	}
	if len(r.Skipped()) != 0 {
		t.Errorf("tools skipped: %v", r.Skipped())
	}
	ctx := context.Background()
	cases := []struct {
		tool, args string
		code       codes.Code
		output     string
	}{
		{"everything.echo", `{"message":"hello"}`, codes.OK, `"Echo: hello"`},
		{"everything.echo", `{"message":7}`, codes.ValidationError, ""},
		{"everything.get_sum", `{"a":2,"b":40}`, codes.OK, `"The sum of 2 and 40 is 42."`},
		{"everything.get_structured_content", `{"location":"Chicago"}`, codes.OK, `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}`},
		{"everything.get_structured_content", `{"location":"Paris"}`, codes.ValidationError, ""},
	}
	// A result that is not a lone text block is every content block, as MCP
	// encodes it.
	res, _ := reg.Execute(ctx, "everything.get_tiny_image", nil)
	var blocks []struct{ Type, MimeType, Data string }
	if !res.OK() || json.Unmarshal(res.Output, &blocks) != nil {
		t.Fatalf("get_tiny_image: %s %s %.200s", res.Code, res.Message, res.Output)
	}
	image := false
	for _, b := range blocks {
		image = image || b.Type == "image" && b.MimeType == "image/png" && b.Data != ""
	}
	if !image {
		t.Errorf("get_tiny_image: no image block in %.300s", res.Output)
	}
	for _, c := range cases {
		res, _ := reg.Execute(ctx, c.tool, json.RawMessage(c.args))
		if res.Code != c.code {
			t.Errorf("%s %s: code %q (%s), want %q", c.tool, c.args, res.Code, res.Message, c.code)
			continue
		}
		if c.code == codes.OK && !sameJSON(res.Output, c.output) {
			t.Errorf("%s %s: output %s, want %s", c.tool, c.args, res.Output, c.output)
		}
	}
}

func sameJSON(a json.RawMessage, b string) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// TestServerEverythingElicitation: server-everything asks for input during
// a call; the client's answer (accept with content, decline, dismiss)
// reaches it. Without an answerer the client offers no elicitation and the
// server leaves the tool out.
func TestServerEverythingElicitation(t *testing.T) {
	s := everything(t)
	ctx := context.Background()
	r, err := mcp.Connect(ctx, tooling.NewRegistry(), "plain", s)
	if err != nil {
		t.Fatal(err)
	}
	for _, rt := range r.Tools() {
		if rt.Remote == "trigger-elicitation-request" {
			t.Errorf("a client without an answerer is offered %s", rt.Remote)
		}
	}
	r.Close()

	var mu sync.Mutex
	var asked []mcp.Elicitation
	answer := func(content map[string]any, accept bool, err error) mcp.ElicitFunc {
		return func(ctx context.Context, e mcp.Elicitation) (map[string]any, bool, error) {
			mu.Lock()
			asked = append(asked, e)
			mu.Unlock()
			return content, accept, err
		}
	}
	for _, c := range []struct {
		f    mcp.ElicitFunc
		want string
	}{
		{answer(map[string]any{"name": "Ada", "check": true}, true, nil), "- Name: Ada"},
		{answer(nil, false, nil), "User declined"},
		{answer(nil, false, errors.New("dismissed")), "User cancelled"},
	} {
		reg := tooling.NewRegistry()
		r, err := mcp.Connect(ctx, reg, "everything", s, mcp.WithElicitation(c.f))
		if err != nil {
			t.Fatal(err)
		}
		// Not read-only: the call needs consent, which the test gives.
		res, _ := reg.Execute(ctx, "everything.trigger_elicitation_request", nil, tooling.WithConsent())
		r.Close()
		if !res.OK() || !strings.Contains(string(res.Output), c.want) {
			t.Errorf("want %q: %s %s %.400s", c.want, res.Code, res.Message, res.Output)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 3 || asked[0].Server != "everything" || !strings.Contains(asked[0].Message, "Please provide inputs") || !strings.Contains(string(asked[0].Schema), `"name"`) {
		t.Errorf("asked %+v", asked)
	}
}
