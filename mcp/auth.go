package mcp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// How a served call's principal was authenticated (tooling.Principal.Auth).
const (
	authToken  = "token"
	authAPIKey = "api_key"
	authOAuth  = "oauth"
)

// APIKey is a key that clients of the HTTP handler may send as a bearer
// token (Authorization: Bearer KEY), and who calls with it.
type APIKey struct {
	// SHA256 is the key's SHA-256 digest in hex, never the key itself
	// (APIKeyDigest, or: printf %s "$KEY" | sha256sum).
	SHA256 string
	// Principal is who calls with the key: its subject, tenant and roles.
	// Its Auth is "api_key" whatever it says.
	Principal tooling.Principal
}

// APIKeyDigest is the digest of key that APIKey.SHA256 holds.
func APIKeyDigest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// authenticator checks the bearer credential of each request: the static
// token, an API key or an OAuth access token.
type authenticator struct {
	// known are the principals of the static token and the API keys, by
	// the digest of their secret.
	known []knownSecret
	oauth *oauthVerifier // nil: no OAuth
}

type knownSecret struct {
	sum  [sha256.Size]byte
	info *auth.TokenInfo
}

// newAuthenticator returns the authenticator of o, nil when o asks for no
// authentication.
func newAuthenticator(o HTTPOptions) (*authenticator, error) {
	a := &authenticator{}
	if o.Token != "" {
		a.known = append(a.known, knownSecret{sum: sha256.Sum256([]byte(o.Token)),
			info: tokenInfo(tooling.Principal{Subject: "token", Auth: authToken})})
	}
	for i, k := range o.APIKeys {
		b, err := hex.DecodeString(k.SHA256)
		if err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("mcp: API key %d: SHA256 is not 64 hex digits (a SHA-256 digest)", i)
		}
		if k.Principal.Subject == "" {
			return nil, fmt.Errorf("mcp: API key %d: no subject", i)
		}
		p := k.Principal
		p.Auth = authAPIKey
		ks := knownSecret{info: tokenInfo(p)}
		copy(ks.sum[:], b)
		a.known = append(a.known, ks)
	}
	if o.OAuth != nil {
		v, err := newOAuthVerifier(o.OAuth)
		if err != nil {
			return nil, err
		}
		a.oauth = v
	}
	if len(a.known) == 0 && a.oauth == nil {
		return nil, nil
	}
	return a, nil
}

// tokenInfo is what the SDK keeps of a verified request: the principal in
// Extra, for Server.principal, and as UserID an identity of the principal,
// so that a session one principal opened is refused to another.
func tokenInfo(p tooling.Principal) *auth.TokenInfo {
	return &auth.TokenInfo{
		Scopes: p.Scopes,
		UserID: p.Auth + "\x00" + p.Subject + "\x00" + p.Tenant,
		Extra:  map[string]any{principalExtra: p},
	}
}

// verify is the auth.TokenVerifier of the handler. Secrets are compared as
// digests, each in constant time, all of them whatever matched.
func (a *authenticator) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	sum := sha256.Sum256([]byte(token))
	var found *auth.TokenInfo
	for i := range a.known {
		if subtle.ConstantTimeCompare(sum[:], a.known[i].sum[:]) == 1 {
			found = a.known[i].info
		}
	}
	if found != nil {
		return found, nil
	}
	if a.oauth != nil && strings.Count(token, ".") == 2 {
		return a.oauth.verify(ctx, token)
	}
	return nil, fmt.Errorf("%w: not a known token or key", auth.ErrInvalidToken)
}

// guard wraps next with the authentication a asks for: a request without
// valid credentials gets 401 with a WWW-Authenticate challenge (naming the
// protected resource metadata under OAuth), an OAuth token without the
// required scopes 403 insufficient_scope.
func (a *authenticator) guard(next http.Handler) http.Handler {
	opts := &auth.RequireBearerTokenOptions{
		// Tokens' expiry is checked by verify (an API key has none).
		AllowMissingExpiration: true,
	}
	if a.oauth != nil {
		opts.ResourceMetadataURL = a.oauth.metadataURL
		opts.ClockSkew = a.oauth.leeway
	}
	h := auth.RequireBearerToken(a.verify, opts)(a.scopes(next))
	if a.oauth != nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&challenge{ResponseWriter: w}, r)
	})
}

// scopes refuses an OAuth token that lacks a scope the resource requires,
// as RFC 6750 §3.1 and the MCP authorization spec say: 403 with error
// insufficient_scope and the scopes needed.
func (a *authenticator) scopes(next http.Handler) http.Handler {
	if a.oauth == nil || len(a.oauth.scopes) == 0 {
		return next
	}
	need := strings.Join(a.oauth.scopes, " ")
	header := fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, a.oauth.metadataURL)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := auth.TokenInfoFromContext(r.Context()); info != nil {
			if p, _ := info.Extra[principalExtra].(tooling.Principal); p.Auth == authOAuth {
				for _, s := range a.oauth.scopes {
					if !slices.Contains(p.Scopes, s) {
						w.Header().Set("WWW-Authenticate", header)
						http.Error(w, "insufficient scope: the token needs "+need, http.StatusForbidden)
						return
					}
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// challenge adds the Bearer challenge to a 401 that has none (without
// OAuth, the SDK's middleware names no metadata and sends none).
type challenge struct{ http.ResponseWriter }

func (c *challenge) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		c.Header().Set("WWW-Authenticate", `Bearer realm="toolexplorer"`)
	}
	c.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection (flushes of
// event streams).
func (c *challenge) Unwrap() http.ResponseWriter { return c.ResponseWriter }
