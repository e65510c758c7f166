package mcp

import (
	"context"
	"net"
	"net/http"
	"reflect"
	"strings"
	"unsafe"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP handler of a Server: who may
// call. With none of Token, APIKeys and OAuth every request is served, as
// the anonymous principal; with any, every request must carry one of them
// (Authorization: Bearer ...), and its calls are made by the principal it
// names.
type HTTPOptions struct {
	// Token, when not empty, is a bearer token clients may send; its calls
	// are made by the principal "token" (Auth "token"). A listener on a
	// non-loopback address needs some authentication.
	Token string
	// APIKeys are keys clients may send as bearer tokens, each with its
	// principal (Auth "api_key").
	APIKeys []APIKey
	// OAuth, when not nil, accepts OAuth access tokens of its issuer for
	// this server, and serves the protected resource metadata (Auth
	// "oauth").
	OAuth *OAuth
}

// Validate reports what in o Handler cannot use: an API key that is not a
// SHA-256 digest or names no subject, OAuth without an issuer or with a
// resource that is not an absolute URL.
func (o HTTPOptions) Validate() error {
	_, err := newAuthenticator(o)
	return err
}

// Handler serves s over streamable HTTP (one session per client). It
// refuses a request that arrives on a loopback address with a Host that is
// not loopback (DNS rebinding) and a browser's request from another origin
// (403), and one without valid credentials when o asks for them: 401 with
// a Bearer challenge (naming the protected resource metadata under OAuth),
// or 403 insufficient_scope for an OAuth token without a required scope.
// A session is bound to the principal that opened it: another's requests
// on it are refused (403). Handler panics when o is not valid (Validate).
//
// A client that closes the stream of a call in flight (drops the
// connection of its POST) cancels the call's context: the server keeps no
// events to resume a stream from, so the result could never reach it.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	a, err := newAuthenticator(o)
	if err != nil {
		panic(err)
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, nil)
	var next http.Handler = http.NewCrossOriginProtection().Handler(s.trackStreams(h))
	if a == nil {
		return next
	}
	next = a.guard(next)
	if a.oauth != nil {
		next = a.oauth.serveMetadata(next)
	}
	return next
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
