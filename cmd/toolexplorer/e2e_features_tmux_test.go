//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestE2EConsoleServerFeaturesTmux drives what server-everything offers
// besides tools in a real terminal (tmux): from the servers screen, it
// reads a resource, gets a prompt with its argument filled in a form,
// answers a sampling request of the server's trigger_sampling_request tool
// in the dialog, sees a task-only tool refused, and finds the sampling
// request among the JSON-RPC messages of the traffic view, filtered by
// method and opened.
func TestE2EConsoleServerFeaturesTmux(t *testing.T) {
	tmuxPath, bin := e2eBuild(t)
	need := t.Skipf
	if os.Getenv("CI") == "true" {
		need = t.Fatalf
	}
	node, err := exec.LookPath("node")
	if err != nil {
		need("node is not installed: %v", err)
	}
	if out, err := exec.Command("../../scripts/install-peers.sh").CombinedOutput(); err != nil {
		need("scripts/install-peers.sh could not install the MCP peers: %v: %s", err, out)
	}
	everything, err := filepath.Abs("../../.cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	c := &e2eConsole{tmux: tmuxPath, socket: "toolexplorer-e2e-" + hex.EncodeToString(b[:]), env: e2eEnv()}
	var socketPath string
	t.Cleanup(func() {
		_, _ = c.command("kill-server")
		if socketPath != "" {
			_ = os.Remove(socketPath)
		}
	})
	const exited = "the console exited with status "
	script := `"$0" --server "everything=$1 $2 stdio"; printf '` + exited + `%d\n' "$?"; read -r _`
	c.must(t,
		"start-server", ";",
		"set-option", "-g", "default-terminal", "xterm-256color", ";",
		"new-session", "-d", "-s", e2eTarget, "-x", "120", "-y", "36",
		"-e", "NO_COLOR=1", "-e", configEnv+"=", "-e", "HOME="+t.TempDir(), "--", "/bin/sh", "-c", script, bin, node, everything)
	socketPath = c.format(t, "#{socket_path}")
	c.waitAll(t, "toolexplorer › Tools", "everything.echo", "everything.trigger_sampling_request")

	// Tasks: a tool the server runs only as a task is unavailable, refused
	// before any call is sent; its form's preflight says so as it opens.
	c.keys(t, ":")
	c.waitScreen(t, "a tool, a screen or an action", e2eWait)
	c.text(t, "everything.simulate_research_query")
	c.keys(t, "Enter")
	c.waitAll(t, "Run everything.simulate_research_query", "would be refused at availability (unavailable): everything.simulate_research_query")
	escTo(t, c, "Tools")

	// Resources: the static documents are listed; enter reads one.
	c.keys(t, "S")
	c.waitAll(t, "MCP servers · 1 server", "o resources")
	c.keys(t, "o")
	c.waitAll(t, "Resources of everything", "demo://resource/static/document/architecture.md", "T ")
	c.keys(t, "Enter")
	c.waitAll(t, "Resource demo://resource/static/document/architecture.md", "Architecture")
	escTo(t, c, "Resources of everything")
	escTo(t, c, "MCP servers")

	// Prompts: args-prompt's city is filled in its form.
	c.keys(t, "p")
	c.waitAll(t, "Prompts of everything", "simple-prompt", "args-prompt", "(city*, state)")
	c.keys(t, "j")
	c.waitMatch(t, `(?m)^› args-prompt`)
	c.keys(t, "Enter")
	c.waitAll(t, "Arguments of args-prompt", "city*")
	c.text(t, "Paris")
	c.keys(t, "C-s")
	c.waitAll(t, "Prompt args-prompt", "What's weather in Paris?")
	escTo(t, c, "Arguments of args-prompt")
	escTo(t, c, "Prompts of everything")
	escTo(t, c, "MCP servers")

	// Sampling: the tool asks for a model's reply, written in the dialog.
	c.keys(t, ":")
	c.waitScreen(t, "a tool, a screen or an action", e2eWait)
	c.text(t, "everything.trigger_sampling_request")
	c.keys(t, "Enter")
	c.waitAll(t, "Run everything.trigger_sampling_request", "prompt*")
	c.keys(t, "Tab")
	c.waitMatch(t, `(?m)^› prompt\*`)
	c.text(t, "what is 2+2?")
	c.keys(t, "C-s")
	screen := c.waitFor(t, "the consent dialog or the sampling request", func(s string) bool {
		return containsAny(s, "Sampling requested", "Consent and run (y)")
	}, e2eWait)
	if containsAny(screen, "Consent and run (y)") {
		c.keys(t, "y")
	}
	c.waitAll(t, "Sampling requested", "the MCP server everything asks for a model's reply", "user: Resource trigger-sampling-request context: what is 2+2?")
	c.text(t, "four")
	c.keys(t, "C-s")
	c.waitAll(t, "✓ ok · everything.trigger_sampling_request", "four", "a person at toolexplorer")

	// Traffic: the sampling request is among the messages; / keeps those
	// whose method holds "sampling", and enter opens it.
	c.keys(t, "S")
	c.waitScreen(t, "MCP servers · 1 server", e2eWait)
	c.keys(t, "t")
	c.waitAll(t, "Traffic of everything", "tools/list", "sampling/createMessage")
	c.keys(t, "/")
	c.text(t, "sampling")
	c.keys(t, "Enter")
	c.waitAll(t, `method holds "sampling"`, "← request      sampling/createMessage", "→ response     sampling/createMessage")
	c.keys(t, "Up")
	c.waitMatch(t, `(?m)^› .*← request +sampling/createMessage`)
	c.keys(t, "Enter")
	c.waitAll(t, "request sampling/createMessage · ← from everything", `"systemPrompt": "You are a helpful test server."`)

	// The log shows the server's stderr.
	escTo(t, c, "Traffic of everything")
	escTo(t, c, "MCP servers")
	c.keys(t, "l")
	c.waitAll(t, "Log of everything", "stderr")

	c.keys(t, "q")
	c.waitScreen(t, "Quit toolexplorer?", e2eWait)
	c.keys(t, "y")
	c.waitScreen(t, exited+"0", e2eWait)
}

// escTo sends esc and waits until the breadcrumb ends with crumb.
func escTo(t *testing.T, c *e2eConsole, crumb string) {
	t.Helper()
	c.keys(t, "Escape")
	// What follows the breadcrumb on the right (the calls made) is set
	// apart by two spaces or more.
	c.waitMatch(t, `(?m)^toolexplorer › .*`+regexp.QuoteMeta(crumb)+`( {2,}.*)?$`)
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
