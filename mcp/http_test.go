package mcp_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
)

// dropStream is an HTTP transport that hands over the connection of each
// tools/call, so that a test can close its stream, and refuses to
// send notifications/cancelled, counting them: a call it ends is ended by
// the closed stream alone.
type dropStream struct {
	calls   chan io.Closer
	notices atomic.Int32
}

func (d *dropStream) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	if bytes.Contains(body, []byte(`"notifications/cancelled"`)) {
		d.notices.Add(1)
		return nil, errors.New("notifications/cancelled not sent")
	}
	if !bytes.Contains(body, []byte(`"tools/call"`)) {
		return http.DefaultTransport.RoundTrip(req)
	}
	// The call gets a connection of its own, handed over to be closed (the
	// server may send the response's headers only with the result).
	t := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			d.calls <- c
		}
		return c, err
	}}
	defer t.CloseIdleConnections()
	return t.RoundTrip(req)
}

// TestHTTPClosedStreamCancels: a client that drops the connection of a
// call in flight cancels the call's context, with no cancel notification,
// on every protocol version served.
func TestHTTPClosedStreamCancels(t *testing.T) {
	for _, v := range protocols {
		t.Run("protocol="+v, func(t *testing.T) {
			r, started, ended := testRegistry(t)
			srv := mcp.NewServer(r, mcp.Options{})
			hs := httptest.NewServer(srv.Handler(mcp.HTTPOptions{}))
			defer hs.Close()
			defer srv.Close()
			drop := &dropStream{calls: make(chan io.Closer, 1)}
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
				&sdk.StreamableClientTransport{Endpoint: hs.URL, MaxRetries: -1, HTTPClient: &http.Client{Transport: drop}},
				&sdk.ClientSessionOptions{ProtocolVersion: v})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			errc := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "t.block", Arguments: map[string]any{}})
				errc <- err
			}()
			stream := <-drop.calls
			<-started
			stream.Close()
			if err := <-ended; !errors.Is(err, context.Canceled) {
				t.Errorf("the tool's context ended with %v, want canceled", err)
			}
			<-errc
			if n := drop.notices.Load(); n != 0 {
				t.Errorf("the client sent %d cancel notifications; the test means the stream alone to cancel", n)
			}
		})
	}
}
