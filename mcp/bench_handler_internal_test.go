package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// handlerInput is the input schema of BenchmarkServedPeers's echo.
var handlerInput = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)

func handlerEchoOutput(text string) []byte {
	out, _ := json.Marshal(map[string]string{"text": text})
	return out
}

// BenchmarkServedHandler is this package's part of one tools/call of
// BenchmarkServedPeers's echo, without the SDK's session and transport:
// the receiving middleware (the server span, the unlisted-call check), the
// handler and the governed call; side by side with the raw handler the
// go-sdk's server runs for it. Over http the call is tied to a stream,
// as a call that came in a POST is.
func BenchmarkServedHandler(b *testing.B) {
	for _, transport := range []string{"stdio", "http"} {
		for _, server := range []string{"toolexplorer", "raw"} {
			b.Run("transport="+transport+"/server="+server, func(b *testing.B) {
				h := handlerUnderBench(b, server)
				req := &sdk.CallToolRequest{Params: &sdk.CallToolParamsRaw{Name: "b.echo", Arguments: json.RawMessage(`{"text":"hello"}`)}}
				ctx := context.Background()
				if transport == "http" {
					hdr := http.Header{}
					req.Extra = &sdk.RequestExtra{Header: hdr}
					if s, ok := h.srv.(*Server); ok {
						// Each call comes in a POST of its own, as
						// trackStreams notes it.
						next := h.call
						var (
							callCtx context.Context
							res     sdk.Result
							err     error
						)
						post := &http.Request{Method: http.MethodPost, Header: hdr}
						tracked := s.trackStreams(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
							res, err = next(callCtx, "tools/call", req)
						}))
						h.call = func(ctx context.Context, _ string, _ sdk.Request) (sdk.Result, error) {
							callCtx = ctx
							tracked.ServeHTTP(nil, post)
							return res, err
						}
					}
					// The SDK serves a call under its session's context.
					var c2 context.CancelFunc
					ctx, c2 = context.WithCancel(ctx)
					defer c2()
				}
				b.ReportAllocs()
				for b.Loop() {
					res, err := h.call(ctx, "tools/call", req)
					if err != nil {
						b.Fatal(err)
					}
					r := res.(*sdk.CallToolResult)
					if r.IsError || r.Content[0].(*sdk.TextContent).Text != `{"text":"hello"}` {
						b.Fatalf("echo answered %+v", r.Content[0])
					}
				}
			})
		}
	}
}

type benchHandler struct {
	srv  any
	call sdk.MethodHandler
}

func handlerUnderBench(b *testing.B, server string) benchHandler {
	if server == "raw" {
		return benchHandler{srv: nil, call: func(_ context.Context, _ string, r sdk.Request) (sdk.Result, error) {
			req := r.(*sdk.CallToolRequest)
			var args struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			out := handlerEchoOutput(args.Text)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
		}}
	}
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "b.echo", Description: "echoes", Input: handlerInput,
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			var args struct{ Text string }
			if err := c.Decode(&args); err != nil {
				return nil, err
			}
			return json.RawMessage(handlerEchoOutput(args.Text)), nil
		}})
	s := NewServer(reg, Options{})
	b.Cleanup(s.Detach)
	h := s.handler("b.echo", false)
	inner := func(ctx context.Context, _ string, r sdk.Request) (sdk.Result, error) {
		return h(ctx, r.(*sdk.CallToolRequest))
	}
	return benchHandler{srv: s, call: serverSpans(s.unlistedCalls(inner))}
}
