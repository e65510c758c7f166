//go:build unix

package main

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// TestE2EConsoleEndsWhenItsTerminalCloses: a console with tools files
// (where SIGHUP means "reload them") still ends when its terminal goes away,
// as when a person closes the window: tmux kills the session, the kernel
// hangs the terminal up and sends SIGHUP.
func TestE2EConsoleEndsWhenItsTerminalCloses(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	tmuxPath, bin := e2eBuild(t)
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
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples", "tools"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	c.env = e2eEnv()
	c.must(t,
		"start-server", ";",
		"new-session", "-d", "-s", e2eTarget, "-x", "100", "-y", "30",
		"-e", "NO_COLOR=1", "-e", configEnv+"=", "-e", "XDG_STATE_HOME="+os.Getenv("XDG_STATE_HOME"),
		"--", bin, "--tools-dir", examples)
	socketPath = c.format(t, "#{socket_path}")
	c.waitAll(t, "toolexplorer › Tools", "shop.list_products")
	pid, err := strconv.Atoi(c.format(t, "#{pane_pid}"))
	if err != nil {
		t.Fatalf("pane pid: %v", err)
	}
	c.must(t, "kill-session", "-t", e2eTarget)
	deadline := time.Now().Add(e2eWait)
	for !e2eGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the console (pid %d) still runs %v after its terminal closed", pid, e2eWait)
		}
		time.Sleep(e2ePoll)
	}
	if left := e2eProcesses(bin); len(left) > 0 {
		t.Errorf("processes of %s still run: %v", bin, left)
	}
}
