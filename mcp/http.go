package mcp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"time"
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
	// MaxSessions bounds the HTTP sessions of the server open at once: a
	// request that would open one more is refused with 503 and a JSON-RPC
	// error until one ends (its client closes it, or it is idle for
	// IdleTimeout). Zero: DefaultMaxSessions.
	MaxSessions int
	// IdleTimeout ends a session whose client has sent no request for that
	// long (a client that holds a session open sends pings). Zero:
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// APIKeys are keys clients may send as bearer tokens, each with its
	// principal (Auth "api_key").
	APIKeys []APIKey
	// OAuth, when not nil, accepts OAuth access tokens of its issuer for
	// this server, and serves the protected resource metadata (Auth
	// "oauth").
	OAuth *OAuth
	// Stateless serves each request on its own, without Mcp-Session-Id,
	// so that any replica of a host behind a balancer serves any request:
	// rate limits, budgets and idempotency records must then be shared
	// (package state). MaxSessions and IdleTimeout do not apply. What it
	// costs a client of a protocol version before 2026-07-28, which
	// declares its capabilities and name once, at initialize: it is never
	// asked for consent (a call that needs it is refused with
	// consent_required, unless the listener grants it), it is sent no
	// tools/list_changed (it lists the tools again to see a change), and
	// its calls' principal names no client. A client of 2026-07-28 or
	// later sends them with every request and is asked for consent in the
	// call's result; it hears tools/list_changed on its
	// subscriptions/listen stream, of changes the replica holding that
	// stream makes. Default false: a session per client, which a balancer
	// must keep on the replica that opened it (affinity on the
	// Mcp-Session-Id header).
	Stateless bool
}

// Validate reports what in o Handler cannot use: an API key that is not a
// SHA-256 digest or names no subject, OAuth without an issuer or with a
// resource that is not an absolute URL.
func (o HTTPOptions) Validate() error {
	_, err := newAuthenticator(o)
	return err
}

// The defaults of HTTPOptions. Each open session holds memory (some KB)
// until it ends.
const (
	DefaultMaxSessions = 100
	DefaultIdleTimeout = 30 * time.Minute
)

// Handler serves s over streamable HTTP (one session per client, or, with
// o.Stateless, none: each request on its own). It
// refuses a request that arrives on a loopback address with a Host that is
// not loopback (DNS rebinding) and a browser's request from another origin
// (403), and one without valid credentials when o asks for them: 401 with
// a Bearer challenge (naming the protected resource metadata under OAuth),
// or 403 insufficient_scope for an OAuth token without a required scope.
// A session is bound to the principal that opened it: another's requests
// on it are refused (403). Handler panics when o is not valid (Validate).
// The same Handler refuses a request that would open a session over
// o.MaxSessions (503); a session idle for o.IdleTimeout ends, its client's
// next request gets 404, and it starts a new one.
//
// A client that closes the stream of a call in flight (drops the
// connection of its POST) cancels the call's context: the server keeps no
// events to resume a stream from, so the result could never reach it.
func (s *Server) Handler(o HTTPOptions) http.Handler {
	a, err := newAuthenticator(o)
	if err != nil {
		panic(err)
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv },
		&sdk.StreamableHTTPOptions{SessionTimeout: o.IdleTimeout, Stateless: o.Stateless})
	var next http.Handler = s.trackStreams(h)
	if !o.Stateless {
		next = s.capSessions(next, o.MaxSessions)
	}
	next = http.NewCrossOriginProtection().Handler(next)
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

// trackStreams notes each POST for as long as it is served, under the
// identity of its header map, which the SDK hands the tool handler as it
// is (RequestExtra.Header): the calls it carries tie themselves to it
// (tie), and those still running when it ends are canceled. The SDK ends
// a POST once its responses are written, or when its client dropped the
// connection, so those are the calls whose results could never reach it.
// (Canceling them here, as the POST ends, rather than from its context,
// costs a call no context callback.)
func (s *Server) trackStreams(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header == nil {
			next.ServeHTTP(w, r)
			return
		}
		key := headerKey(r.Header)
		st := &postStream{}
		st.calls = st.first[:0]
		s.streamMu.Lock()
		if s.streams == nil {
			s.streams = map[unsafe.Pointer]*postStream{}
		}
		s.streams[key] = st
		s.streamMu.Unlock()
		defer func() {
			s.streamMu.Lock()
			defer s.streamMu.Unlock()
			delete(s.streams, key)
			for _, cancel := range st.calls {
				if cancel != nil {
					cancel()
				}
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// postStream is a POST being served (trackStreams): the cancel functions
// of the calls it carried that still run, nil for those that returned.
type postStream struct {
	calls []context.CancelFunc
	first [1]context.CancelFunc // calls' room for the usual one
}

// headerKey is the identity of a header map.
func headerKey(h http.Header) unsafe.Pointer { return reflect.ValueOf(h).UnsafePointer() }

// tie ties the call req to the POST that carried it, when one did: the
// context returned is canceled when the POST ends first; untie (with st
// and i) unties it, once the call returned. st is nil for a call that
// came otherwise, and ctx is returned as it is.
func (s *Server) tie(ctx context.Context, req *sdk.CallToolRequest) (_ context.Context, st *postStream, i int, cancel context.CancelFunc) {
	if req.Extra == nil || req.Extra.Header == nil {
		return ctx, nil, 0, nil
	}
	s.streamMu.Lock()
	defer s.streamMu.Unlock()
	if st = s.streams[headerKey(req.Extra.Header)]; st == nil {
		return ctx, nil, 0, nil
	}
	ctx, cancel = context.WithCancel(ctx)
	st.calls = append(st.calls, cancel)
	return ctx, st, len(st.calls) - 1, cancel
}

// untie ends what tie made.
func (s *Server) untie(st *postStream, i int, cancel context.CancelFunc) {
	s.streamMu.Lock()
	st.calls[i] = nil
	s.streamMu.Unlock()
	cancel()
}

// sessionHeader is the header of the session a request belongs to; a POST
// without it opens a session.
const sessionHeader = "Mcp-Session-Id"

// capSessions refuses a request that would open an HTTP session when max
// are open or opening. A session is counted from the request that opens it
// until it ends.
func (s *Server) capSessions(next http.Handler, max int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get(sessionHeader) != "" {
			next.ServeHTTP(w, r)
			return
		}
		s.capMu.Lock()
		open := s.opening + s.httpSessions()
		if open >= max {
			s.capMu.Unlock()
			refuseSession(w, r, max)
			return
		}
		s.opening++
		s.capMu.Unlock()
		// Once this request is served, its session is among the server's,
		// or has ended.
		defer func() {
			s.capMu.Lock()
			s.opening--
			s.capMu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

// httpSessions counts the server's open HTTP sessions: those with an id
// (a stdio or in-memory session has none).
func (s *Server) httpSessions() int {
	n := 0
	for ss := range s.srv.Sessions() {
		if ss.ID() != "" {
			n++
		}
	}
	return n
}

// refuseSession answers a request that would open a session over the cap:
// 503, and a JSON-RPC error with the request's id when it has one.
func refuseSession(w http.ResponseWriter, r *http.Request, max int) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<10))
	b := errorResponse(body, codeTooManySessions, fmt.Sprintf(
		"too many sessions: the server has its %d open; retry once a client closes one or one is idle long enough to end", max))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write(b)
}

// codeTooManySessions is the JSON-RPC error code of a session refused over
// the cap: a server error (-32000 to -32099).
const codeTooManySessions = -32000
