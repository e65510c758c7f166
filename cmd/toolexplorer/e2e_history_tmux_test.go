//go:build unix

package main

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestE2EHistoryTmux uses the console across two sessions in a real
// terminal: two calls in the first, then, in a second console on the same
// history file, the older call opened from the history (not run again),
// and a call left running in the background and canceled from the runs
// panel.
func TestE2EHistoryTmux(t *testing.T) {
	tmuxPath, bin := e2eBuild(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The call left running is of ext.wait, whose endpoint answers only once
	// the request is given up, under a deadline of ten minutes: it runs
	// until it is canceled whatever the machine's load (demo.slow's own
	// 500 ms deadline, which a config cannot lengthen, could pass first).
	release := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, req *http.Request) {
		select {
		case <-req.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() {
		close(release)
		api.Close()
	})
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(tools, []byte(`{"sources":{"api":{"http":{"base_url":"`+api.URL+`","allow_private":true,"timeout":"10m"}}},
		"tools":[{"name":"ext.wait","input":{"type":"object"},"meta":{"timeout":"10m"},"binding":{"http":{"source":"api","path":"/wait"}}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "state", "history.jsonl")

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
	// The shell runs the console twice, as a person would from their prompt.
	const exited = "exited with status "
	firstExit := filepath.Join(dir, "first-exit")
	script := `"$0" --config "$1" --tools-dir "$3"; echo "$?" > "$2"; "$0" --config "$1" --tools-dir "$3"; printf 'second console ` + exited + `%d\n' "$?"; read -r _`
	c.must(t,
		"start-server", ";",
		"set-option", "-g", "default-terminal", "xterm-256color", ";",
		"new-session", "-d", "-s", e2eTarget, "-x", "100", "-y", "30", "-c", dir,
		"-e", "NO_COLOR=1", "-e", configEnv+"=", "-e", history.FileEnv+"="+store,
		"--", "/bin/sh", "-c", script, bin, cfg, firstExit, tools)
	socketPath = c.format(t, "#{socket_path}")

	// open filters the list to the tool name and opens its form.
	open := func(name string) {
		t.Helper()
		c.waitScreen(t, "press / to filter", e2eWait)
		c.keys(t, "/")
		c.waitScreen(t, "enter keep filter", e2eWait)
		c.text(t, name)
		c.waitMatch(t, `(?m)^› `+strings.ReplaceAll(name, ".", `\.`)+` `)
		c.keys(t, "Enter")
		c.waitScreen(t, "1-6 facets", e2eWait)
		c.keys(t, "Enter")
		c.waitAll(t, name, "Overview │ Input")
		c.keys(t, "r")
		c.waitAll(t, "Run "+name, "arguments: form")
	}
	// home goes back to the unfiltered list, one esc at a time: each waits
	// for the screen to change (an esc followed at once by another key
	// reads as alt and that key).
	home := func() {
		t.Helper()
		for s := c.screen(t); !strings.Contains(s, "press / to filter"); {
			c.keys(t, "Escape")
			prev := s
			s = c.waitFor(t, "esc to change the screen", func(now string) bool { return now != prev }, e2eWait)
		}
	}

	// The first console: two calls.
	c.waitAll(t, "toolexplorer › Tools", "demo.echo")
	open("demo.echo")
	c.waitMatch(t, `(?m)^› text\*`)
	c.text(t, "from the first console")
	c.keys(t, "C-s")
	c.waitAll(t, "✓ ok · demo.echo", `"text": "from the first console"`)
	home()
	open("demo.slow")
	c.waitMatch(t, `(?m)^› ms\s+1000$`)
	c.keys(t, "C-u")
	c.text(t, "1")
	c.keys(t, "C-s")
	c.waitAll(t, "✓ ok · demo.slow", `"slept_ms": 1`)
	c.keys(t, "q")
	c.waitScreen(t, "Quit toolexplorer?", e2eWait)
	c.keys(t, "y")

	// The second console, on the same history: the two calls are listed,
	// and enter opens the older one without running it.
	c.waitFor(t, "the first console to exit", func(string) bool { _, err := os.Stat(firstExit); return err == nil }, e2eWait)
	c.waitAll(t, "toolexplorer › Tools", "demo.echo")
	if st, _ := os.ReadFile(firstExit); strings.TrimSpace(string(st)) != "0" {
		t.Errorf("the first console exited with status %q", st)
	}
	c.keys(t, "H")
	c.waitMatch(t, `(?m)^› .*demo\.slow\s+✓ ok.*\{"ms":1,[\s\S]*^  .*demo\.echo\s+✓ ok.*from the first console`)
	c.keys(t, "j", "Enter")
	s := c.waitAll(t, "Call of demo.echo", "origin ui · by console", `"text": "from the first console"`, "Output")
	if strings.Contains(s, "1 call") {
		t.Errorf("the second console made a call:\n%s", s)
	}
	if got := keptCalls(t, store); len(got) != 2 {
		t.Fatalf("after opening a call, the history holds %d calls, want the 2 of the first console", len(got))
	}
	c.keys(t, "Escape")
	c.waitScreen(t, "History │ Saved", e2eWait)
	home()

	// A call left running in the background, canceled from the runs panel.
	open("ext.wait")
	c.keys(t, "C-s")
	c.waitScreen(t, "b goes back and leaves it running", e2eWait)
	c.keys(t, "b")
	c.waitAll(t, "call 1 of ext.wait runs in the background", "Overview │ Input")
	c.keys(t, "R")
	c.waitMatch(t, `(?m)^› +1  ext\.wait .*running`)
	c.keys(t, "x")
	c.waitAll(t, "0 calls in flight, 1 ended this session", "✗ canceled", "call 1 of ext.wait ended: error canceled")
	c.keys(t, "q")
	c.waitScreen(t, "Quit toolexplorer?", e2eWait)
	c.keys(t, "y")
	s = c.waitScreen(t, "second console "+exited, e2eWait)
	if !strings.Contains(s, "second console "+exited+"0") {
		t.Errorf("the second console did not exit with status 0:\n%s", s)
	}
	got := keptCalls(t, store)
	if len(got) != 3 || got[0].Tool != "ext.wait" || got[0].Result.Code != codes.Canceled {
		t.Errorf("the history holds %d calls, the newest %+v", len(got), got[0])
	}
	c.must(t, "kill-server")
	if runtime.GOOS == "linux" {
		if left := e2eProcesses(bin); len(left) > 0 {
			t.Errorf("processes of %s still run: %v", bin, left)
		}
	}
}

// keptCalls reads the history file, newest first.
func keptCalls(t *testing.T, path string) []history.Entry {
	t.Helper()
	got, err := history.Open(path).Last(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
