package oauthtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Server is an OAuth 2.1 authorization server on loopback, with dynamic
// client registration, the authorization code grant with PKCE (S256), the
// device authorization grant and refresh tokens. Its access tokens are
// opaque; the resource server asks it whether one is valid.
type Server struct {
	srv *httptest.Server

	mu       sync.Mutex
	n        int
	clients  map[string][]string // client id: its redirect URIs (nil for a device client)
	codes    map[string]grant    // authorization codes
	devices  map[string]*device  // device codes
	access   map[string]grant    // valid access tokens
	refresh  map[string]grant    // valid refresh tokens
	grants   []string            // the grant types the token endpoint served
	resource []string            // the resource parameters it was sent
	deny     bool                // the user says no at /authorize
}

type grant struct {
	client, scope, resource string
	challenge, redirect     string // an authorization code's
}

type device struct {
	grant
	user     string
	approved bool
}

// New starts a Server, stopped when the test ends.
func New(t testing.TB) *Server {
	as := &Server{clients: map[string][]string{}, codes: map[string]grant{}, devices: map[string]*device{},
		access: map[string]grant{}, refresh: map[string]grant{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		u := as.srv.URL
		writeJSON(w, http.StatusOK, map[string]any{
			"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token",
			"registration_endpoint": u + "/register", "device_authorization_endpoint": u + "/device",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code"},
			"token_endpoint_auth_methods_supported": []string{"none"}, "scopes_supported": []string{"tools", "offline_access"},
		})
	})
	mux.HandleFunc("POST /register", func(w http.ResponseWriter, r *http.Request) {
		var m oauthex.ClientRegistrationMetadata
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_client_metadata"})
			return
		}
		as.mu.Lock()
		as.n++
		id := fmt.Sprintf("client-%d", as.n)
		as.clients[id] = m.RedirectURIs
		as.mu.Unlock()
		writeJSON(w, http.StatusCreated, map[string]any{"client_id": id, "redirect_uris": m.RedirectURIs,
			"token_endpoint_auth_method": "none", "grant_types": m.GrantTypes})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		as.mu.Lock()
		defer as.mu.Unlock()
		redirects, ok := as.clients[q.Get("client_id")]
		if !ok || !Contains(redirects, q.Get("redirect_uri")) {
			http.Error(w, "unknown client or redirect_uri", http.StatusBadRequest)
			return
		}
		back, _ := url.Parse(q.Get("redirect_uri"))
		v := url.Values{"state": {q.Get("state")}}
		switch {
		case as.deny:
			v.Set("error", "access_denied")
		case q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "":
			v.Set("error", "invalid_request")
		default:
			as.n++
			code := fmt.Sprintf("code-%d", as.n)
			as.codes[code] = grant{client: q.Get("client_id"), scope: q.Get("scope"), resource: q.Get("resource"),
				challenge: q.Get("code_challenge"), redirect: q.Get("redirect_uri")}
			v.Set("code", code)
		}
		back.RawQuery = v.Encode()
		http.Redirect(w, r, back.String(), http.StatusFound)
	})
	mux.HandleFunc("POST /device", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		as.mu.Lock()
		defer as.mu.Unlock()
		if _, ok := as.clients[r.Form.Get("client_id")]; !ok {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
			return
		}
		as.n++
		d := &device{grant: grant{client: r.Form.Get("client_id"), scope: r.Form.Get("scope"), resource: r.Form.Get("resource")},
			user: fmt.Sprintf("USER-%d", as.n)}
		code := fmt.Sprintf("device-%d", as.n)
		as.devices[code] = d
		writeJSON(w, http.StatusOK, map[string]any{"device_code": code, "user_code": d.user,
			"verification_uri": as.srv.URL + "/activate", "expires_in": 600, "interval": 1})
	})
	mux.HandleFunc("GET /activate", func(w http.ResponseWriter, r *http.Request) {
		as.mu.Lock()
		defer as.mu.Unlock()
		for _, d := range as.devices {
			if d.user == r.URL.Query().Get("user_code") {
				d.approved = true
				io.WriteString(w, "approved")
				return
			}
		}
		http.Error(w, "no such code", http.StatusNotFound)
	})
	mux.HandleFunc("POST /token", as.token)
	as.srv = httptest.NewServer(mux)
	t.Cleanup(as.srv.Close)
	return as
}

// token is the token endpoint. Access tokens say they expire in 5 seconds,
// which the client's oauth2 counts as expired already, so that each use
// refreshes them; the resource server accepts them for longer.
func (as *Server) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.Form
	as.mu.Lock()
	defer as.mu.Unlock()
	as.grants = append(as.grants, f.Get("grant_type"))
	as.resource = append(as.resource, f.Get("resource"))
	var g grant
	switch f.Get("grant_type") {
	case "authorization_code":
		c, ok := as.codes[f.Get("code")]
		delete(as.codes, f.Get("code")) // a code is good once
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok, c.client != f.Get("client_id"), c.redirect != f.Get("redirect_uri"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
			return
		}
		g = c
	case "refresh_token":
		c, ok := as.refresh[f.Get("refresh_token")]
		if !ok || c.client != f.Get("client_id") {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(as.refresh, f.Get("refresh_token")) // rotated
		g = c
	case "urn:ietf:params:oauth:grant-type:device_code":
		d, ok := as.devices[f.Get("device_code")]
		switch {
		case !ok || d.client != f.Get("client_id"):
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
			return
		case !d.approved:
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "authorization_pending"})
			return
		}
		delete(as.devices, f.Get("device_code"))
		g = d.grant
	default:
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	as.n++
	at, rt := fmt.Sprintf("access-%d", as.n), fmt.Sprintf("refresh-%d", as.n)
	as.access[at], as.refresh[rt] = g, g
	writeJSON(w, http.StatusOK, map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": 5,
		"refresh_token": rt, "scope": g.scope})
}

// verify is the resource server's check of an access token for resource.
func (as *Server) Verify(resource string) auth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		as.mu.Lock()
		defer as.mu.Unlock()
		g, ok := as.access[token]
		if !ok || g.resource != resource {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: g.client, Scopes: strings.Fields(g.scope), Expiration: time.Now().Add(time.Hour)}, nil
	}
}

func (as *Server) Seen() (grants, resources []string) {
	as.mu.Lock()
	defer as.mu.Unlock()
	return append([]string(nil), as.grants...), append([]string(nil), as.resource...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func Contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// Protected serves srv at /mcp of a new server on loopback, accepting the
// access tokens as issues for it, and publishes its protected resource
// metadata; it returns the MCP endpoint.
func Protected(t testing.TB, as *Server, srv *sdk.Server) (endpoint string) {
	mux := http.NewServeMux()
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	endpoint = ts.URL + "/mcp"
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: endpoint, AuthorizationServers: []string{as.srv.URL}, ScopesSupported: []string{"tools"}}))
	mux.Handle("/mcp", auth.RequireBearerToken(as.Verify(endpoint), &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: ts.URL + "/.well-known/oauth-protected-resource/mcp"})(
		sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	return endpoint
}

// URL is the authorization server's issuer URL.
func (as *Server) URL() string { return as.srv.URL }

// Deny makes the user refuse (true) or allow the authorizations to come.
func (as *Server) Deny(on bool) {
	as.mu.Lock()
	as.deny = on
	as.mu.Unlock()
}

// Issued reports whether token is an access token the server issued.
func (as *Server) Issued(token string) bool {
	as.mu.Lock()
	defer as.mu.Unlock()
	_, ok := as.access[token]
	return ok
}
