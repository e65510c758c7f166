package mcp_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

var benchOutput = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)

func benchEcho(ctx context.Context, c tooling.Call) (any, error) {
	return map[string]any{"text": callargs.String(c.Args, "text")}, nil
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

// benchHTTP connects a go-sdk client to h served over HTTP on loopback.
func benchHTTP(b *testing.B, h http.Handler) *sdk.ClientSession {
	hs := httptest.NewServer(h)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		hs.Close()
	})
	return cs
}

func benchCalls(b *testing.B, cs *sdk.ClientSession) {
	benchCall(b, cs, "b.echo", `{"text":"hello","n":3}`)
}

// benchCall calls tool with args in a loop.
func benchCall(b *testing.B, cs *sdk.ClientSession, tool, args string) {
	params := &sdk.CallToolParams{Name: tool, Arguments: json.RawMessage(args)}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkCallRoundTrip is a tools/call round trip over the in-memory
// transport: through this package's server (the registry's governed call)
// and through the go-sdk's own server with a raw handler doing the same
// validation (see benchRawServer): it validates the arguments against the
// input schema, decodes them, runs the same function, encodes its output
// and validates that against the output schema, both schemas compiled once
// by the registry's validator.
func BenchmarkCallRoundTrip(b *testing.B) {
	b.Run("server=toolexplorer", func(b *testing.B) {
		srv := benchOurServer()
		benchCalls(b, benchClient(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(context.Background(), t) }))
	})
	b.Run("server=go-sdk", func(b *testing.B) {
		srv := benchRawServer()
		benchCalls(b, benchClient(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(context.Background(), t, nil) }))
	})
}

// BenchmarkHTTPCallRoundTrip is BenchmarkCallRoundTrip over streamable
// HTTP on loopback: this package's Handler against the go-sdk's own
// handler serving the raw server.
func BenchmarkHTTPCallRoundTrip(b *testing.B) {
	b.Run("server=toolexplorer", func(b *testing.B) {
		benchCalls(b, benchHTTP(b, benchOurServer().Handler(mcp.HTTPOptions{})))
	})
	b.Run("server=go-sdk", func(b *testing.B) {
		srv := benchRawServer()
		benchCalls(b, benchHTTP(b, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	})
}

var benchTool = tooling.Tool{Name: "b.echo", Description: "echoes", Input: echoInput, Output: benchOutput,
	Meta: tooling.Meta{Concurrency: tooling.ReadOnly}, Run: benchEcho}

// benchOurServer serves benchTool through the registry.
func benchOurServer() *mcp.Server {
	r := tooling.NewRegistry()
	r.Register(benchTool)
	return mcp.NewServer(r, mcp.Options{})
}

// benchRawServer is the go-sdk's server with a raw handler of benchTool
// that does what the registry's call does to the values, with the same
// validator: the arguments are checked against the input schema
// (Registry.ValidateArgs), decoded, given to the same function, and its
// output encoded and checked against the output schema. The output check is
// ValidateArgs of a second tool whose input schema is the output schema:
// compiled once at registration, it decodes and validates the encoded output
// each call as the registry's output step does. Nothing else of the
// governed call (rate, deadline, slot, observers) is done.
func benchRawServer() *sdk.Server {
	r := tooling.NewRegistry()
	r.Register(benchTool, tooling.Tool{Name: "b.echo_output", Input: benchOutput,
		Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
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
			fields, err = r.ValidateArgs("b.echo_output", out)
			if err != nil || len(fields) > 0 {
				return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "invalid output"}}}, nil
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
		})
	return srv
}

// BenchmarkHTTPAuth is HTTPCallRoundTrip through this package's Handler
// with no authentication, with an OAuth access token (JWT) checked against
// the issuer's keys, cached (RS256 with a 2048-bit key, ES256), and with
// an API key. The client sends the same header on every request.
func BenchmarkHTTPAuth(b *testing.B) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		b.Fatal(err)
	}
	rs256, es256 := &signingKey{kid: "rsa", priv: rsaKey, alg: jose.RS256}, newKey(b, "ec")
	as := newAuthServer(b, rs256, es256)
	keys := []mcp.APIKey{{SHA256: mcp.APIKeyDigest("bench-key"), Principal: tooling.Principal{Subject: "bench"}}}
	for _, c := range []struct {
		name string
		key  *signingKey // nil: no JWT
		api  string
	}{
		{"auth=none", nil, ""},
		{"auth=jwt-rs256", rs256, ""},
		{"auth=jwt-es256", es256, ""},
		{"auth=api_key", nil, "bench-key"},
	} {
		b.Run(c.name, func(b *testing.B) {
			o := mcp.HTTPOptions{}
			token := c.api
			if c.key != nil {
				o.OAuth = &mcp.OAuth{Issuer: as.URL, Scopes: []string{"tools:call"}}
			}
			if c.api != "" {
				o.APIKeys = keys
			}
			srv := benchOurServer()
			url := resourceServer(b, nil, o, srv)
			if c.key != nil {
				claims := as.claims(url, map[string]any{"exp": time.Now().Add(time.Hour).Unix()})
				token = sign(b, c.key, claims)
			}
			var rt http.RoundTripper = http.DefaultTransport
			if token != "" {
				rt = headerRT{"Authorization": "Bearer " + token}
			}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
				&sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1, HTTPClient: &http.Client{Transport: rt}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { cs.Close() })
			benchCalls(b, cs)
		})
	}
}
