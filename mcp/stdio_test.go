package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
)

// TestIOTransportLines: over mcp.IOTransport, a line over the SDK's
// length bound is answered with an invalid request and reading goes on; a
// batch on a protocol that has batches (2025-03-26) is served as the SDK
// serves it, one array of responses.
func TestIOTransportLines(t *testing.T) {
	r, _, _ := testRegistry(t)
	srv := mcp.NewServer(r, mcp.Options{})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), mcp.IOTransport(inR, outW)) }()
	lines := bufio.NewScanner(outR)
	send := func(line string) string {
		t.Helper()
		go func() { _, _ = io.WriteString(inW, line+"\n") }()
		if !lines.Scan() {
			t.Fatalf("no reply (%v)", lines.Err())
		}
		return lines.Text()
	}
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", sdk.DefaultMaxLineLength) + `"}}`
	if got := send(long); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `"id":null`) {
		t.Errorf("a line over the bound: reply %s", got)
	}
	got := send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if !strings.Contains(got, `"id":2,"result"`) {
		t.Fatalf("initialize: %s", got)
	}
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		t.Fatal(err)
	}
	var batch []struct {
		ID     int             `json:"id"`
		Result json.RawMessage `json:"result"`
	}
	got = send(`[{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","id":4,"method":"ping"}]`)
	if err := json.Unmarshal([]byte(got), &batch); err != nil || len(batch) != 2 || batch[0].ID+batch[1].ID != 7 {
		t.Errorf("a batch on 2025-03-26: reply %s (%v)", got, err)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if err := <-done; err != nil && err != io.EOF {
		t.Errorf("Run: %v", err)
	}
}
