package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/oauthtest"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// whoami is a server whose tool whoami says which client called.
func whoami() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "locked", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "whoami", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: req.Extra.TokenInfo.UserID}}}, nil
		})
	return srv
}

// browser acts as the user's browser: it opens the authorization URL and
// follows the redirects, back to toolexplorer's loopback listener.
func browser(t *testing.T, opened chan<- string) func(mcp.SignIn) {
	return func(p mcp.SignIn) {
		go func() {
			resp, err := http.Get(p.URL)
			if err != nil {
				t.Errorf("the browser: %v", err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			select {
			case opened <- p.URL:
			default:
				t.Errorf("asked to sign in twice: %s", p.URL)
			}
		}()
	}
}

// TestOAuthBrowserSignIn: a server that requires OAuth is connected after
// a sign-in through the browser: discovery from its protected resource
// metadata, dynamic registration, the authorization code with PKCE for
// the server's resource, refreshed tokens kept in a 0600 file; connected
// again, the kept tokens are used and nobody is asked.
func TestOAuthBrowserSignIn(t *testing.T) {
	as := oauthtest.New(t)
	endpoint := oauthtest.Protected(t, as, whoami())
	file := filepath.Join(t.TempDir(), "state", "tokens.json")

	// The control: without OAuth the server refuses the connection, and
	// the message says how to sign in.
	if _, err := mcp.Connect(context.Background(), tooling.NewRegistry(), "locked", mcp.Spec{URL: endpoint}); err == nil || !strings.Contains(err.Error(), `add "oauth": {} to its entry`) {
		t.Fatalf("Connect to the locked server without signing in: %v", err)
	}

	opened := make(chan string, 1)
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "locked", mcp.Spec{URL: endpoint,
		OAuth: &mcp.OAuthClient{TokenFile: file, Prompt: browser(t, opened)}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(<-opened)
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("resource") != endpoint || !oauthtest.Contains(strings.Fields(q.Get("scope")), "tools") {
		t.Errorf("authorization URL %s: want PKCE S256, resource %s and scope tools", u, endpoint)
	}
	for range 2 {
		res, _ := reg.Execute(context.Background(), "locked.whoami", nil)
		if !res.OK() || !strings.HasPrefix(string(res.Output), `"client-`) {
			t.Fatalf("locked.whoami: %s %s %s", res.Code, res.Message, res.Output)
		}
	}
	r.Close()
	grants, resources := as.Seen()
	if len(grants) < 2 || grants[0] != "authorization_code" || grants[1] != "refresh_token" {
		t.Errorf("grants %v: want the authorization code, then refreshes", grants)
	}
	for _, got := range resources {
		if got != endpoint {
			t.Errorf("a token request for resource %q, want %q", got, endpoint)
		}
	}
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	b, _ := os.ReadFile(file)
	var k struct {
		Token struct {
			AccessToken  string `json:"access_token"`
			RefreshToken string `json:"refresh_token"`
		} `json:"token"`
	}
	json.Unmarshal(b, &k)
	if !as.Issued(k.Token.AccessToken) || k.Token.RefreshToken == "" {
		t.Errorf("the kept token %q is not the last issued", k.Token.AccessToken)
	}

	// Connected again: the kept (and refreshed) tokens serve; nobody is asked.
	reg = tooling.NewRegistry()
	r, err = mcp.Connect(context.Background(), reg, "locked", mcp.Spec{URL: endpoint,
		OAuth: &mcp.OAuthClient{TokenFile: file, Prompt: func(p mcp.SignIn) { t.Errorf("asked to sign in again: %s", p.URL) }}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if res, _ := reg.Execute(context.Background(), "locked.whoami", nil); !res.OK() {
		t.Fatalf("locked.whoami with kept tokens: %s %s", res.Code, res.Message)
	}
	if grants, _ := as.Seen(); oauthtest.Contains(grants[2:], "authorization_code") {
		t.Errorf("grants %v: signed in again", grants)
	}
}

// TestOAuthDeviceSignIn: with device, the user is shown a URL and a code,
// and the connection is made once they enter it.
func TestOAuthDeviceSignIn(t *testing.T) {
	as := oauthtest.New(t)
	endpoint := oauthtest.Protected(t, as, whoami())
	shown := make(chan mcp.SignIn, 1)
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "locked", mcp.Spec{URL: endpoint, OAuth: &mcp.OAuthClient{Device: true,
		Prompt: func(p mcp.SignIn) {
			shown <- p
			resp, err := http.Get(p.URL + "?user_code=" + url.QueryEscape(p.UserCode)) // the user, on another device
			if err == nil {
				resp.Body.Close()
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := <-shown
	if p.Server != "locked" || p.UserCode == "" || !strings.HasSuffix(p.URL, "/activate") {
		t.Errorf("shown %+v: want the verification URL and a user code", p)
	}
	if res, _ := reg.Execute(context.Background(), "locked.whoami", nil); !res.OK() {
		t.Fatalf("locked.whoami: %s %s", res.Code, res.Message)
	}
	if grants, _ := as.Seen(); len(grants) == 0 || grants[0] != "urn:ietf:params:oauth:grant-type:device_code" {
		t.Errorf("grants %v: want the device code first", grants)
	}
}

// TestOAuthSignInRefused: a user who says no, and a forged return to the
// loopback listener (another state), leave the server unconnected, saying
// why.
func TestOAuthSignInRefused(t *testing.T) {
	as := oauthtest.New(t)
	endpoint := oauthtest.Protected(t, as, whoami())
	as.Deny(true)
	opened := make(chan string, 1)
	_, err := mcp.Connect(context.Background(), tooling.NewRegistry(), "locked", mcp.Spec{URL: endpoint,
		OAuth: &mcp.OAuthClient{Prompt: browser(t, opened)}})
	var ce *mcp.ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "signing in to "+endpoint) || !strings.Contains(err.Error(), "did not let toolexplorer in") {
		t.Fatalf("Connect when the user says no: %v", err)
	}

	as.Deny(false)
	_, err = mcp.Connect(context.Background(), tooling.NewRegistry(), "locked", mcp.Spec{URL: endpoint,
		OAuth: &mcp.OAuthClient{Prompt: func(p mcp.SignIn) {
			go func() {
				// An attacker's page sends the browser back with a code of
				// its own and a state it made up.
				u, _ := url.Parse(p.URL)
				back, _ := url.Parse(u.Query().Get("redirect_uri"))
				back.RawQuery = url.Values{"code": {"code-of-the-attacker"}, "state": {"forged"}}.Encode()
				if resp, err := http.Get(back.String()); err == nil {
					resp.Body.Close()
				}
			}()
		}}})
	if err == nil || !strings.Contains(err.Error(), "state mismatch") {
		t.Fatalf("Connect after a forged return: %v", err)
	}
	if grants, _ := as.Seen(); oauthtest.Contains(grants, "authorization_code") {
		t.Errorf("the forged code reached the token endpoint: %v", grants)
	}
}

// TestOAuthTokensSharedByTwoConnections: two connections (two processes,
// a gateway and its restart) keep their tokens in the same file, and the
// authorization server rotates refresh tokens: each takes up what the
// other refreshed, and neither asks the user to sign in again.
func TestOAuthTokensSharedByTwoConnections(t *testing.T) {
	as := oauthtest.New(t)
	endpoint := oauthtest.Protected(t, as, whoami())
	file := filepath.Join(t.TempDir(), "tokens.json")
	opened := make(chan string, 1)
	regA := tooling.NewRegistry()
	a, err := mcp.Connect(context.Background(), regA, "locked", mcp.Spec{URL: endpoint,
		OAuth: &mcp.OAuthClient{TokenFile: file, Prompt: browser(t, opened)}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	<-opened
	regB := tooling.NewRegistry()
	b, err := mcp.Connect(context.Background(), regB, "locked", mcp.Spec{URL: endpoint,
		OAuth: &mcp.OAuthClient{TokenFile: file, Prompt: func(p mcp.SignIn) { t.Errorf("the second connection asked to sign in: %s", p.URL) }}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := range 3 {
		for name, reg := range map[string]*tooling.Registry{"a": regA, "b": regB} {
			if res, _ := reg.Execute(context.Background(), "locked.whoami", nil); !res.OK() {
				t.Fatalf("round %d, connection %s: %s %s", i, name, res.Code, res.Message)
			}
		}
	}
	if grants, _ := as.Seen(); count(grants, "authorization_code") != 1 {
		t.Errorf("grants %v: signed in more than once", grants)
	}
}

func count(list []string, s string) int {
	n := 0
	for _, e := range list {
		if e == s {
			n++
		}
	}
	return n
}
