package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var nameQuestion = map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}

// greeting is the result of an upstream tool that asked for a name.
func greeting(res *sdk.ElicitResult, err error) *sdk.CallToolResult {
	msg := "no answer"
	switch {
	case err != nil:
		msg = "no answer: " + err.Error()
	case res.Action == "accept":
		msg = "hello " + res.Content["name"].(string)
	case res.Action != "":
		msg = res.Action
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// upstream is a go-sdk server whose tools ask for a name during the call:
// "ask" sends elicitation/create (its clients speak an older protocol over
// stateful HTTP), "ask_later" returns the question as an input request of
// its result and reads the answer when called again (protocol 2026-07-28,
// stateless HTTP). "ask_write" is "ask" without annotations: it needs
// consent. calls counts the tools' runs.
func upstream(t *testing.T, stateless bool) (url string, calls *int, mu *sync.Mutex) {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "up", Version: "1"}, nil)
	mu, calls = new(sync.Mutex), new(int)
	count := func() {
		mu.Lock()
		*calls++
		mu.Unlock()
	}
	in := json.RawMessage(`{"type":"object"}`)
	ask := func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		count()
		return greeting(req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: "Your name?", RequestedSchema: nameQuestion})), nil
	}
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: in, Annotations: ro}, ask)
	srv.AddTool(&sdk.Tool{Name: "ask_write", InputSchema: in}, ask)
	srv.AddTool(&sdk.Tool{Name: "ask_later", InputSchema: in, Annotations: ro},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			count()
			if a, ok := req.Params.InputResponses["name"].(*sdk.ElicitResult); ok {
				return greeting(a, nil), nil
			}
			return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{
				"name": &sdk.ElicitParams{Mode: "form", Message: "Your name, later?", RequestedSchema: nameQuestion}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv },
		&sdk.StreamableHTTPOptions{Stateless: stateless}))
	t.Cleanup(hs.Close)
	return hs.URL, calls, mu
}

// gateway serves the tools of the upstream server at url through a Server.
func gateway(t *testing.T, url string) *mcp.Server {
	t.Helper()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "up", mcp.Spec{URL: url}, mcp.WithElicitation(nil))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return mcp.NewServer(reg, mcp.Options{})
}

// TestGatewayForwardsElicitation: a server behind the gateway that asks for
// input during a call has its question asked of the MCP client that made
// the call, and gets its answer; a client without elicitation has the
// question declined. Both protocols of the client (asked during the call,
// or asked by the call's result and the call made again), and both ways
// the server asks (elicitation/create, or an input request of its result).
func TestGatewayForwardsElicitation(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		url, calls, mu := upstream(t, stateless)
		srv := gateway(t, url)
		tool, message := "up.ask", "Your name?"
		if stateless {
			tool, message = "up.ask_later", "Your name, later?"
		}
		for _, v := range protocols {
			t.Run(tool+"/protocol="+v, func(t *testing.T) {
				var amu sync.Mutex
				var asked []string
				host := connectVersion(t, srv, &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					amu.Lock()
					defer amu.Unlock()
					asked = append(asked, req.Params.Message)
					if strings.Contains(req.Params.Message, "allow once?") {
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
					}
					return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				}}, v)
				mu.Lock()
				*calls = 0
				mu.Unlock()
				if res := call(t, host, tool, map[string]any{}); res.IsError || text(res) != "hello Ada" {
					t.Errorf("%s: isError %v, text %q", tool, res.IsError, text(res))
				}
				amu.Lock()
				if len(asked) != 1 || asked[0] != message {
					t.Errorf("the client was asked %q, want [%q]", asked, message)
				}
				asked = nil
				amu.Unlock()
				// The tool runs once per question of its own (ask_later), and
				// once more when the client is asked by the call's result.
				runs := 1
				if stateless {
					runs++
				}
				if v == "" {
					runs++
				}
				mu.Lock()
				if *calls != runs {
					t.Errorf("the tool ran %d times, want %d", *calls, runs)
				}
				mu.Unlock()

				// A client without elicitation: declined.
				plain := connectVersion(t, srv, nil, v)
				if res := call(t, plain, tool, map[string]any{}); res.IsError || text(res) != "decline" {
					t.Errorf("%s without elicitation: isError %v, text %q", tool, res.IsError, text(res))
				}

				if stateless {
					return
				}
				// Consent first, then the server's question: both answers
				// reach the last attempt.
				if res := call(t, host, "up.ask_write", map[string]any{}); res.IsError || text(res) != "hello Ada" {
					t.Errorf("up.ask_write: isError %v, text %q", res.IsError, text(res))
				}
				amu.Lock()
				if len(asked) != 2 || !strings.Contains(asked[0], "allow once?") || asked[1] != message {
					t.Errorf("the client was asked %q, want consent then %q", asked, message)
				}
				amu.Unlock()
			})
		}
	}
}

// TestConsoleElicitation: a call made without a Server (the console's)
// has the server's question answered by the ElicitFunc.
func TestConsoleElicitation(t *testing.T) {
	url, _, _ := upstream(t, false)
	reg := tooling.NewRegistry()
	var got []mcp.Elicitation
	r, err := mcp.Connect(context.Background(), reg, "up", mcp.Spec{URL: url}, mcp.WithElicitation(
		func(ctx context.Context, e mcp.Elicitation) (map[string]any, bool, error) {
			got = append(got, e)
			return map[string]any{"name": "Grace"}, true, nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "up.ask", json.RawMessage(`{}`))
	if !res.OK() || string(res.Output) != `"hello Grace"` {
		t.Fatalf("up.ask: %s %s %s", res.Code, res.Message, res.Output)
	}
	if len(got) != 1 || got[0].Server != "up" || got[0].Message != "Your name?" || !strings.Contains(string(got[0].Schema), `"name"`) {
		t.Errorf("asked %+v", got)
	}
}

// TestGatewayPassesResultsOn: a remote tool's result reaches the gateway's
// client as the server gave it (its text unquoted, other blocks,
// structuredContent), once the registry has checked it; output that fails
// the tool's outputSchema is the registry's refusal instead.
func TestGatewayPassesResultsOn(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "up", Version: "1"}, nil)
	in := json.RawMessage(`{"type":"object"}`)
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	ro := &sdk.ToolAnnotations{ReadOnlyHint: true}
	blocks := []sdk.Content{&sdk.TextContent{Text: "two"}, &sdk.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}}
	srv.AddTool(&sdk.Tool{Name: "blocks", InputSchema: in, Annotations: ro}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: blocks}, nil
	})
	srv.AddTool(&sdk.Tool{Name: "count", InputSchema: in, OutputSchema: out, Annotations: ro}, func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var a struct{ N any }
		_ = json.Unmarshal(req.Params.Arguments, &a)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "counted"}}, StructuredContent: map[string]any{"n": a.N}}, nil
	})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(hs.Close) // after the gateway's connection to it is closed
	host := connect(t, gateway(t, hs.URL), nil)

	res := call(t, host, "up.blocks", map[string]any{})
	if res.IsError || len(res.Content) != 2 || text(res) != "two" {
		t.Errorf("up.blocks: %+v", res)
	} else if img, ok := res.Content[1].(*sdk.ImageContent); !ok || img.MIMEType != "image/png" || len(img.Data) != 2 {
		t.Errorf("up.blocks: second block %+v", res.Content[1])
	}
	res = call(t, host, "up.count", map[string]any{"n": 3})
	if b, _ := json.Marshal(res.StructuredContent); res.IsError || text(res) != "counted" || string(b) != `{"n":3}` {
		t.Errorf("up.count: isError %v, text %q, structuredContent %s", res.IsError, text(res), b)
	}
	res = call(t, host, "up.count", map[string]any{"n": "three"})
	if !res.IsError || !strings.Contains(text(res), string(codes.OutputInvalid)) {
		t.Errorf("up.count with output off its schema: isError %v, text %q", res.IsError, text(res))
	}
}

// TestRequestStateIsSigned: the answers a client gave earlier come back
// in the requestState of a result that asks again, and count only as the
// server made them: a state altered by the client is ignored, and what it
// carried is asked again.
func TestRequestStateIsSigned(t *testing.T) {
	url, _, _ := upstream(t, false)
	srv := gateway(t, url)
	host := connectVersion(t, srv, &sdk.ClientOptions{MultiRoundTrip: &sdk.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return nil, errors.New("not asked during the call on this protocol")
		}}, "")
	ctx := context.Background()
	round := func(responses sdk.InputResponseMap, state string) *sdk.CallToolResult {
		t.Helper()
		res, err := host.CallTool(ctx, &sdk.CallToolParams{Name: "up.ask_write", Arguments: map[string]any{}, InputResponses: responses, RequestState: state})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	allow := &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}
	first := round(nil, "")
	if _, ok := first.InputRequests["consent"]; !ok || len(first.InputRequests) != 1 {
		t.Fatalf("first round asks %v, want consent", first.InputRequests)
	}
	second := round(sdk.InputResponseMap{"consent": allow}, "")
	var question string
	for id := range second.InputRequests {
		question = id
	}
	if len(second.InputRequests) != 1 || !strings.HasPrefix(question, "elicit:up:") || second.RequestState == "" {
		t.Fatalf("second round asks %v with state %q, want the server's question and a state", second.InputRequests, second.RequestState)
	}
	name := sdk.InputResponseMap{question: &sdk.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}
	// The signature's first character changed (still base64; the last one
	// may carry only padding bits).
	altered := []byte(second.RequestState)
	i := strings.IndexByte(second.RequestState, '.') + 1
	if altered[i] != 'A' {
		altered[i] = 'A'
	} else {
		altered[i] = 'B'
	}
	if res := round(name, string(altered)); len(res.InputRequests) != 1 || res.InputRequests["consent"] == nil {
		t.Errorf("an altered state: asks %v, want consent again", res.InputRequests)
	}
	if res := round(name, second.RequestState); len(res.InputRequests) != 0 || res.IsError || text(res) != "hello Ada" {
		t.Errorf("the state as made: asks %v, text %q", res.InputRequests, text(res))
	}
}
