package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/oauthtest"
	"github.com/toolexplorer/toolexplorer/mcp"
)

// TestGatewayOAuthUpstream: a gateway config whose server requires OAuth
// says on stderr where to sign in; once the user has, the gateway serves
// that server's tools (and not the program's own), and the tokens are kept
// under the state directory, readable by the user alone.
func TestGatewayOAuthUpstream(t *testing.T) {
	as := oauthtest.New(t)
	up := sdk.NewServer(&sdk.Implementation{Name: "locked", Version: "1"}, nil)
	up.AddTool(&sdk.Tool{Name: "whoami", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}, InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "called by " + req.Extra.TokenInfo.UserID}}}, nil
		})
	endpoint := oauthtest.Protected(t, as, up)
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	for _, v := range []string{"BROWSER", "DISPLAY", "WAYLAND_DISPLAY"} {
		t.Setenv(v, "")
	}
	cfg := writeFile(t, "gateway.json", fmt.Sprintf(`{
  "mcpServers": {"locked": {"url": %q, "oauth": {"scopes": ["tools"]}, "max_restarts": 3}}
}`, endpoint))

	// The user: reads where to sign in on stderr and opens it.
	stderr := &syncBuffer{}
	signIn := regexp.MustCompile(`server "locked" wants you to sign in: open (\S+)`)
	oauthFirstServe(t, cfg, state, stderr, signIn)
	// The gateway started again, while the first still runs (a restart,
	// another gateway with the same config): the kept tokens serve,
	// refreshed as they expire (each rotation revoking the refresh token
	// the other holds), and nobody is asked to sign in.
	again := &syncBuffer{}
	asked := make(chan string, 1)
	go func() {
		deadline := time.Now().Add(5 * time.Minute) // a hang guard
		for time.Now().Before(deadline) {
			if m := signIn.FindStringSubmatch(again.String()); m != nil {
				asked <- m[1]
				if resp, err := http.Get(m[1]); err == nil { // let it go on, to end the test
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	grants, _ := as.Seen()
	codes := count(grants, "authorization_code")
	cs := serveStdioErr(t, nil, again, "--config", cfg)
	if res, r := callTool(t, cs, "locked.whoami", `{}`); res.IsError || !strings.Contains(string(r.Output), "called by client-") {
		t.Errorf("locked.whoami after a restart: %s %s %s", r.Code, r.Message, r.Output)
	}
	select {
	case url := <-asked:
		t.Errorf("asked to sign in again after a restart: %s", url)
	default:
	}
	grants, _ = as.Seen()
	if n := count(grants, "authorization_code"); n != codes {
		t.Errorf("grants %v: signed in again after a restart", grants)
	}
	if !slices.Contains(grants, "refresh_token") {
		t.Errorf("grants %v: the kept token was not refreshed", grants)
	}
}

// oauthFirstServe is the first serve of TestGatewayOAuthUpstream: the user
// signs in; it runs until the test ends.
func oauthFirstServe(t *testing.T, cfg, state string, stderr *syncBuffer, signIn *regexp.Regexp) {
	go func() {
		deadline := time.Now().Add(5 * time.Minute) // a hang guard
		for time.Now().Before(deadline) {
			if m := signIn.FindStringSubmatch(stderr.String()); m != nil {
				resp, err := http.Get(m[1])
				if err != nil {
					t.Errorf("the browser: %v", err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	cs := serveStdioErr(t, nil, stderr, "--config", cfg)
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "locked.whoami") || slices.Contains(names, "demo.echo") {
		t.Fatalf("the gateway lists %v: want locked.whoami and not the program's own tools; stderr: %s", names, stderr.String())
	}
	if res, r := callTool(t, cs, "locked.whoami", `{}`); res.IsError || !strings.Contains(string(r.Output), "called by client-") {
		t.Errorf("locked.whoami: %s %s %s", r.Code, r.Message, r.Output)
	}
	files, _ := filepath.Glob(filepath.Join(state, "toolexplorer", "oauth", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v, want one", files)
	}
	if st, err := os.Stat(files[0]); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file %s: %v, mode %v; want 0600", files[0], err, st.Mode().Perm())
	}

}

// count is how many times s is in list.
func count(list []string, s string) int {
	n := 0
	for _, e := range list {
		if e == s {
			n++
		}
	}
	return n
}

// fakeAsker is a console's asker that notes what it is asked.
type fakeAsker struct{ asked chan fakeAsk }

type fakeAsk struct {
	ctx             context.Context
	server, message string
}

func (f *fakeAsker) Ask(ctx context.Context, server, message string, _ json.RawMessage) (map[string]any, bool, error) {
	f.asked <- fakeAsk{ctx, server, message}
	<-ctx.Done()
	return nil, false, ctx.Err()
}

// TestSignInAsksTheConsole: with the console open, where to sign in is
// shown in the console, not written to the terminal it draws on, and taken
// away when the sign-in ends.
func TestSignInAsksTheConsole(t *testing.T) {
	var stderr strings.Builder
	a := &app{stderr: &stderr, getenv: func(string) string { return "" }}
	f := &fakeAsker{asked: make(chan fakeAsk, 1)}
	var ask asker = f
	a.asker.Store(&ask)
	done := make(chan struct{})
	a.signIn(mcp.SignIn{Server: "docs", URL: "http://127.0.0.1:1/authorize?x=1", Done: done})
	var got fakeAsk
	select {
	case got = <-f.asked:
	case <-time.After(time.Minute): // a hang guard
		t.Fatalf("the console was not asked; stderr: %q", stderr.String())
	}
	if got.server != "docs" || !strings.Contains(got.message, "open http://127.0.0.1:1/authorize?x=1") {
		t.Errorf("asked %q of %q", got.message, got.server)
	}
	if stderr.Len() != 0 {
		t.Errorf("written to the terminal under the console: %q", stderr.String())
	}
	close(done)
	<-got.ctx.Done() // the sign-in ended: the console's dialog goes
}
