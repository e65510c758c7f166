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
// through this package's server fronting it (the go-sdk client talks to
// the gateway over the in-memory transport; the gateway's governed call
// goes on to the server over stdio), and from the go-sdk client straight to
// the server over stdio.
func BenchmarkGateway(b *testing.B) {
	s := everything(b)
	ctx := context.Background()
	b.Run("via=gateway", func(b *testing.B) {
		reg := tooling.NewRegistry()
		r, err := mcp.Connect(ctx, reg, "everything", s)
		if err != nil {
			b.Fatal(err)
		}
		defer r.Close()
		srv := mcp.NewServer(reg, mcp.Options{})
		benchCall(b, benchPipes(b, srv), "everything.echo", `{"message":"hello"}`)
	})
	b.Run("via=direct", func(b *testing.B) {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
			&sdk.CommandTransport{Command: exec.Command(s.Command, s.Args...)}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		benchCall(b, cs, "echo", `{"message":"hello"}`)
	})
}

// benchPipes connects a go-sdk client to srv over a pair of OS pipes, as an
// MCP host talks to a server it starts (stdio), without the process.
func benchPipes(b *testing.B, srv *mcp.Server) *sdk.ClientSession {
	cr, sw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	sr, cw, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	ss, err := srv.Connect(context.Background(), &sdk.IOTransport{Reader: sr, Writer: sw})
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
