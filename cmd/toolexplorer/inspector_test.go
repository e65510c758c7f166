package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// inspectorBin is the MCP Inspector's command, installed in the checkout
// by scripts/install-peers.sh.
var inspectorBin = filepath.Join("..", "..", ".cache", "npm", "node_modules", ".bin", "mcp-inspector")

// needPeer fails the test in CI, where every peer must run, and skips it
// elsewhere, with why the peer is missing.
func needPeer(t testing.TB, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}

// inspector is the MCP Inspector's command line, ready to run.
type inspector struct {
	path string
	home string
}

func newInspector(t *testing.T) inspector {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		needPeer(t, "the MCP Inspector needs node: %v", err)
	}
	path, err := filepath.Abs(inspectorBin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		needPeer(t, "the MCP Inspector is not installed (run scripts/install-peers.sh): %v", err)
	}
	return inspector{path: path, home: t.TempDir()}
}

// run runs the Inspector's CLI with args and returns its exit status and
// what it printed as JSON: its result on stdout, or its error on stderr.
func (in inspector) run(t *testing.T, args ...string) (int, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, in.path, append([]string{"--cli"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+in.home, "MCP_CATALOG_PATH="+filepath.Join(in.home, "mcp.json"), "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		needPeer(t, "the MCP Inspector could not be started: %v\n%s", err, stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("the MCP Inspector %v did not finish in 2 minutes; stderr: %s", args, stderr.String())
	}
	printed := stdout.Bytes()
	if len(bytes.TrimSpace(printed)) == 0 {
		printed = stderr.Bytes()
	}
	var out map[string]any
	if err := json.Unmarshal(printed, &out); err != nil {
		t.Fatalf("inspector %v: exit %d, stdout is not JSON (%v): %s\nstderr: %s", args, code, err, stdout.String(), stderr.String())
	}
	return code, out
}

// buildBinary builds toolexplorer into a temporary directory.
func buildBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	bin := filepath.Join(t.TempDir(), "toolexplorer")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func toolNames(t *testing.T, list map[string]any) []string {
	t.Helper()
	tools, ok := list["tools"].([]any)
	if !ok {
		t.Fatalf("no tools in %v", list)
	}
	var names []string
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	return names
}

// contentText joins the text blocks of a tool result.
func contentText(res map[string]any) string {
	var b strings.Builder
	blocks, _ := res["content"].([]any)
	for _, c := range blocks {
		if m, ok := c.(map[string]any); ok && m["type"] == "text" {
			b.WriteString(m["text"].(string))
		}
	}
	return b.String()
}

// resultCode is the code of the full Result an error result carries.
func resultCode(res map[string]any) any {
	if m, ok := res["_meta"].(map[string]any); ok {
		if r, ok := m["toolexplorer/result"].(map[string]any); ok {
			return r["code"]
		}
	}
	if r, ok := res["structuredContent"].(map[string]any); ok {
		return r["code"]
	}
	return nil
}

// exportNames are the names `schemas --format mcp` lists.
func exportNames(t *testing.T, bin string) []string {
	t.Helper()
	out, err := exec.Command(bin, "schemas", "--format", "mcp").Output()
	if err != nil {
		t.Fatal(err)
	}
	var list map[string]any
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	return toolNames(t, list)
}

// TestE2EInspectorStdio: the MCP Inspector's CLI starts `toolexplorer
// serve` and lists and calls its tools over stdio.
func TestE2EInspectorStdio(t *testing.T) {
	bin := buildBinary(t)
	in := newInspector(t)
	code, list := in.run(t, bin, "serve", "--method", "tools/list")
	if code != 0 {
		t.Fatalf("tools/list: exit %d: %v", code, list)
	}
	if got, want := toolNames(t, list), exportNames(t, bin); !slices.Equal(got, want) {
		t.Errorf("tools/list lists %v\nthe export lists %v", got, want)
	}
	testInspectorCalls(t, in, bin, "serve")
}

// testInspectorCalls calls demo tools through the Inspector's CLI with
// target as the server: each ends as the registry decides for the llm
// origin.
func testInspectorCalls(t *testing.T, in inspector, target ...string) {
	t.Helper()
	call := func(tool string, args ...string) (int, map[string]any) {
		a := append(slices.Clone(target), "--method", "tools/call", "--tool-name", tool)
		for _, kv := range args {
			a = append(a, "--tool-arg", kv)
		}
		return in.run(t, a...)
	}
	code, ok := call("demo.echo", "text=hi")
	if sc, _ := ok["structuredContent"].(map[string]any); code != 0 || sc["text"] != "hi" || ok["isError"] == true {
		t.Errorf("demo.echo: exit %d: %v", code, ok)
	}
	if code, ok := call("demo.slow", "ms=10"); code != 0 || !strings.Contains(contentText(ok), `"slept_ms":10`) {
		t.Errorf("demo.slow: exit %d: %v", code, ok)
	}
	for _, c := range []struct {
		tool string
		args []string
		code string
		text []string
	}{
		{"demo.fail", []string{"mode=error"}, "tool_error", nil},
		{"demo.echo", []string{"repeat=0", "extra=1"}, "validation_error", []string{"/extra: ", "/repeat: ", "/text: "}},
		// The Inspector's CLI declares no elicitation: consent cannot be asked.
		{"demo.write_note", []string{"text=a note"}, "consent_required", nil},
		{"demo.unavailable", nil, "unavailable", nil},
	} {
		code, res := call(c.tool, c.args...)
		text := contentText(res)
		if code == 0 || res["isError"] != true || resultCode(res) != c.code || !strings.HasPrefix(text, c.code+": ") {
			t.Errorf("%s %v: exit %d, want an isError result with code %s: %v", c.tool, c.args, code, c.code, res)
		}
		for _, s := range c.text {
			if !strings.Contains(text, s) {
				t.Errorf("%s: text %q does not name %q", c.tool, text, s)
			}
		}
	}
}

// TestE2EInspectorHTTP: `toolexplorer serve --http` with a bearer token;
// the Inspector's CLI with the token lists and calls the tools, and
// without it is refused.
func TestE2EInspectorHTTP(t *testing.T) {
	bin := buildBinary(t)
	in := newInspector(t)
	srv := exec.Command(bin, "serve", "--http", "127.0.0.1:0")
	srv.Env = append(os.Environ(), tokenEnv+"=test-token")
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		srv.Process.Signal(syscall.SIGTERM)
		if err := srv.Wait(); err != nil {
			t.Errorf("serve --http after SIGTERM: %v", err)
		}
	}
	defer stop()
	lines := bufio.NewScanner(stderr)
	url := ""
	for url == "" && lines.Scan() {
		if _, after, ok := strings.Cut(lines.Text(), "serving MCP at "); ok {
			url = after
		}
	}
	if url == "" {
		t.Fatalf("serve --http did not say where it serves: %v", lines.Err())
	}
	go func() {
		for lines.Scan() {
		}
	}()

	target := []string{url, "--transport", "http", "--header", "Authorization: Bearer test-token"}
	code, list := in.run(t, append(slices.Clone(target), "--method", "tools/list")...)
	if code != 0 {
		t.Fatalf("tools/list: exit %d: %v", code, list)
	}
	if got, want := toolNames(t, list), exportNames(t, bin); !slices.Equal(got, want) {
		t.Errorf("tools/list lists %v\nthe export lists %v", got, want)
	}
	testInspectorCalls(t, in, target...)

	// The same request without the token, then with a wrong one.
	for _, h := range [][]string{nil, {"--header", "Authorization: Bearer wrong"}} {
		args := append(append([]string{url, "--transport", "http"}, h...), "--method", "tools/list", "--stored-auth-only")
		code, out := in.run(t, args...)
		if e, _ := out["error"].(map[string]any); code == 0 || out["tools"] != nil || e["code"] != "auth_required" || !strings.Contains(fmt.Sprint(e["message"]), "token") {
			t.Errorf("tools/list with %v: exit %d: %v", h, code, out)
		}
	}
	stop()
}
