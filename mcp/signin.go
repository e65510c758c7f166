package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// OAuthClient says how to sign in to a streamable HTTP server that
// requires OAuth 2.1 (the MCP authorization spec): Connect finds the
// server's authorization server from its protected resource metadata
// (RFC 9728) and that server's metadata (RFC 8414), registers a client
// there unless ClientID names one (dynamic client registration, RFC 7591,
// or a client ID metadata document), and has the user authorize it: in a
// browser, the authorization code grant with PKCE answered on a loopback
// redirect (RFC 8252), or on another device (the device authorization
// grant, RFC 8628). The tokens are refreshed as they expire and kept in
// TokenFile, so that the next connection signs in without the user.
//
// The SDK's auth.AuthorizationCodeHandler runs the browser flow; the device
// flow, which the SDK does not have, is golang.org/x/oauth2's.
type OAuthClient struct {
	// ClientID is a client registered with the authorization server
	// beforehand; "" registers one at each sign-in (dynamic client
	// registration), or uses ClientMetadataURL.
	ClientID string
	// ClientSecret is ClientID's secret, for a confidential client; "" for
	// a public client.
	ClientSecret string
	// ClientMetadataURL is the https URL of a client ID metadata document
	// that describes this client, used as its client ID by an
	// authorization server that supports such documents.
	ClientMetadataURL string
	// Scopes are the scopes asked for. Nil: those the server's challenge or
	// metadata name.
	Scopes []string
	// Device signs in with the device authorization grant: the user opens
	// a URL on any device and enters a code, for a host with no browser.
	// False: the authorization code grant through a browser.
	Device bool
	// RedirectPort is the loopback port the browser is sent back to
	// (http://127.0.0.1:PORT/callback), for a client registered with a
	// fixed redirect URI. Zero: a free port at each sign-in.
	RedirectPort int
	// TokenFile is where the client and its tokens are kept (mode 0600)
	// between connections; "" keeps them for the connection only. See
	// TokenFile.
	TokenFile string
	// Prompt tells the user what to do: open URL (the authorization URL,
	// or the device flow's verification URL) and, in the device flow,
	// enter UserCode. It must not block. Nil: the steps are not shown,
	// which suits only tokens that are already kept.
	Prompt func(SignIn)
	// HTTPClient makes the requests to the authorization server. Nil:
	// http.DefaultClient.
	HTTPClient *http.Client
}

// SignIn is what a user must do to let toolexplorer reach a server.
type SignIn struct {
	// Server is the server's name.
	Server string
	// URL is the page to open.
	URL string
	// UserCode is the code to enter there (device flow); "" in a browser
	// flow, where the page comes back to toolexplorer by itself.
	UserCode string
	// Done is closed when the sign-in ends, let in or not: whatever shows
	// the steps may take them away then.
	Done <-chan struct{}
}

// TokenFile returns where the tokens of the server at endpoint are kept
// under dir (the user's state directory): a file named by a digest of the
// endpoint, so that two servers never share one.
func TokenFile(dir, endpoint string) string {
	sum := sha256.Sum256([]byte(endpoint))
	return filepath.Join(dir, "toolexplorer", "oauth", hex.EncodeToString(sum[:12])+".json")
}

// SignInTimeout bounds the connection of a server that needs OAuth when
// the caller's context has no deadline: long enough for a person to sign
// in.
const SignInTimeout = 5 * time.Minute

// kept is what a token file holds.
type kept struct {
	Endpoint     string           `json:"endpoint"`
	Resource     string           `json:"resource,omitempty"`
	ClientID     string           `json:"client_id"`
	ClientSecret string           `json:"client_secret,omitempty"`
	TokenURL     string           `json:"token_url"`
	AuthStyle    oauth2.AuthStyle `json:"auth_style,omitempty"`
	Token        *oauth2.Token    `json:"token"`
}

// signer is the OAuth handler of one connection: it holds the token source
// and runs a sign-in when the server refuses a request.
type signer struct {
	server   string
	endpoint string
	c        OAuthClient
	client   *http.Client

	mu     sync.Mutex
	ts     oauth2.TokenSource
	failed error // a sign-in that failed: the connection does not ask again
}

var _ auth.OAuthHandler = (*signer)(nil)

func newSigner(server, endpoint string, c OAuthClient) *signer {
	s := &signer{server: server, endpoint: endpoint, c: c, client: c.HTTPClient}
	if s.client == nil {
		s.client = http.DefaultClient
	}
	s.ts = s.load()
	return s
}

// load returns a token source of the kept tokens, nil when none are kept
// for this endpoint.
func (s *signer) load() oauth2.TokenSource {
	if s.c.TokenFile == "" {
		return nil
	}
	b, err := os.ReadFile(s.c.TokenFile)
	if err != nil {
		return nil
	}
	var k kept
	if json.Unmarshal(b, &k) != nil || k.Endpoint != s.endpoint || k.Token == nil || k.TokenURL == "" {
		return nil
	}
	return &keptSource{s: s, k: k}
}

// keep saves the client and its first token and returns their token
// source.
func (s *signer) keep(cfg *oauth2.Config, resource string, tok *oauth2.Token) (oauth2.TokenSource, error) {
	k := kept{Endpoint: s.endpoint, Resource: resource, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret,
		TokenURL: cfg.Endpoint.TokenURL, AuthStyle: cfg.Endpoint.AuthStyle, Token: tok}
	if err := s.save(k); err != nil {
		return nil, err
	}
	return &keptSource{s: s, k: k}, nil
}

// save writes k to the token file, readable by the user alone.
func (s *signer) save(k kept) error {
	if s.c.TokenFile == "" {
		return nil
	}
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	failed := func(err error) error { return fmt.Errorf("keeping the tokens in %s: %w", s.c.TokenFile, err) }
	dir := filepath.Dir(s.c.TokenFile)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return failed(err)
	}
	tmp, err := os.CreateTemp(dir, ".token-*") // mode 0600
	if err != nil {
		return failed(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return failed(err)
	}
	if err := tmp.Close(); err != nil {
		return failed(err)
	}
	if err := os.Rename(tmp.Name(), s.c.TokenFile); err != nil {
		return failed(err)
	}
	return nil
}

// lockTokens takes the lock of the token file (the file beside it with
// ".lock" added) and returns its release; nil when there is no token file
// or the lock cannot be had, and the refresh goes on without it.
func (s *signer) lockTokens() (unlock func()) {
	if s.c.TokenFile == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.c.TokenFile), 0o700); err != nil {
		return nil
	}
	f, err := os.OpenFile(s.c.TokenFile+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil
	}
	if lockFile(f) != nil {
		f.Close()
		return nil
	}
	return func() { f.Close() }
}

// keptSource hands out the access token while it is valid, refreshes it
// when it is not, naming the resource as MCP asks of every token request
// (golang.org/x/oauth2's refresh cannot), and keeps each new token. A
// refreshed token that cannot be kept is used all the same; the next
// connection signs in again.
type keptSource struct {
	s  *signer
	mu sync.Mutex
	k  kept
}

func (ks *keptSource) Token() (*oauth2.Token, error) {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	if ks.k.Token.Valid() {
		return ks.k.Token, nil
	}
	// Another connection or process that keeps its tokens in the same
	// file may have refreshed them since: an authorization server that
	// rotates refresh tokens has revoked the one held here.
	if ks.adoptKept() && ks.k.Token.Valid() {
		return ks.k.Token, nil
	}
	if ks.k.Token.RefreshToken == "" {
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the access token expired and there is no refresh token"}
	}
	// One refresh at a time among the processes that keep their tokens in
	// this file: a server that rotates refresh tokens takes each once, and
	// a second refresh with the same one would be refused. The one that
	// waited finds the tokens the other kept.
	if unlock := ks.s.lockTokens(); unlock != nil {
		defer unlock()
		if ks.adoptKept() && ks.k.Token.Valid() {
			return ks.k.Token, nil
		}
	}
	tok, err := ks.refresh()
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.ErrorCode == "invalid_grant" && ks.adoptKept() {
		// Refreshed elsewhere meanwhile: the file has the new tokens.
		if ks.k.Token.Valid() {
			return ks.k.Token, nil
		}
		tok, err = ks.refresh()
	}
	if err != nil {
		return nil, err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = ks.k.Token.RefreshToken // the server keeps the one it gave
	}
	ks.k.Token = tok
	_ = ks.s.save(ks.k)
	return tok, nil
}

// adoptKept takes the tokens the token file holds for the same endpoint and
// client when they are not those held here; it reports whether it did.
func (ks *keptSource) adoptKept() bool {
	if ks.s.c.TokenFile == "" {
		return false
	}
	b, err := os.ReadFile(ks.s.c.TokenFile)
	if err != nil {
		return false
	}
	var k kept
	if json.Unmarshal(b, &k) != nil || k.Endpoint != ks.k.Endpoint || k.ClientID != ks.k.ClientID || k.Token == nil ||
		(k.Token.AccessToken == ks.k.Token.AccessToken && k.Token.RefreshToken == ks.k.Token.RefreshToken) {
		return false
	}
	ks.k = k
	return true
}

// refresh asks the token endpoint for a new access token (RFC 6749 6, with
// RFC 8707's resource). An error the server gives is an
// *oauth2.RetrieveError, so that the transport signs in again on
// invalid_grant.
func (ks *keptSource) refresh() (*oauth2.Token, error) {
	k := ks.k
	v := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {k.Token.RefreshToken}}
	if k.Resource != "" {
		v.Set("resource", k.Resource)
	}
	basic := k.ClientSecret != "" && k.AuthStyle == oauth2.AuthStyleInHeader
	if !basic {
		v.Set("client_id", k.ClientID)
		if k.ClientSecret != "" {
			v.Set("client_secret", k.ClientSecret)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), ConnectTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, k.TokenURL, strings.NewReader(v.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(k.ClientID), url.QueryEscape(k.ClientSecret))
	}
	resp, err := ks.s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("refreshing the access token: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("refreshing the access token: %w", err)
	}
	var t struct {
		AccessToken      string `json:"access_token"`
		TokenType        string `json:"token_type"`
		RefreshToken     string `json:"refresh_token"`
		ExpiresIn        int64  `json:"expires_in"`
		Error            string `json:"error"`
		ErrorDescription string `json:"error_description"`
	}
	jerr := json.Unmarshal(body, &t)
	if resp.StatusCode != http.StatusOK || t.AccessToken == "" {
		code := t.Error
		if jerr != nil || code == "" {
			code = "invalid_response"
		}
		return nil, &oauth2.RetrieveError{Response: resp, Body: body, ErrorCode: code, ErrorDescription: t.ErrorDescription}
	}
	tok := &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, ExpiresIn: t.ExpiresIn}
	if t.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(t.ExpiresIn) * time.Second)
	}
	return tok, nil
}

// TokenSource returns the current token source, nil before a sign-in.
func (s *signer) TokenSource(context.Context) (oauth2.TokenSource, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ts, nil
}

// Authorize signs in after the server refused req with resp (401, or 403
// insufficient_scope).
func (s *signer) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	s.mu.Lock()
	failed := s.failed
	s.mu.Unlock()
	if failed != nil {
		resp.Body.Close()
		return failed
	}
	var err error
	if s.c.Device {
		err = s.device(ctx, resp)
	} else {
		err = s.browser(ctx, req, resp)
	}
	if err != nil {
		err = &signInError{endpoint: s.endpoint, err: err}
		s.mu.Lock()
		s.failed = err
		s.mu.Unlock()
	}
	return err
}

// signInError says why a sign-in failed.
type signInError struct {
	endpoint string
	err      error
}

func (e *signInError) Error() string { return fmt.Sprintf("signing in to %s: %v", e.endpoint, e.err) }
func (e *signInError) Unwrap() error { return e.err }

func (s *signer) prompt(p SignIn) {
	p.Server = s.server
	if s.c.Prompt != nil {
		s.c.Prompt(p)
	}
}

// browser runs the authorization code grant with PKCE: the user's browser
// comes back to a loopback listener open for this sign-in only.
func (s *signer) browser(ctx context.Context, req *http.Request, resp *http.Response) error {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", s.c.RedirectPort))
	if err != nil {
		resp.Body.Close()
		return fmt.Errorf("listening for the browser's return on 127.0.0.1:%d: %w", s.c.RedirectPort, err)
	}
	redirect := fmt.Sprintf("http://%s/callback", ln.Addr())
	var resource string // the resource the authorization was for
	back := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		res := &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "toolexplorer was not let in: %s %s\n", e, q.Get("error_description"))
			res.Code = ""
		} else {
			fmt.Fprintln(w, "toolexplorer is signed in; this page may be closed.")
		}
		select {
		case back <- res:
		default: // one answer is enough
		}
	})}
	go srv.Serve(ln)
	defer func() {
		// The browser gets its page before the listener goes.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			srv.Close()
		}
	}()

	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, a *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if u, err := url.Parse(a.URL); err == nil {
				resource = u.Query().Get("resource")
			}
			done := make(chan struct{})
			defer close(done)
			s.prompt(SignIn{URL: a.URL, Done: done})
			select {
			case res := <-back:
				if res.Code == "" {
					return nil, errors.New("the authorization server did not let toolexplorer in")
				}
				return res, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("no answer from the browser: %w", ctx.Err())
			}
		},
		RequestRefreshToken: true,
		Client:              s.client,
		NewTokenSource: func(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			return s.keep(cfg, resource, tok)
		},
	}
	if len(s.c.Scopes) > 0 {
		cfg.ScopeFilter = func([]string) []string { return s.c.Scopes }
	}
	switch {
	case s.c.ClientID != "":
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: s.c.ClientID}
		if s.c.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: s.c.ClientSecret}
		}
	default:
		if s.c.ClientMetadataURL != "" {
			cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: s.c.ClientMetadataURL}
		}
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "toolexplorer", RedirectURIs: []string{redirect}, TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}}
	}
	h, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		resp.Body.Close()
		return err
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return err
	}
	ts, _ := h.TokenSource(ctx)
	s.mu.Lock()
	s.ts = ts
	s.mu.Unlock()
	return nil
}

// serverMeta is the part of an authorization server's metadata the device
// flow reads (the SDK's type has no device endpoint).
type serverMeta struct {
	Issuer               string   `json:"issuer"`
	TokenEndpoint        string   `json:"token_endpoint"`
	RegistrationEndpoint string   `json:"registration_endpoint"`
	DeviceEndpoint       string   `json:"device_authorization_endpoint"`
	ScopesSupported      []string `json:"scopes_supported"`
	AuthMethods          []string `json:"token_endpoint_auth_methods_supported"`
}

// device runs the device authorization grant.
func (s *signer) device(ctx context.Context, resp *http.Response) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	resp.Body.Close()
	prm, err := s.resourceMeta(ctx, challenges)
	if err != nil {
		return err
	}
	asm, err := s.serverMeta(ctx, prm.AuthorizationServers[0])
	if err != nil {
		return err
	}
	if asm.DeviceEndpoint == "" {
		return fmt.Errorf("the authorization server %s has no device authorization endpoint (RFC 8628): sign in with a browser (oauth.device false)", asm.Issuer)
	}
	cfg := &oauth2.Config{ClientID: s.c.ClientID, ClientSecret: s.c.ClientSecret,
		Endpoint: oauth2.Endpoint{DeviceAuthURL: asm.DeviceEndpoint, TokenURL: asm.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
	if cfg.ClientID == "" {
		if asm.RegistrationEndpoint == "" {
			return fmt.Errorf("the authorization server %s does not register clients (no registration_endpoint): give the server's oauth a client_id", asm.Issuer)
		}
		reg, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, &oauthex.ClientRegistrationMetadata{
			ClientName: "toolexplorer", TokenEndpointAuthMethod: "none", ApplicationType: "native",
			GrantTypes: []string{"urn:ietf:params:oauth:grant-type:device_code", "refresh_token"},
		}, s.client)
		if err != nil {
			return fmt.Errorf("registering with %s: %w", asm.Issuer, err)
		}
		cfg.ClientID, cfg.ClientSecret = reg.ClientID, reg.ClientSecret
	}
	cfg.Scopes = s.c.Scopes
	if cfg.Scopes == nil {
		cfg.Scopes = scopesOf(challenges)
	}
	if cfg.Scopes == nil {
		cfg.Scopes = prm.ScopesSupported
	}
	resource := oauth2.SetAuthURLParam("resource", prm.Resource)
	hc := context.WithValue(ctx, oauth2.HTTPClient, s.client)
	da, err := cfg.DeviceAuth(hc, resource)
	if err != nil {
		return fmt.Errorf("device authorization at %s: %w", asm.DeviceEndpoint, err)
	}
	done := make(chan struct{})
	go s.prompt(SignIn{URL: orText(da.VerificationURIComplete, da.VerificationURI), UserCode: da.UserCode, Done: done})
	tok, err := cfg.DeviceAccessToken(hc, da, resource)
	close(done)
	if err != nil {
		return fmt.Errorf("waiting for the user to let toolexplorer in: %w", err)
	}
	ts, err := s.keep(cfg, prm.Resource, tok)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.ts = ts
	s.mu.Unlock()
	return nil
}

// resourceMeta fetches the server's protected resource metadata: from the
// URL its challenge names, else the well-known URLs of its endpoint.
func (s *signer) resourceMeta(ctx context.Context, challenges []oauthex.Challenge) (*oauthex.ProtectedResourceMetadata, error) {
	var urls []string
	for _, c := range challenges {
		if u := c.Params["resource_metadata"]; u != "" {
			urls = append(urls, u)
		}
	}
	u, err := url.Parse(s.endpoint)
	if err != nil {
		return nil, err
	}
	wk := *u
	wk.RawQuery, wk.Fragment = "", ""
	wk.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(u.Path, "/")
	urls = append(urls, wk.String())
	var last error
	for _, m := range urls {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, m, s.endpoint, s.client)
		if err != nil {
			last = err
			continue
		}
		if prm != nil && len(prm.AuthorizationServers) > 0 {
			return prm, nil
		}
	}
	if last == nil {
		last = errors.New("none found")
	}
	return nil, fmt.Errorf("the server's protected resource metadata (RFC 9728): %w", last)
}

// serverMeta fetches the metadata of the authorization server issuer (RFC
// 8414, then OpenID Connect discovery) and checks its issuer.
func (s *signer) serverMeta(ctx context.Context, issuer string) (*serverMeta, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil, fmt.Errorf("authorization server %q: %w", issuer, err)
	}
	path := strings.TrimSuffix(u.Path, "/")
	var tries []string
	for _, wk := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		c := *u
		c.Path = wk + path
		tries = append(tries, c.String())
	}
	var last error
	for _, m := range tries {
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, m, nil)
		if err != nil {
			return nil, err
		}
		r.Header.Set("Accept", "application/json")
		resp, err := s.client.Do(r)
		if err != nil {
			last = err
			continue
		}
		var meta serverMeta
		err = json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&meta)
		resp.Body.Close()
		switch {
		case resp.StatusCode != http.StatusOK:
			last = fmt.Errorf("%s: %s", m, resp.Status)
		case err != nil:
			last = fmt.Errorf("%s: %w", m, err)
		case strings.TrimSuffix(meta.Issuer, "/") != strings.TrimSuffix(issuer, "/"):
			return nil, fmt.Errorf("%s names the issuer %q, not %q", m, meta.Issuer, issuer)
		case meta.TokenEndpoint == "":
			return nil, fmt.Errorf("%s has no token_endpoint", m)
		default:
			return &meta, nil
		}
	}
	return nil, fmt.Errorf("the authorization server's metadata: %w", last)
}

// scopesOf returns the scopes a Bearer challenge asks for.
func scopesOf(challenges []oauthex.Challenge) []string {
	for _, c := range challenges {
		if c.Scheme == "bearer" && c.Params["scope"] != "" {
			return strings.Fields(c.Params["scope"])
		}
	}
	return nil
}
