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
