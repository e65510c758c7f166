package main

import (
	"context"
	"encoding/json"
	"fmt"
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
// code to enter in the device flow. With the console open, it asks there
// (a dialog the sign-in's end withdraws), since the console owns the
// terminal; otherwise on stderr.
func (a *app) signIn(p mcp.SignIn) {
	msg := fmt.Sprintf("server %q wants you to sign in: open %s", p.Server, p.URL)
	if p.UserCode != "" {
		msg += " and enter the code " + p.UserCode
	}
	if ask := a.consoleAsker(); ask != nil {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			defer cancel()
			_, _, _ = ask.Ask(ctx, p.Server, msg+"\n\nThis closes by itself once you are signed in (esc hides it).", json.RawMessage(`{"type":"object","properties":{}}`))
		}()
		if p.Done != nil {
			go func() {
				select {
				case <-p.Done:
					cancel()
				case <-ctx.Done():
				}
			}()
		}
	} else {
		a.errorf("%s", msg)
	}
	if p.UserCode != "" {
		return
	}
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
