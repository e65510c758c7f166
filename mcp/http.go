package mcp

import (
	"crypto/subtle"
	"net"
	"net/http"
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
func (s *Server) Handler(o HTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, nil)
	var next http.Handler = http.NewCrossOriginProtection().Handler(h)
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
