//go:build linux

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestE2EConsoleRemoteTmux starts the console in a real terminal (tmux)
// with --server everything=... (the reference MCP server, installed by
// scripts/install-peers.sh), finds that server's echo among the tools, runs
// it through its form and reads the result; the server killed is shown
// stopped and restarted from the servers screen; then it quits: the server
// is stopped with the console.
func TestE2EConsoleRemoteTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	need := t.Skipf
	if os.Getenv("CI") == "true" {
		need = t.Fatalf
	}
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		need("tmux is not installed: %v", err)
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
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	bin := filepath.Join(t.TempDir(), "toolexplorer")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
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
		"new-session", "-d", "-s", e2eTarget, "-x", "100", "-y", "30",
		"-e", "NO_COLOR=1", "-e", configEnv+"=", "--", "/bin/sh", "-c", script, bin, node, everything)
	socketPath = c.format(t, "#{socket_path}")

	// The server's tools are listed beside the demo tools.
	c.waitAll(t, "toolexplorer › Tools", "press / to filter", "everything.echo", "everything.get_sum")

	// Filter to its echo, open it, fill its form and run it.
	c.keys(t, "/")
	c.waitScreen(t, "enter keep filter", e2eWait)
	c.text(t, "everything.echo")
	c.waitMatch(t, `(?m)^/ everything\.echo\b[\s\S]*^› everything\.echo `)
	c.keys(t, "Enter")
	c.waitScreen(t, "1-6 facets", e2eWait)
	c.keys(t, "Enter")
	c.waitAll(t, "toolexplorer › Tools › everything.echo", "Overview │ Input")
	c.keys(t, "r")
	c.waitAll(t, "Run everything.echo", "arguments: form")
	c.waitMatch(t, `(?m)^› message\*`)
	c.text(t, "hello over MCP")
	c.keys(t, "C-s")
	c.waitAll(t, "✓ ok · everything.echo", "Echo: hello over MCP")

	consoles := e2eProcesses(bin)
	if len(consoles) != 1 {
		t.Fatalf("want one console process, found %v", consoles)
	}
	servers := serversOf(consoles[0], everything)
	if len(servers) != 1 {
		t.Fatalf("the control: want one server process started by the console, found %v", servers)
	}

	// The server dies: the console says so; S shows it stopped, and r
	// there starts it again.
	if err := syscall.Kill(servers[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.waitAll(t, "server everything has stopped")
	c.keys(t, "S")
	c.waitAll(t, "MCP servers · 1 server", "stopped", "r restarts it")
	c.keys(t, "r")
	c.waitAll(t, "server everything restarted", "connected")
	restarted := serversOf(consoles[0], everything)
	if len(restarted) != 1 || restarted[0] == servers[0] {
		t.Fatalf("after the restart: server processes %v (the first was %d)", restarted, servers[0])
	}

	// Quit: the console exits and the server with it.
	c.keys(t, "q")
	c.waitScreen(t, "Quit toolexplorer?", e2eWait)
	c.keys(t, "y")
	c.waitScreen(t, exited+"0", e2eWait)
	if running(restarted[0]) {
		t.Errorf("the server %d still runs after the console quit", restarted[0])
	}
}

// serversOf lists the children of parent whose arguments hold arg.
func serversOf(parent int, arg string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(parent) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && slices.Contains(strings.Split(string(b), "\x00"), arg) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// running reports whether pid is a process that has not exited.
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat)[i+1:])
	return len(f) > 0 && f[0] != "Z"
}
