package main

import (
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/mcp"
)

// oauthClient is how the server name at url signs in with OAuth, as its
// config says: its tokens kept under the user's state directory, the user
// told on stderr where to sign in (and a browser opened for the browser
// flow).
func (a *app) oauthClient(name, url string, o *config.ServerOAuth) *mcp.OAuthClient {
	c := &mcp.OAuthClient{ClientID: o.ClientID, ClientSecret: o.ClientSecret, ClientMetadataURL: o.ClientMetadataURL,
		Scopes: o.Scopes, Device: o.Device, RedirectPort: o.RedirectPort, Prompt: a.signIn}
	if dir := a.stateDir(); dir != "" {
		c.TokenFile = mcp.TokenFile(dir, url)
	}
	return c
}

// stateDir is the user's state directory ($XDG_STATE_HOME, else
// ~/.local/state); "" when neither is known.
func (a *app) stateDir() string {
	if dir := a.getenv("XDG_STATE_HOME"); dir != "" && filepath.IsAbs(dir) {
		return dir
	}
	if home := a.getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "state")
	}
	return ""
}

// signIn tells the user how to let toolexplorer reach a server: the URL to
// open (opened in a browser when the flow is the browser's and one can be
// started: $BROWSER, else xdg-open on a desktop, open on macOS), and the
// code to enter in the device flow.
func (a *app) signIn(p mcp.SignIn) {
	if p.UserCode != "" {
		a.errorf("server %q wants you to sign in: open %s and enter the code %s", p.Server, p.URL, p.UserCode)
		return
	}
	a.errorf("server %q wants you to sign in: open %s", p.Server, p.URL)
	if cmd := a.browserCommand(p.URL); cmd != nil {
		if cmd.Start() == nil {
			go cmd.Wait()
		}
	}
}

// browserCommand is the command that opens url in a browser, nil when
// there is none to use.
func (a *app) browserCommand(url string) *exec.Cmd {
	if b := a.getenv("BROWSER"); b != "" {
		return exec.Command(b, url)
	}
	switch {
	case runtime.GOOS == "darwin":
		return exec.Command("open", url)
	case runtime.GOOS == "windows":
		return exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	case a.getenv("DISPLAY") != "" || a.getenv("WAYLAND_DISPLAY") != "":
		if p, err := exec.LookPath("xdg-open"); err == nil {
			return exec.Command(p, url)
		}
	}
	return nil
}
