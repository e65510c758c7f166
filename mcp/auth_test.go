package mcp_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// authServer is an OAuth authorization server on loopback: its metadata,
// its key set (which a test rotates), and tokens signed with its keys.
type authServer struct {
	*httptest.Server
	mu        sync.Mutex
	published []*signingKey
	fetches   atomic.Int32 // of the key set
}

type signingKey struct {
	kid  string
	priv crypto.Signer
	alg  jose.SignatureAlgorithm
}

// newKey is an ES256 key.
func newKey(t testing.TB, kid string) *signingKey {
	t.Helper()
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return &signingKey{kid: kid, priv: priv, alg: jose.ES256}
}

func newAuthServer(t testing.TB, keys ...*signingKey) *authServer {
	t.Helper()
	as := &authServer{published: keys}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"issuer":                           as.URL,
			"authorization_endpoint":           as.URL + "/authorize",
			"token_endpoint":                   as.URL + "/token",
			"jwks_uri":                         as.URL + "/jwks",
			"response_types_supported":         []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		as.fetches.Add(1)
		as.mu.Lock()
		var set jose.JSONWebKeySet
		for _, k := range as.published {
			set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.priv.Public(), KeyID: k.kid, Algorithm: string(k.alg), Use: "sig"})
		}
		as.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(set)
	})
	as.Server = httptest.NewServer(mux)
	t.Cleanup(as.Close)
	return as
}

// publish replaces the published keys (a rotation).
func (as *authServer) publish(keys ...*signingKey) {
	as.mu.Lock()
	as.published = keys
	as.mu.Unlock()
}

// sign returns a JWT of claims signed with k.
func sign(t testing.TB, k *signingKey, claims map[string]any) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: jose.JSONWebKey{Key: k.priv, KeyID: k.kid}},
		(&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := jwt.Signed(sig).Claims(claims).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// claims are those of a valid token of as for resource, with over
// replacing or (nil values) removing some.
func (as *authServer) claims(resource string, over map[string]any) map[string]any {
	now := time.Now()
	c := map[string]any{
		"iss": as.URL, "aud": resource, "sub": "alice", "org": "acme",
		"realm_access": map[string]any{"roles": []string{"support", "reader"}},
		"scope":        "tools:call profile",
		"iat":          now.Unix(), "nbf": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	}
	for k, v := range over {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

// whoRegistry holds t.who, which returns the principal of its call.
func whoRegistry() *tooling.Registry {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.who", Description: "says who calls",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return c.Principal, nil
		}})
	return r
}

// resourceServer serves reg (or the server given) over HTTP with o at
// path /mcp of a loopback address; o.OAuth.Resource, when empty, is set to
// that URL.
func resourceServer(t testing.TB, reg *tooling.Registry, o mcp.HTTPOptions, servers ...*mcp.Server) (url string) {
	t.Helper()
	var srv *mcp.Server
	if len(servers) > 0 {
		srv = servers[0]
	} else {
		srv = mcp.NewServer(reg, mcp.Options{})
	}
	hs := httptest.NewUnstartedServer(nil)
	url = "http://" + hs.Listener.Addr().String() + "/mcp"
	if o.OAuth != nil && o.OAuth.Resource == "" {
		o.OAuth.Resource = url
	}
	hs.Config.Handler = srv.Handler(o)
	hs.Start()
	t.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return url
}

const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`

// post sends body to url with the bearer token (none when empty) and the
// headers h, and returns the response, its body read.
func post(t testing.TB, url, token, body string, h map[string]string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range h {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

// oauthOptions are the options of a resource server of as that requires
// scope tools:call and maps org and realm_access.roles.
func oauthOptions(as *authServer) *mcp.OAuth {
	return &mcp.OAuth{Issuer: as.URL, Scopes: []string{"tools:call"}, TenantClaim: "org", RolesClaim: "realm_access.roles"}
}

// TestOAuthRefusals: every token that is not one the issuer signed for
// this resource, valid now, with the required scope, is refused, with the
// challenge the MCP authorization spec asks for; a valid token is the
// control that passes in the same server.
func TestOAuthRefusals(t *testing.T) {
	k := newKey(t, "k1")
	as := newAuthServer(t, k)
	url := resourceServer(t, whoRegistry(), mcp.HTTPOptions{OAuth: oauthOptions(as)})
	meta := strings.Replace(url, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)

	if resp, body := post(t, url, sign(t, k, as.claims(url, nil)), initialize, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("valid token: %s %s", resp.Status, body)
	}
	// A key the issuer does not publish, under the published key's id.
	forger := &signingKey{kid: "k1", priv: newKey(t, "").priv, alg: jose.ES256}
	// The published public key used as an HMAC secret (algorithm
	// confusion), and an unsigned token.
	pub, _ := x509.MarshalPKIXPublicKey(k.priv.Public())
	hmacSigner, _ := jose.NewSigner(jose.SigningKey{Algorithm: jose.HS256, Key: pub}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	hmacToken, _ := jwt.Signed(hmacSigner).Claims(as.claims(url, nil)).Serialize()
	parts := strings.Split(sign(t, k, as.claims(url, nil)), ".")
	unsigned := "eyJhbGciOiJub25lIiwia2lkIjoiazEifQ." + parts[1] + "."

	past := time.Now().Add(-10 * time.Minute)
	for _, c := range []struct {
		name, token string
	}{
		{"no token", ""},
		{"not a JWT", "opaque-token"},
		{"wrong signature", sign(t, forger, as.claims(url, nil))},
		{"HMAC with the public key", hmacToken},
		{"alg none", unsigned},
		{"another audience", sign(t, k, as.claims(url, map[string]any{"aud": "http://other.example/mcp"}))},
		{"audience of a prefix", sign(t, k, as.claims(url, map[string]any{"aud": strings.TrimSuffix(url, "/mcp")}))},
		{"no audience", sign(t, k, as.claims(url, map[string]any{"aud": nil}))},
		{"another issuer", sign(t, k, as.claims(url, map[string]any{"iss": "http://evil.example"}))},
		{"expired", sign(t, k, as.claims(url, map[string]any{"iat": past.Unix(), "nbf": past.Unix(), "exp": past.Add(5 * time.Minute).Unix()}))},
		{"not yet valid", sign(t, k, as.claims(url, map[string]any{"nbf": time.Now().Add(10 * time.Minute).Unix()}))},
		{"no exp", sign(t, k, as.claims(url, map[string]any{"exp": nil}))},
		{"no subject", sign(t, k, as.claims(url, map[string]any{"sub": nil}))},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(t, url, c.token, initialize, nil)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("status %s (%s), want 401", resp.Status, body)
			}
			if got, want := resp.Header.Get("WWW-Authenticate"), `Bearer resource_metadata="`+meta+`"`; got != want {
				t.Errorf("WWW-Authenticate %q, want %q", got, want)
			}
		})
	}
	t.Run("missing scope", func(t *testing.T) {
		resp, body := post(t, url, sign(t, k, as.claims(url, map[string]any{"scope": "profile"})), initialize, nil)
		if resp.StatusCode != http.StatusForbidden {
			t.Fatalf("status %s (%s), want 403", resp.Status, body)
		}
		want := `Bearer error="insufficient_scope", scope="tools:call", resource_metadata="` + meta + `"`
		if got := resp.Header.Get("WWW-Authenticate"); got != want {
			t.Errorf("WWW-Authenticate %q, want %q", got, want)
		}
	})
	t.Run("scope as scp", func(t *testing.T) {
		tok := sign(t, k, as.claims(url, map[string]any{"scope": nil, "scp": []string{"tools:call"}}))
		if resp, body := post(t, url, tok, initialize, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %s (%s), want 200", resp.Status, body)
		}
	})
	t.Run("within the leeway", func(t *testing.T) {
		tok := sign(t, k, as.claims(url, map[string]any{"exp": time.Now().Add(-5 * time.Second).Unix()}))
		if resp, body := post(t, url, tok, initialize, nil); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %s (%s), want 200", resp.Status, body)
		}
	})
}

// TestOAuthMetadata: the protected resource metadata names the resource,
// its issuer and scopes, where the 401's challenge says, and the SDK's
// client reads it.
func TestOAuthMetadata(t *testing.T) {
	as := newAuthServer(t, newKey(t, "k1"))
	url := resourceServer(t, whoRegistry(), mcp.HTTPOptions{OAuth: oauthOptions(as)})
	resp, _ := post(t, url, "", initialize, nil)
	chs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil || len(chs) != 1 || chs[0].Scheme != "bearer" {
		t.Fatalf("challenge %q: %v", resp.Header.Values("WWW-Authenticate"), err)
	}
	at := chs[0].Params["resource_metadata"]
	for _, u := range []string{at, strings.TrimSuffix(at, "/mcp")} {
		prm, err := oauthex.GetProtectedResourceMetadata(context.Background(), u, url, http.DefaultClient)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if len(prm.AuthorizationServers) != 1 || prm.AuthorizationServers[0] != as.URL || len(prm.ScopesSupported) != 1 || prm.ScopesSupported[0] != "tools:call" {
			t.Errorf("%s: %+v", u, prm)
		}
	}
}

// TestOAuthKeyRotation: a token signed with a key id the cache does not
// hold fetches the key set again, at most once per interval however many
// such tokens come; a key the issuer withdrew stops working.
func TestOAuthKeyRotation(t *testing.T) {
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	as := newAuthServer(t, k1)
	var mu sync.Mutex
	now := time.Now()
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	o := oauthOptions(as)
	mcp.SetOAuthClock(o, clock)
	url := resourceServer(t, whoRegistry(), mcp.HTTPOptions{OAuth: o})
	status := func(k *signingKey) int {
		t.Helper()
		n := clock()
		times := map[string]any{"iat": n.Unix(), "nbf": n.Unix(), "exp": n.Add(5 * time.Minute).Unix()}
		resp, _ := post(t, url, sign(t, k, as.claims(url, times)), initialize, nil)
		return resp.StatusCode
	}
	if s := status(k1); s != http.StatusOK {
		t.Fatalf("k1: %d", s)
	}
	if s := status(k1); s != http.StatusOK || as.fetches.Load() != 1 {
		t.Fatalf("k1 again: %d, %d fetches, want 200 and 1 (cached)", s, as.fetches.Load())
	}
	as.publish(k2)
	// Right after a fetch, an unknown key id does not fetch again: a flood
	// of made-up key ids costs the issuer nothing.
	for i := range 20 {
		if s := status(newKey(t, "made-up")); s != http.StatusUnauthorized {
			t.Fatalf("made-up kid %d: %d", i, s)
		}
	}
	if s := status(k2); s != http.StatusUnauthorized || as.fetches.Load() != 1 {
		t.Fatalf("k2 within the interval: %d, %d fetches, want 401 and 1", s, as.fetches.Load())
	}
	advance(31 * time.Second)
	if s := status(k2); s != http.StatusOK || as.fetches.Load() != 2 {
		t.Fatalf("k2 after the interval: %d, %d fetches, want 200 and 2", s, as.fetches.Load())
	}
	if s := status(k1); s != http.StatusUnauthorized {
		t.Fatalf("k1 after the rotation: %d, want 401", s)
	}
	// A token checked once is checked again for its times: expired since,
	// it is refused.
	n := clock()
	short := sign(t, k2, as.claims(url, map[string]any{"iat": n.Unix(), "nbf": n.Unix(), "exp": n.Add(time.Minute).Unix()}))
	if resp, _ := post(t, url, short, initialize, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("short-lived token: %s", resp.Status)
	}
	advance(2 * time.Minute)
	if resp, _ := post(t, url, short, initialize, nil); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("short-lived token once expired: %s, want 401", resp.Status)
	}
	// Keys older than an hour are fetched again.
	advance(2 * time.Hour)
	if s := status(k2); s != http.StatusOK || as.fetches.Load() != 3 {
		t.Fatalf("k2 after an hour: %d, %d fetches, want 200 and 3", s, as.fetches.Load())
	}
}

// connectBearer connects the go-sdk client to url sending token.
func connectBearer(url, token string) (*sdk.ClientSession, error) {
	hc := &http.Client{Transport: headerRT{"Authorization": "Bearer " + token}}
	return sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "2.0"}, nil).Connect(context.Background(),
		&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
}

// whoCalls is the principal t.who saw, called over cs.
func whoCalls(t *testing.T, cs *sdk.ClientSession) tooling.Principal {
	t.Helper()
	res := call(t, cs, "t.who", nil)
	if res.IsError {
		t.Fatalf("t.who: %s", text(res))
	}
	var p tooling.Principal
	if err := json.Unmarshal([]byte(text(res)), &p); err != nil {
		t.Fatalf("t.who said %q: %v", text(res), err)
	}
	return p
}

// TestHTTPPrincipals: the tool sees the principal the credential names:
// OAuth claims mapped by config, an API key's, the static token's.
func TestHTTPPrincipals(t *testing.T) {
	k := newKey(t, "k1")
	as := newAuthServer(t, k)
	o := mcp.HTTPOptions{
		Token:   "s3cret",
		APIKeys: []mcp.APIKey{{SHA256: mcp.APIKeyDigest("key-of-ci"), Principal: tooling.Principal{Subject: "ci", Tenant: "acme", Roles: []string{"reader"}, Auth: "host"}}},
		OAuth:   oauthOptions(as),
	}
	url := resourceServer(t, whoRegistry(), o)
	for _, c := range []struct {
		name, token string
		want        tooling.Principal
	}{
		{"oauth", sign(t, k, as.claims(url, nil)), tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"support", "reader"}, Scopes: []string{"tools:call", "profile"}, Auth: "oauth"}},
		{"api key", "key-of-ci", tooling.Principal{Subject: "ci", Tenant: "acme", Roles: []string{"reader"}, Auth: "api_key"}},
		{"token", "s3cret", tooling.Principal{Subject: "token", Auth: "token"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs, err := connectBearer(url, c.token)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			got := whoCalls(t, cs)
			c.want.Client = "agent 2.0"
			if b, w := mustJSON(t, got), mustJSON(t, c.want); b != w {
				t.Errorf("principal %s, want %s", b, w)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAPIKeys: a key is accepted by its digest; a wrong key, the digest
// itself and the static token's neighbours are refused with a challenge.
func TestAPIKeys(t *testing.T) {
	o := mcp.HTTPOptions{APIKeys: []mcp.APIKey{
		{SHA256: mcp.APIKeyDigest("key-one"), Principal: tooling.Principal{Subject: "one"}},
		{SHA256: strings.ToUpper(mcp.APIKeyDigest("key-two")), Principal: tooling.Principal{Subject: "two"}},
	}}
	url := resourceServer(t, whoRegistry(), o)
	for _, key := range []string{"key-one", "key-two"} {
		if resp, body := post(t, url, key, initialize, nil); resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %s %s", key, resp.Status, body)
		}
	}
	for _, key := range []string{"", "key-on", "key-one1", "KEY-ONE", mcp.APIKeyDigest("key-one")} {
		resp, body := post(t, url, key, initialize, nil)
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("key %q: %s %s, want 401", key, resp.Status, body)
		}
		if got := resp.Header.Get("WWW-Authenticate"); got != `Bearer realm="toolexplorer"` {
			t.Errorf("key %q: WWW-Authenticate %q", key, got)
		}
	}
	for _, bad := range []mcp.HTTPOptions{
		{APIKeys: []mcp.APIKey{{SHA256: "key-one", Principal: tooling.Principal{Subject: "one"}}}},
		{APIKeys: []mcp.APIKey{{SHA256: mcp.APIKeyDigest("k")}}},
		{OAuth: &mcp.OAuth{Issuer: "https://as.example", Resource: "/mcp"}},
		{OAuth: &mcp.OAuth{Resource: "https://rs.example/mcp"}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: valid", bad)
		}
	}
}

// TestSessionBoundToPrincipal: a session opened by one principal cannot
// be used by another, though both are authenticated; its owner can.
func TestSessionBoundToPrincipal(t *testing.T) {
	o := mcp.HTTPOptions{APIKeys: []mcp.APIKey{
		{SHA256: mcp.APIKeyDigest("alice-key"), Principal: tooling.Principal{Subject: "alice"}},
		{SHA256: mcp.APIKeyDigest("bob-key"), Principal: tooling.Principal{Subject: "bob"}},
	}}
	url := resourceServer(t, whoRegistry(), o)
	resp, body := post(t, url, "alice-key", initialize, nil)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %s %s", resp.Status, body)
	}
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
	h := map[string]string{"Mcp-Session-Id": id, "Mcp-Protocol-Version": "2025-06-18"}
	if resp, body := post(t, url, "alice-key", list, h); resp.StatusCode != http.StatusOK {
		t.Fatalf("alice on her session: %s %s", resp.Status, body)
	}
	if resp, body := post(t, url, "bob-key", list, h); resp.StatusCode != http.StatusForbidden {
		t.Errorf("bob on alice's session: %s %s, want 403", resp.Status, body)
	}
}
