package mcp

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP handler of a Server.
type HTTPOptions struct {
	// Token, when not empty, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN); others get 401. A listener on a
	// non-loopback address needs one.
	Token string
}

// Handler serves s over streamable HTTP (one session per client). It
// refuses a request that arrives on a loopback address with a Host that is
// not loopback (DNS rebinding) and a browser's request from another origin
// (403), and without the token when one is set (401).
//
// A client that closes the stream of a call in flight (drops the
// connection of its POST) cancels the call's context: the server keeps no
// events to resume a stream from, so the result could never reach it.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, nil)
	var next http.Handler = http.NewCrossOriginProtection().Handler(s.trackStreams(h))
	if o.Token == "" {
		return next
	}
	want := []byte("Bearer " + o.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolexplorer"`)
			http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Loopback reports whether addr (host:port, or a host) names only loopback
// addresses: localhost, 127.0.0.0/8 or ::1. An empty host (all interfaces)
// is not loopback.
func Loopback(addr string) bool {
	host := addr
	if h, _, err := net.SplitHostPort(addr); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// streamHeader carries the id of the HTTP request a message came in, from
// trackStreams to the tool handler (through the SDK's RequestExtra.Header).
const streamHeader = "X-Toolexplorer-Stream"

// trackStreams notes the context of each POST, under an id it sets in
// streamHeader (replacing any the client sent), for as long as the request
// is served.
func (s *Server) trackStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			r.Header.Del(streamHeader)
			next.ServeHTTP(w, r)
			return
		}
		id := strconv.FormatUint(s.streamSeq.Add(1), 10)
		r.Header.Set(streamHeader, id)
		s.streams.Store(id, r.Context())
		defer s.streams.Delete(id)
		next.ServeHTTP(w, r)
	})
}

// streamContext is ctx canceled as well when the HTTP request that
// carried req ends before the call does.
func (s *Server) streamContext(ctx context.Context, req *sdk.CallToolRequest) (context.Context, context.CancelFunc) {
	if req.Extra == nil || req.Extra.Header == nil {
		return ctx, func() {}
	}
	v, ok := s.streams.Load(req.Extra.Header.Get(streamHeader))
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(v.(context.Context), cancel)
	return ctx, func() { stop(); cancel() }
}
