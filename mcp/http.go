package mcp

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"reflect"
	"strings"
	"unsafe"

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

// trackStreams notes the context of each POST for as long as the request
// is served, under the identity of its header map, which the SDK hands the
// tool handler as it is (RequestExtra.Header).
func (s *Server) trackStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header == nil {
			next.ServeHTTP(w, r)
			return
		}
		key := headerKey(r.Header)
		s.streamMu.Lock()
		if s.streams == nil {
			s.streams = map[unsafe.Pointer]context.Context{}
		}
		s.streams[key] = r.Context()
		s.streamMu.Unlock()
		defer func() {
			s.streamMu.Lock()
			delete(s.streams, key)
			s.streamMu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// headerKey is the identity of a header map.
func headerKey(h http.Header) unsafe.Pointer { return reflect.ValueOf(h).UnsafePointer() }

// stream is the context of the HTTP request that carried req, nil when it
// came otherwise.
func (s *Server) stream(req *sdk.CallToolRequest) context.Context {
	if req.Extra == nil || req.Extra.Header == nil {
		return nil
	}
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	return s.streams[headerKey(req.Extra.Header)]
}
