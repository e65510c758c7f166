package config

import (
	"encoding/hex"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
)

// checkServe reports what is wrong with the serve settings of a Config
// built in code (a loaded file's schema says most of it already): API keys
// without a digest, OAuth without an issuer or resource, URLs that are not
// absolute http(s), a negative session bound, leeway or idle timeout.
func (p *problems) checkServe(s Serve) {
	if s.Token != "" && strings.TrimSpace(s.Token) != s.Token {
		p.add("/serve/token", "must not begin or end with white space")
	}
	if s.MaxSessions < 0 {
		p.add("/serve/max_sessions", "must be at least 1, got %d (0 means the default, 100)", s.MaxSessions)
	}
	if s.IdleTimeout < 0 {
		p.add("/serve/idle_timeout", "must be a positive duration, got %s (0 means the default, 30m)", s.IdleTimeout)
	}
	names := make([]string, 0, len(s.APIKeys))
	for name := range s.APIKeys {
		names = append(names, name)
	}
	sort.Strings(names)
	digests := map[string]string{}
	for _, name := range names {
		k := s.APIKeys[name]
		at := "/serve/api_keys/" + jsonpointer.Escape(name)
		if name == "" {
			p.add(at, "an API key needs a name")
		}
		d := strings.ToLower(k.SHA256)
		if b, err := hex.DecodeString(d); err != nil || len(b) != 32 {
			p.add(at+"/sha256", "must be the key's SHA-256 digest, 64 hex digits ('toolexplorer apikey %s' makes a key and its digest), got %d characters", name, len(k.SHA256))
		} else if other, dup := digests[d]; dup {
			p.add(at+"/sha256", "is the digest of key %q too: two names for one key", other)
		} else {
			digests[d] = name
		}
		for i, r := range k.Roles {
			if r == "" {
				p.add(at+"/roles/"+itoa(i), "must not be empty")
			}
		}
	}
	if o := s.OAuth; o != nil {
		at := "/serve/oauth"
		p.checkURL(at+"/issuer", o.Issuer, true)
		p.checkURL(at+"/resource", o.Resource, true)
		if u, err := url.Parse(o.Resource); err == nil && u.Fragment != "" {
			p.add(at+"/resource", "%q has a fragment: a resource URI has none", o.Resource)
		}
		if o.JWKSURL != "" {
			p.checkURL(at+"/jwks_url", o.JWKSURL, false)
		}
		if o.Leeway < 0 {
			p.add(at+"/leeway", "must not be negative, got %s (0 means the default, 30s)", o.Leeway)
		}
		for i, sc := range o.Scopes {
			if sc == "" || strings.ContainsAny(sc, " \t\n") {
				p.add(at+"/scopes/"+itoa(i), "must be one scope, without spaces, got %q", sc)
			}
			if j := slices.Index(o.Scopes[:i], sc); j >= 0 {
				p.add(at+"/scopes/"+itoa(i), "%q is listed twice", sc)
			}
		}
	}
}

// checkURL reports a URL that is not absolute http or https; a plain http
// one is refused unless it is on the loopback (a local test server).
func (p *problems) checkURL(at, s string, required bool) {
	if s == "" {
		if required {
			p.add(at, "is required")
		}
		return
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		p.add(at, "must be an absolute https URL, got %q", s)
		return
	}
	if u.Scheme == "http" && !loopbackHost(u.Hostname()) {
		p.add(at, "must use https, got %q (plain http only on the loopback)", s)
	}
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
