package bindings

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"
)

// guard is what an HTTP source's requests may reach: the base URL's host
// and the allowed hosts, over http only when the base URL is http, and
// private addresses only when allowed, checked on the address dialled.
type guard struct {
	baseHostPort string
	allowHTTP    bool
	hosts        map[string]bool // host names allowed on any port
	hostPorts    map[string]bool // host:port allowed
	suffixes     []string        // ".example.com" of "*.example.com": its subdomains
	allowPrivate bool
	// resolve, set by tests, maps the address about to be dialled (host:port)
	// to another, as a resolver would: a name that resolves to loopback.
	resolve func(addr string) string
}

// guardError is a request a guard refused; it is never retried.
type guardError struct{ msg string }

func (e *guardError) Error() string { return "http: " + e.msg }

func newGuard(base *url.URL, allow []string, private bool) (*guard, error) {
	g := &guard{
		baseHostPort: hostPort(base),
		allowHTTP:    base.Scheme == "http",
		hosts:        map[string]bool{},
		hostPorts:    map[string]bool{},
		allowPrivate: private,
	}
	for _, h := range allow {
		if sub, ok := strings.CutPrefix(h, "*."); ok && sub != "" && !strings.ContainsAny(sub, "/@?#*: []") {
			g.suffixes = append(g.suffixes, "."+canonHost(sub))
			continue
		}
		if h == "" || strings.ContainsAny(h, "/@?#* ") {
			return nil, fmt.Errorf("allow_hosts: %q is not a host, host:port or *.domain", h)
		}
		if host, port, err := net.SplitHostPort(h); err == nil {
			g.hostPorts[net.JoinHostPort(canonHost(host), port)] = true
		} else {
			g.hosts[canonHost(strings.Trim(h, "[]"))] = true
		}
	}
	return g, nil
}

func canonHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

// hostPort is a URL's host and port, the port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	return net.JoinHostPort(canonHost(u.Hostname()), port)
}

// refusal says why a request to u is refused, "" when it is not.
func (g *guard) refusal(u *url.URL) string {
	switch u.Scheme {
	case "https":
	case "http":
		if !g.allowHTTP {
			return "the source is https and never downgrades to http"
		}
	default:
		return fmt.Sprintf("scheme %q is not http or https", u.Scheme)
	}
	hp, host := hostPort(u), canonHost(u.Hostname())
	if hp == g.baseHostPort || g.hostPorts[hp] || g.hosts[host] {
		return ""
	}
	for _, sfx := range g.suffixes {
		if strings.HasSuffix(host, sfx) {
			return ""
		}
	}
	return fmt.Sprintf("host %s is neither the source's nor in its allow_hosts", u.Host)
}

// checkRedirect checks every hop of a redirect chain: the hop limit, the
// destination and the method (methods nil: the first request's, or GET
// and HEAD, to which a 301, 302 or 303 turns it).
func (g *guard) checkRedirect(methods []string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if len(via) > maxRedirects {
			return &guardError{fmt.Sprintf("stopped after %d redirects", maxRedirects)}
		}
		if why := g.refusal(req.URL); why != "" {
			return &guardError{fmt.Sprintf("redirect to %s refused: %s", redactedURL(req.URL), why)}
		}
		if leftOrigin(req, via) {
			dropCredentials(req)
		}
		m := req.Method
		ok := slices.Contains(methods, m)
		if methods == nil {
			ok = m == via[0].Method || m == http.MethodGet || m == http.MethodHead
		}
		if !ok {
			return &guardError{fmt.Sprintf("redirect with method %s refused: not in the source's methods", m)}
		}
		return nil
	}
}

// origin is a URL's scheme, host and port, the port made explicit.
func origin(u *url.URL) string { return u.Scheme + "://" + hostPort(u) }

// leftOrigin reports whether a redirect chain has left the first request's
// origin: at this hop or any before it (net/http copies the first
// request's headers to every hop).
func leftOrigin(req *http.Request, via []*http.Request) bool {
	first := origin(via[0].URL)
	if origin(req.URL) != first {
		return true
	}
	for _, r := range via[1:] {
		if origin(r.URL) != first {
			return true
		}
	}
	return false
}

// credHeadersKey is the context key of a request's credential headers: the
// names of the headers whose value holds a ${NAME} reference.
type credHeadersKey struct{}

// dropCredentials removes from a redirected request every header that may
// carry a credential: the standard ones and those the tools file fills
// from ${NAME} references. net/http keeps Authorization and cookies on a
// redirect to another port or scheme of the same host, and every other
// header on any redirect.
func dropCredentials(req *http.Request) {
	for _, h := range []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"} {
		req.Header.Del(h)
	}
	names, _ := req.Context().Value(credHeadersKey{}).([]string)
	for _, h := range names {
		req.Header.Del(h)
	}
}

// control runs on every connection about to be made, with the address it
// is made to: a name's resolution cannot lead around it.
func (g *guard) control(_, address string, _ syscall.RawConn) error {
	if g.allowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &guardError{fmt.Sprintf("connecting to %s refused: not an IP address", address)}
	}
	if what, bad := refusedAddr(ap.Addr()); bad {
		return &guardError{fmt.Sprintf("connecting to %s refused: a %s address (the source does not allow_private)", address, what)}
	}
	return nil
}

// transport is the source's: no proxy from the environment (it would dial
// the proxy, not the destination), every dial checked.
func (g *guard) transport() *http.Transport {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: g.control}
	return &http.Transport{
		Proxy: nil,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if g.resolve != nil {
				addr = g.resolve(addr)
			}
			return d.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           64,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
}

var refusedPrefixes = []struct {
	p    netip.Prefix
	what string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "this-network"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (CGNAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "special-purpose"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::/96"), "IPv4-compatible"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
}

// embedded are IPv6 prefixes that carry an IPv4 address, checked in turn.
var embedded = []struct {
	p   netip.Prefix
	off int
}{
	{netip.MustParsePrefix("64:ff9b::/96"), 12},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), 12}, // IPv4-translated
	{netip.MustParsePrefix("2002::/16"), 2},
}

// refusedAddr says what kind of address a is when it is not a public one.
func refusedAddr(a netip.Addr) (string, bool) {
	a = a.WithZone("").Unmap()
	switch {
	case a.IsUnspecified():
		return "unspecified", true
	case a.IsLoopback():
		return "loopback", true
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "link-local", true
	case a.IsPrivate():
		return "private", true
	case a.IsMulticast(), a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "multicast or broadcast", true
	}
	for _, r := range refusedPrefixes {
		if r.p.Contains(a) {
			return r.what, true
		}
	}
	if a.Is6() {
		b := a.As16()
		for _, e := range embedded {
			if e.p.Contains(a) {
				v4 := netip.AddrFrom4([4]byte(b[e.off : e.off+4]))
				if what, bad := refusedAddr(v4); bad {
					return what + " (embedded in IPv6)", true
				}
			}
		}
	}
	return "", false
}
