//go:build linux

package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// rawTools is the tools/list result of rawPeer: tools whose schemas do not
// compile beside tools whose results are not what they should be.
const rawTools = `{"tools":[
 {"name":"ok","inputSchema":{"type":"object"}},
 {"name":"bad_regex","inputSchema":{"type":"object","properties":{"x":{"type":"string","pattern":"(["}}}},
 {"name":"type_seven","inputSchema":{"type":"object","properties":{"x":{"type":7}}}},
 {"name":"ref_nowhere","inputSchema":{"type":"object","properties":{"x":{"$ref":"#/$defs/missing"}}}},
 {"name":"ref_remote","inputSchema":{"type":"object","properties":{"x":{"$ref":"https://schemas.example.com/x.json"}}}},
 {"name":"bad_output_schema","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"minimum":"zero"}}}},
 {"name":"lies","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"},"s":{"type":"string"}},"required":["n","s"]}},
 {"name":"video","inputSchema":{"type":"object"}},
 {"name":"bad_image","inputSchema":{"type":"object"}},
 {"name":"die","inputSchema":{"type":"object"}},
 {"name":"junk","inputSchema":{"type":"object"}}]}`

// rawResults are rawPeer's tools/call results by tool.
var rawResults = map[string]string{
	"ok":        `{"content":[{"type":"text","text":"ran"}]}`,
	"quick":     `{"content":[{"type":"text","text":"quick"}]}`,
	"lies":      `{"content":[],"structuredContent":{"n":"many"}}`,
	"video":     `{"content":[{"type":"video","url":"x"}]}`,
	"bad_image": `{"content":[{"type":"image","data":"!!not base64","mimeType":"image/png"}]}`,
}

// rawMarkEnv names a file rawPeer's mode "nolist" creates when tools/list
// comes.
const rawMarkEnv = "TOOLEXPLORER_TEST_RAW_MARK"

// markDeadline is a context whose deadline passes when the file mark
// appears, or after two minutes without it: a deadline that falls after a
// step has begun however slow the machine is, where a fixed one could fall
// before it.
type markDeadline struct {
	context.Context
	done chan struct{}
}

func newMarkDeadline(t *testing.T, mark string) *markDeadline {
	d := &markDeadline{Context: context.Background(), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		for end := time.Now().Add(2 * time.Minute); time.Now().Before(end) && t.Context().Err() == nil; {
			if _, err := os.Stat(mark); err == nil {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	return d
}

func (d *markDeadline) Done() <-chan struct{} { return d.done }

// Deadline is far off: Connect sets no deadline of its own.
func (d *markDeadline) Deadline() (time.Time, bool) { return time.Now().Add(time.Hour), true }

func (d *markDeadline) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// rawPeer is an MCP server over stdio that writes its answers by hand, to
// send what the SDK's server would not. Mode "nolist" never answers
// tools/list; "crashlist" exits on it; "loop" answers every page with the
// same next cursor; "tools" lists rawTools.
func rawPeer(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue // a notification
		}
		reply := func(result string) { fmt.Printf(`{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result) }
		switch m.Method {
		case "initialize":
			var p struct {
				Version string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			reply(fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`, p.Version))
		case "tools/list":
			switch mode {
			case "nolist":
				if mark := os.Getenv(rawMarkEnv); mark != "" {
					_ = os.WriteFile(mark, nil, 0o600) // tells the test that tools/list came
				}
				continue
			case "crashlist":
				fmt.Fprintln(os.Stderr, "raw: cannot list")
				return 6
			case "tasks":
				reply(`{"tools":[{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},{"name":"quick","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"execution":{"taskSupport":"optional"}}]}`)
				continue
			case "loop":
				reply(`{"tools":[{"name":"again","inputSchema":{"type":"object"}}],"nextCursor":"same"}`)
				continue
			}
			reply(rawTools)
		case "tools/call":
			var p struct{ Name string }
			_ = json.Unmarshal(m.Params, &p)
			if p.Name == "junk" {
				fmt.Println("Processing request...")
				continue
			}
			if p.Name == "die" {
				fmt.Fprintln(os.Stderr, "raw: segfault")
				return 139
			}
			reply(rawResults[p.Name])
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", m.ID)
		}
	}
	return 0
}

// TestToolsThatDoNotCompileAreLeftOut: each tool whose schema does not
// compile (a bad pattern, a type that is not one, a $ref to nowhere or to
// the network) is left out with one message that names the server, the tool
// and the problem; the other tools are added.
func TestToolsThatDoNotCompileAreLeftOut(t *testing.T) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-tools"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, tool := range r.Tools() {
		names = append(names, tool.Remote)
	}
	if got := strings.Join(names, " "); got != "ok lies video bad_image die junk" {
		t.Errorf("tools added: %s", got)
	}
	want := map[string]string{
		"bad_regex":         "input schema does not compile: pattern at /properties/x",
		"type_seven":        "input schema does not compile: type at /properties/x",
		"ref_nowhere":       `input schema does not compile: json-pointer in "#/$defs/missing" not found`,
		"ref_remote":        `external $ref "https://schemas.example.com/x.json" is not loaded`,
		"bad_output_schema": "output schema does not compile: minimum at /properties/n",
	}
	skipped := r.Skipped()
	if len(skipped) != len(want) {
		t.Errorf("%d tools left out, want %d: %v", len(skipped), len(want), skipped)
	}
	for _, err := range skipped {
		msg := err.Error()
		tool, _, _ := strings.Cut(strings.TrimPrefix(msg, `mcp: server "raw": tool "`), `"`)
		w, ok := want[tool]
		if !ok || !strings.HasPrefix(msg, fmt.Sprintf(`mcp: server "raw": tool %q left out: `, tool)) || !strings.Contains(msg, w) {
			t.Errorf("left out: %s\nwant it to name the tool and say %q", msg, w)
		}
		if strings.Contains(msg, "Register(") {
			t.Errorf("the message speaks of the registry's function: %s", msg)
		}
	}
}

// TestResultsThatAreNotMCP: a result that breaks its output schema lists
// its fields; one the SDK cannot read, or a server that dies during the
// call, is a tool_error that says what happened.
func TestResultsThatAreNotMCP(t *testing.T) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-tools"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "raw.lies", nil, tooling.WithConsent())
	if res.Code != codes.OutputInvalid || len(res.Fields) != 2 || !strings.Contains(res.Message, "2 invalid fields: /n: ") {
		t.Errorf("structuredContent against its outputSchema: code %q, %d fields, message %q", res.Code, len(res.Fields), res.Message)
	}
	for tool, want := range map[string]string{
		"raw.video":     `the MCP server "raw" answered with a result that is not valid MCP: unrecognized content type "video"`,
		"raw.bad_image": `the MCP server "raw" answered with a result that is not valid MCP: illegal base64 data`,
	} {
		res, _ := reg.Execute(context.Background(), tool, nil, tooling.WithConsent())
		if res.Code != codes.ToolError || !strings.Contains(res.Message, want) {
			t.Errorf("%s: code %q, message %q; want tool_error saying %q", tool, res.Code, res.Message, want)
		}
	}
	res, _ = reg.Execute(context.Background(), "raw.die", nil, tooling.WithConsent())
	if res.Code != codes.ToolError || !strings.Contains(res.Message, `the MCP server "raw" stopped (exit status 139) during the call; restart it`) || !strings.Contains(res.Message, "raw: segfault") {
		t.Errorf("a server that dies during the call: code %q, message %q", res.Code, res.Message)
	}
}

// TestConnectStepFailures: a server that answers initialize, then exits,
// never answers tools/list or lists pages without end, says which step
// failed.
func TestConnectStepFailures(t *testing.T) {
	reg := tooling.NewRegistry()
	_, err := mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-crashlist"))
	if err == nil || !strings.Contains(err.Error(), `it answered "initialize", then exited (exit status 6) before answering "tools/list"; its stderr ends with: raw: cannot list`) {
		t.Errorf("a server that exits on tools/list: %v", err)
	}
	mark := filepath.Join(t.TempDir(), "tools-list-came")
	nolist := peer(t, "raw-nolist")
	nolist.Env[rawMarkEnv] = mark
	_, err = mcp.Connect(newMarkDeadline(t, mark), reg, "raw", nolist)
	if err == nil || !strings.Contains(err.Error(), `it answered "initialize", then no answer to "tools/list" before the deadline`) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a server that never answers tools/list: %v", err)
	}
	_, err = mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-loop"))
	if err == nil || !strings.Contains(err.Error(), `its tools/list pages do not end: the cursor "same" came back after 2 tools`) {
		t.Errorf("a server whose tools/list pages do not end: %v", err)
	}
	if len(reg.List(context.Background(), tooling.Filter{})) != 0 {
		t.Errorf("%d tools added", len(reg.List(context.Background(), tooling.Filter{})))
	}
}

// TestURLsThatAreNotMCP: a URL that serves a web page, nothing, or wants
// credentials says so, and what to check.
func TestURLsThatAreNotMCP(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		switch req.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><body>Welcome</body></html>")
		case "/private":
			http.Error(w, "who are you?", http.StatusUnauthorized)
		case "/sse":
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		case "/broken":
			http.Error(w, "database down", http.StatusInternalServerError)
		default:
			http.NotFound(w, req)
		}
	}))
	defer srv.Close()
	for path, want := range map[string]string{
		"/page":    srv.URL + "/page serves a web page (text/html), not MCP: give the URL of the server's MCP endpoint",
		"/nothing": srv.URL + "/nothing answers 404 Not Found: it is not an MCP endpoint; check the path",
		"/private": srv.URL + "/private answers 401 Unauthorized: the server wants credentials; give them in the server's headers",
		"/broken":  srv.URL + `/broken answers 500 Internal Server Error: "database down"`,
		"/sse":     srv.URL + "/sse answers 405 Method Not Allowed: a URL ending in /sse is usually MCP's older HTTP+SSE transport, which toolexplorer does not speak",
	} {
		reg := tooling.NewRegistry()
		_, err := mcp.Connect(context.Background(), reg, "web", mcp.Spec{URL: srv.URL + path})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v\nwant it to say %q", path, err, want)
		}
	}
}

// TestHTTPServerGone: a call an HTTP server fails says how; one to a
// server that went away says that nothing listens at its URL.
func TestHTTPServerGone(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "hello", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, &sdk.StreamableHTTPOptions{Stateless: true})
	var broken atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if broken.Load() {
			http.Error(w, "database down", http.StatusInternalServerError)
			return
		}
		h.ServeHTTP(w, req)
	}))
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "web", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if res, _ := reg.Execute(context.Background(), "web.hello", nil); !res.OK() {
		t.Fatalf("web.hello: %s %s", res.Code, res.Message)
	}
	broken.Store(true)
	res, _ := reg.Execute(context.Background(), "web.hello", nil)
	if res.Code != codes.ToolError || !strings.Contains(res.Message, `the MCP server "web" did not take the call: sending "tools/call": Internal Server Error`) {
		t.Errorf("a call the server fails: code %q, message %q", res.Code, res.Message)
	}
	ts.CloseClientConnections()
	ts.Close()
	res, _ = reg.Execute(context.Background(), "web.hello", nil)
	if res.Code != codes.ToolError || !strings.Contains(res.Message, "nothing listens at "+ts.URL+" (connection refused)") {
		t.Errorf("a call once the server is gone: code %q, message %q", res.Code, res.Message)
	}
}

// TestGroupTaken: a server whose tools would take names the registry has
// already (a built-in group, another server of the same group) has them
// left out, each saying whose they are and what to do.
func TestGroupTaken(t *testing.T) {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "raw.ok", Run: func(context.Context, tooling.Call) (any, error) { return "mine", nil }})
	r, err := mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-tools"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var found bool
	for _, err := range r.Skipped() {
		if strings.Contains(err.Error(), `tool "ok" left out: the registry has a tool named raw.ok already (built into the program): give the server a name that no other server or group of tools has`) {
			found = true
		}
	}
	if !found {
		t.Errorf("left out: %v", r.Skipped())
	}
	r2, err := mcp.Connect(context.Background(), reg, "Raw", peer(t, "raw-tools"))
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if s := r2.Skipped(); len(s) == 0 || !strings.Contains(s[len(s)-1].Error(), `already (of the MCP server "raw")`) {
		t.Errorf("a second server of the same group: %v", s)
	}
}

// TestServerThatLogsOnStdout: a server that writes a line that is not MCP
// on its stdout during a call ends the connection; the call says so.
func TestServerThatLogsOnStdout(t *testing.T) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-tools"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "raw.junk", nil, tooling.WithConsent())
	if res.Code != codes.ToolError || !strings.Contains(res.Message, `the MCP server "raw" wrote something that is not an MCP message on its standard output (invalid character 'P' looking for beginning of value), which ends the connection`) {
		t.Errorf("code %q, message %q", res.Code, res.Message)
	}
}
