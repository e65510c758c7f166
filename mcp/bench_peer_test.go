//go:build linux

package mcp_test

import (
	"context"
	"os"
	"os/exec"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// BenchmarkGateway is a tools/call of server-everything's echo (stdio):
//
//   - via=gateway: through this package's server fronting it: the go-sdk
//     client talks to the gateway over a pair of OS pipes, as a host talks to
//     `toolexplorer serve`; the gateway's governed call goes on to the server
//     over stdio;
//   - via=sdk-proxy: the same hops through a bare proxy made of the go-sdk
//     alone: an sdk.Server whose raw handler passes the call on through an
//     sdk.ClientSession to the server and returns its result (no governance,
//     no validation): what the SDK's extra hop costs by itself;
//   - via=direct: the go-sdk client straight to the server over stdio.
func BenchmarkGateway(b *testing.B) {
	s := everything(b)
	ctx := context.Background()
	args := `{"message":"hello"}`
	b.Run("via=gateway", func(b *testing.B) {
		reg := tooling.NewRegistry()
		r, err := mcp.Connect(ctx, reg, "everything", s)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		srv := mcp.NewServer(reg, mcp.Options{})
		benchCall(b, benchPipes(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(ctx, t) }), "everything.echo", args)
	})
	b.Run("via=sdk-proxy", func(b *testing.B) {
		up := everythingSession(b, s)
		srv := sdk.NewServer(&sdk.Implementation{Name: "proxy", Version: "1"}, nil)
		for tool, err := range up.Tools(ctx, nil) {
			if err != nil {
				b.Fatal(err)
			}
			if tool.Name == "echo" {
				srv.AddTool(tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
					return up.CallTool(ctx, &sdk.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments})
				})
			}
		}
		benchCall(b, benchPipes(b, func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(ctx, t, nil) }), "echo", args)
	})
	b.Run("via=direct", func(b *testing.B) {
		benchCall(b, everythingSession(b, s), "echo", args)
	})
}

// everythingSession is a go-sdk client session with server-everything,
// started over stdio; it ends with the benchmark.
func everythingSession(b *testing.B, s mcp.Spec) *sdk.ClientSession {
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&sdk.CommandTransport{Command: exec.Command(s.Command, s.Args...)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// benchPipes connects a go-sdk client to a server over a pair of OS pipes,
// as an MCP host talks to a server it starts (stdio), without the process.
func benchPipes(b *testing.B, connect func(sdk.Transport) (*sdk.ServerSession, error)) *sdk.ClientSession {
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ss, err := connect(&sdk.IOTransport{Reader: sr, Writer: sw})
	if err != nil {
		b.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(),
		&sdk.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}
