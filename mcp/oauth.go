package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// OAuth makes the HTTP handler an OAuth 2.1 resource server, as the MCP
// authorization spec asks: clients send access tokens (JWTs) that the
// authorization server Issuer signed for this server (Resource), and find
// the authorization server in the protected resource metadata (RFC 9728)
// served at /.well-known/oauth-protected-resource.
type OAuth struct {
	// Issuer is the authorization server's issuer identifier: a token's
	// iss must equal it. Required.
	Issuer string
	// Resource is this server's resource URI, the canonical URL clients
	// reach it at (https://tools.example.com/mcp): a token's aud must name
	// it, so that a token issued for another server is refused. Required.
	Resource string
	// JWKSURL is where the issuer's signing keys are. Default: the jwks_uri
	// of the issuer's metadata (/.well-known/oauth-authorization-server or
	// openid-configuration).
	JWKSURL string
	// Scopes are the scopes every token must hold (403 insufficient_scope
	// otherwise), listed in the metadata as scopes_supported. Zero: none.
	Scopes []string
	// SubjectClaim, TenantClaim and RolesClaim name the claims that are the
	// principal's subject, tenant and roles; a dotted name reaches into an
	// object ("realm_access.roles"). A roles claim is an array of strings
	// or one string of names separated by spaces. Default: "sub", no tenant,
	// no roles. The scopes are the "scope" claim (or "scp").
	SubjectClaim, TenantClaim, RolesClaim string
	// Leeway is the clock skew allowed on exp, nbf and iat. Default: 30s.
	Leeway time.Duration
	// HTTPClient fetches the issuer's metadata and keys. Default: a client
	// with a 10-second timeout.
	HTTPClient *http.Client

	// now is the clock of the key cache and of the claims' times; nil:
	// time.Now. Tests set it.
	now func() time.Time
}

// defaultLeeway is OAuth.Leeway's default.
const defaultLeeway = 30 * time.Second

// algorithms are the signature algorithms a token may use: asymmetric
// ones only, so that no public key can be taken for an HMAC secret.
var algorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// oauthVerifier verifies access tokens against the issuer's keys.
type oauthVerifier struct {
	issuer, resource string
	scopes           []string
	leeway           time.Duration
	subject          []string // claim paths
	tenant, roles    []string
	metadataURL      string
	metadata         *oauthex.ProtectedResourceMetadata
	keys             *keySet
	now              func() time.Time

	// verified are the tokens whose signature and claims were checked,
	// with the key set they were checked against: a token sent again (on
	// every request of a session) is not checked again while that key set
	// is current, only its times are.
	mu       sync.RWMutex
	verified map[string]verifiedToken
}

// verifiedToken is a token that passed verify.
type verifiedToken struct {
	info     *auth.TokenInfo
	nbf, exp time.Time // nbf zero: none
	keys     *fetchedKeys
}

// maxVerified bounds oauthVerifier.verified: when full it is emptied.
const maxVerified = 4096

func newOAuthVerifier(o *OAuth) (*oauthVerifier, error) {
	if o.Issuer == "" {
		return nil, fmt.Errorf("mcp: OAuth: no issuer")
	}
	u, err := url.Parse(o.Resource)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("mcp: OAuth: resource %q is not an absolute http(s) URL without a fragment", o.Resource)
	}
	v := &oauthVerifier{
		issuer: o.Issuer, resource: o.Resource, scopes: o.Scopes, leeway: o.Leeway,
		subject: claimPath(o.SubjectClaim, "sub"), tenant: claimPath(o.TenantClaim, ""), roles: claimPath(o.RolesClaim, ""),
		now: o.now,
	}
	if v.leeway <= 0 {
		v.leeway = defaultLeeway
	}
	if v.now == nil {
		v.now = time.Now
	}
	// RFC 9728 §3.1: the well-known name goes between the host and the
	// resource's path.
	v.metadataURL = (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: metadataPath + strings.TrimSuffix(u.Path, "/")}).String()
	v.metadata = &oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "toolexplorer",
	}
	client := o.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	v.keys = &keySet{issuer: o.Issuer, url: o.JWKSURL, client: client, now: v.now}
	return v, nil
}

// metadataPath is where protected resource metadata is served (RFC 9728).
const metadataPath = "/.well-known/oauth-protected-resource"

func claimPath(name, def string) []string {
	if name == "" {
		name = def
	}
	if name == "" {
		return nil
	}
	return strings.Split(name, ".")
}

// verify checks token: its signature by a key of the issuer, iss, aud,
// exp (required), nbf and iat; and maps its claims to the principal.
func (v *oauthVerifier) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	v.mu.RLock()
	e, ok := v.verified[token]
	v.mu.RUnlock()
	if now := v.now(); ok && e.keys == v.keys.cur.Load() && now.Sub(e.keys.at) < keysMaxAge {
		if now.Add(v.leeway).Before(e.nbf) || now.Add(-v.leeway).After(e.exp) {
			return nil, fmt.Errorf("%w: expired or not yet valid", auth.ErrInvalidToken)
		}
		return e.info, nil
	}
	info, err := v.check(ctx, token)
	return info, err
}

// check is verify without the cache.
func (v *oauthVerifier) check(ctx context.Context, token string) (*auth.TokenInfo, error) {
	tok, err := jwt.ParseSigned(token, algorithms)
	if err != nil {
		return nil, fmt.Errorf("%w: not a signed JWT with an asymmetric algorithm", auth.ErrInvalidToken)
	}
	h := tok.Headers[0]
	keys, set, err := v.keys.lookup(ctx, h.KeyID, h.Algorithm)
	if err != nil {
		return nil, err
	}
	var (
		std    jwt.Claims
		claims map[string]any
		ok     bool
	)
	for _, k := range keys {
		if tok.Claims(k.Key, &std, &claims) == nil {
			ok = true
			break
		}
	}
	if !ok {
		return nil, fmt.Errorf("%w: bad signature", auth.ErrInvalidToken)
	}
	if std.Expiry == nil {
		return nil, fmt.Errorf("%w: no exp", auth.ErrInvalidToken)
	}
	err = std.ValidateWithLeeway(jwt.Expected{Issuer: v.issuer, AnyAudience: jwt.Audience{v.resource}, Time: v.now()}, v.leeway)
	switch err {
	case nil:
	case jwt.ErrInvalidAudience:
		return nil, fmt.Errorf("%w: issued for another audience, not %s", auth.ErrInvalidToken, v.resource)
	case jwt.ErrInvalidIssuer:
		return nil, fmt.Errorf("%w: issued by another issuer", auth.ErrInvalidToken)
	case jwt.ErrExpired:
		return nil, fmt.Errorf("%w: expired", auth.ErrInvalidToken)
	default:
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	p := tooling.Principal{Auth: authOAuth}
	p.Subject, _ = claimAt(claims, v.subject).(string)
	if p.Subject == "" {
		return nil, fmt.Errorf("%w: no subject (claim %s)", auth.ErrInvalidToken, strings.Join(v.subject, "."))
	}
	if v.tenant != nil {
		p.Tenant, _ = claimAt(claims, v.tenant).(string)
	}
	if v.roles != nil {
		p.Roles = names(claimAt(claims, v.roles))
	}
	p.Scopes = names(claims["scope"])
	if p.Scopes == nil {
		p.Scopes = names(claims["scp"])
	}
	info := tokenInfo(p)
	info.Expiration = std.Expiry.Time()
	e := verifiedToken{info: info, exp: info.Expiration, keys: set}
	if std.NotBefore != nil {
		e.nbf = std.NotBefore.Time()
	}
	v.mu.Lock()
	if v.verified == nil || len(v.verified) >= maxVerified {
		v.verified = map[string]verifiedToken{}
	}
	v.verified[token] = e
	v.mu.Unlock()
	return info, nil
}

// claimAt is the claim at path, nil when there is none.
func claimAt(claims map[string]any, path []string) any {
	var v any = claims
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// names reads a claim that holds names: an array of strings, or one string
// of names separated by spaces (as "scope" is).
func names(v any) []string {
	switch v := v.(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// serveMetadata serves the protected resource metadata at the paths
// clients look for it (the resource's, and the root's), and the rest with
// next.
func (v *oauthVerifier) serveMetadata(next http.Handler) http.Handler {
	meta := auth.ProtectedResourceMetadataHandler(v.metadata)
	u, _ := url.Parse(v.metadataURL)
	at := u.Path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == at || r.URL.Path == metadataPath {
			meta.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// jwksDocument is a JWK set whose keys are read one by one, so that a key
// of a kind this server cannot use does not hide the others.
type jwksDocument struct {
	Keys []json.RawMessage `json:"keys"`
}
