package mcp_test

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

var benchOutput = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)

func benchEcho(ctx context.Context, c tooling.Call) (any, error) {
	return map[string]any{"text": c.String("text")}, nil
}

// benchClient connects a go-sdk client to srv in memory.
func benchClient(b *testing.B, connect func(sdk.Transport) (*sdk.ServerSession, error)) *sdk.ClientSession {
	ct, st := sdk.NewInMemoryTransports()
	ss, err := connect(st)
	if err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func benchCalls(b *testing.B, cs *sdk.ClientSession) {
	params := &sdk.CallToolParams{Name: "b.echo", Arguments: json.RawMessage(`{"text":"hello","n":3}`)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
}

// BenchmarkCallRoundTrip is a tools/call round trip over the in-memory
// transport: through this package's server (the registry's governed call)
// and through the go-sdk's own server with a raw handler that validates the
// arguments with the same validator (Registry.ValidateArgs), decodes them,
// runs the same function and encodes its output.
func BenchmarkCallRoundTrip(b *testing.B) {
	tool := tooling.Tool{Name: "b.echo", Description: "echoes", Input: echoInput, Output: benchOutput,
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: benchEcho}
	b.Run("server=toolexplorer", func(b *testing.B) {
		r := tooling.NewRegistry()
		r.Register(tool)
		srv := mcp.NewServer(r, mcp.Options{})
		benchCalls(b, benchClient(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(context.Background(), t) }))
	})
	b.Run("server=go-sdk", func(b *testing.B) {
		r := tooling.NewRegistry()
		r.Register(tool)
		srv := sdk.NewServer(&sdk.Implementation{Name: "raw", Version: "1"}, nil)
		srv.AddTool(&sdk.Tool{Name: "b.echo", Description: "echoes", InputSchema: echoInput, OutputSchema: benchOutput},
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				fields, err := r.ValidateArgs("b.echo", req.Params.Arguments)
				if err != nil || len(fields) > 0 {
					return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "invalid arguments"}}}, nil
				}
				var args map[string]any
				if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
					return nil, err
				}
				text, _ := args["text"].(string)
				out, err := json.Marshal(map[string]any{"text": text})
				if err != nil {
					return nil, err
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
			})
		benchCalls(b, benchClient(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(context.Background(), t, nil) }))
	})
}
