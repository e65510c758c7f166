package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// issuer is an OAuth authorization server on loopback: its metadata, its
// one signing key, and tokens signed with it.
type issuer struct {
	*httptest.Server
	key *ecdsa.PrivateKey
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"issuer": is.URL, "authorization_endpoint": is.URL + "/authorize",
			"token_endpoint": is.URL + "/token", "jwks_uri": is.URL + "/jwks", "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256", Use: "sig"}}})
	})
	is.Server = httptest.NewServer(mux)
	t.Cleanup(is.Close)
	return is
}

// token is a token of is for aud, with the scopes and claims tenant and
// roles.
func (is *issuer) token(t *testing.T, aud, scope string) string {
	t.Helper()
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: jose.JSONWebKey{Key: is.key, KeyID: "k1"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	s, err := jwt.Signed(sig).Claims(map[string]any{"iss": is.URL, "aud": aud, "sub": "alice", "org": "acme", "roles": []string{"support"},
		"scope": scope, "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const testResource = "https://tools.example.test/mcp"

// serveAuthenticated runs serve --http with a config of API key "key-ci"
// and OAuth of is, and returns its URL.
func serveAuthenticated(t *testing.T, is *issuer) string {
	t.Helper()
	cfg := writeFile(t, "c.json", `{"serve": {
  "api_keys": {"ci": {"sha256": "`+mcp.APIKeyDigest("key-ci")+`", "tenant": "acme", "roles": ["reader"]}},
  "oauth": {"issuer": "`+is.URL+`", "resource": "`+testResource+`", "scopes": ["tools:call"], "tenant_claim": "org", "roles_claim": "roles"}}}`)
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfg, "--http", "127.0.0.1:0"}, strings.NewReader(""), io.Discard, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-done; code != exitOK {
			t.Errorf("serve --http: exit %d: %s", code, stderr.String())
		}
	})
	return waitFor(t, func() (string, bool) {
		_, after, ok := strings.Cut(stderr.String(), "serving MCP at ")
		return strings.TrimSpace(after), ok
	})
}

type bearer string

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(req)
}

// TestServeHTTPAuthentication: serve --http with the config's API keys and
// OAuth; the go-sdk client calls with a bearer header and the call is made
// by the principal the credential names; a token for another resource, or
// without the required scope, is refused.
func TestServeHTTPAuthentication(t *testing.T) {
	is := newIssuer(t)
	url := serveAuthenticated(t, is)
	for _, c := range []struct {
		name, token string
		want        tooling.Principal
	}{
		{"oauth", is.token(t, testResource, "tools:call"), tooling.Principal{Subject: "alice", Tenant: "acme", Roles: []string{"support"}, Scopes: []string{"tools:call"}, Auth: "oauth", Client: "agent 1"}},
		{"api key", "key-ci", tooling.Principal{Subject: "ci", Tenant: "acme", Roles: []string{"reader"}, Auth: "api_key", Client: "agent 1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
				&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(c.token)}, MaxRetries: -1}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			_, r := callTool(t, cs, "demo.fail", `{"mode":"error"}`)
			got, _ := json.Marshal(r.Principal)
			want, _ := json.Marshal(c.want)
			if string(got) != string(want) {
				t.Errorf("principal %s, want %s", got, want)
			}
		})
	}
	for name, token := range map[string]string{
		"another resource": is.token(t, "https://other.example/mcp", "tools:call"),
		"no scope":         is.token(t, testResource, "profile"),
		"wrong key":        "key-cj",
	} {
		_, err := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, nil).Connect(context.Background(),
			&sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}, nil)
		if err == nil {
			t.Errorf("%s: connected", name)
		}
	}
	http.DefaultClient.CloseIdleConnections()
}

// TestE2EInspectorBearer: the MCP Inspector's CLI calls serve --http with
// an OAuth access token and with an API key in its bearer header; the
// call's principal is the token's or the key's; a token for another
// resource is refused.
func TestE2EInspectorBearer(t *testing.T) {
	in := newInspector(t)
	is := newIssuer(t)
	url := serveAuthenticated(t, is)
	for _, c := range []struct{ token, subject, auth string }{
		{is.token(t, testResource, "tools:call"), "alice", "oauth"},
		{"key-ci", "ci", "api_key"},
	} {
		code, res := in.run(t, url, "--transport", "http", "--header", "Authorization: Bearer "+c.token,
			"--method", "tools/call", "--tool-name", "demo.fail", "--tool-arg", "mode=error")
		sc, _ := res["structuredContent"].(map[string]any)
		if m, _ := res["_meta"].(map[string]any); m != nil {
			sc, _ = m[mcp.ResultMetaKey].(map[string]any)
		}
		p, _ := sc["principal"].(map[string]any)
		if code == 0 || p["subject"] != c.subject || p["auth"] != c.auth || p["tenant"] != "acme" {
			t.Errorf("%s: exit %d, principal %v: %v", c.auth, code, p, res)
		}
	}
	code, out := in.run(t, url, "--transport", "http", "--header", "Authorization: Bearer "+is.token(t, "https://other.example/mcp", "tools:call"),
		"--method", "tools/list", "--stored-auth-only")
	if e, _ := out["error"].(map[string]any); code == 0 || out["tools"] != nil || e["code"] != "auth_required" {
		t.Errorf("a token for another resource: exit %d: %v", code, out)
	}
}
