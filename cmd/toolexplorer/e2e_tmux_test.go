//go:build unix

package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// e2eWait bounds every wait of the console's end-to-end test, a hang guard, not a
// measurement: each wait ends as soon as the screen shows what it waits for, so it is
// generous enough for a heavily loaded machine and costs nothing when all goes well.
const e2eWait = 2 * time.Minute

// e2ePoll is how often the screen is captured while waiting.
const e2ePoll = 50 * time.Millisecond

// e2eTarget is the tmux session (and so its only pane) the console runs in.
const e2eTarget = "e2e"

// e2eConsole drives the console in a detached tmux session on a server of
// its own (tmux -L), with a 100×30 terminal.
type e2eConsole struct {
	tmux   string // the tmux binary
	socket string // the server's socket name
	env    []string
	last   string // the last screen captured
}

// command runs tmux on the console's server and returns its output.
func (c *e2eConsole) command(args ...string) (string, error) {
	cmd := exec.Command(c.tmux, append([]string{"-L", c.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = c.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), errors.New("tmux " + strings.Join(args, " ") + ": " + err.Error() + ": " + strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

func (c *e2eConsole) must(t *testing.T, args ...string) string {
	t.Helper()
	out, err := c.command(args...)
	if err != nil {
		t.Fatalf("%v\nlast screen:\n%s", err, c.last)
	}
	return out
}

// keys sends named keys (Enter, Escape, Tab, BTab, C-s, or single
// characters).
func (c *e2eConsole) keys(t *testing.T, keys ...string) {
	t.Helper()
	c.must(t, append([]string{"send-keys", "-t", e2eTarget}, keys...)...)
}

// text types text literally.
func (c *e2eConsole) text(t *testing.T, text string) {
	t.Helper()
	c.must(t, "send-keys", "-t", e2eTarget, "-l", text)
}

// screen captures the visible pane as plain text.
func (c *e2eConsole) screen(t *testing.T) string {
	t.Helper()
	c.last = c.must(t, "capture-pane", "-p", "-t", e2eTarget)
	return c.last
}

// format is a tmux format of the pane, such as #{pane_dead}.
func (c *e2eConsole) format(t *testing.T, f string) string {
	t.Helper()
	return strings.TrimSpace(c.must(t, "display-message", "-p", "-t", e2eTarget, f))
}

// waitFor captures the screen every e2ePoll until ok accepts it, and fails
// with the last screen when timeout passes first.
func (c *e2eConsole) waitFor(t *testing.T, what string, ok func(screen string) bool, timeout time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		s := c.screen(t)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s; the screen:\n%s", timeout, what, s)
		}
		time.Sleep(e2ePoll)
	}
}

// waitScreen waits until the screen contains the text contains.
func (c *e2eConsole) waitScreen(t *testing.T, contains string, timeout time.Duration) string {
	t.Helper()
	return c.waitFor(t, strconv.Quote(contains), func(s string) bool { return strings.Contains(s, contains) }, timeout)
}

// waitAll waits until the screen contains every string of all.
func (c *e2eConsole) waitAll(t *testing.T, all ...string) string {
	t.Helper()
	return c.waitFor(t, "all of "+strings.Join(quoteAll(all), ", "), func(s string) bool {
		for _, w := range all {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}, e2eWait)
}

// waitMatch waits until the screen matches the regular expression re.
func (c *e2eConsole) waitMatch(t *testing.T, re string) string {
	t.Helper()
	rx := regexp.MustCompile(re)
	return c.waitFor(t, "a match of /"+re+"/", rx.MatchString, e2eWait)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// lineIndex is the index of the first line of screen matching re, or -1.
func lineIndex(screen, re string) int {
	rx := regexp.MustCompile(re)
	for i, l := range strings.Split(screen, "\n") {
		if rx.MatchString(l) {
			return i
		}
	}
	return -1
}

// e2eEnv is the environment of the tmux commands: the test's, outside any
// tmux session the tests may run in.
func e2eEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TMUX=") || strings.HasPrefix(kv, "TMUX_PANE=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// e2eBuild skips the test in -short mode or without tmux (fails without it
// under CI), and builds the binary; it returns tmux's path and the binary's.
func e2eBuild(t *testing.T) (tmuxPath, bin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and drives it in tmux")
	}
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is not installed and CI is set: the console's end-to-end test must run there (.ci/run installs tmux): %v", err)
		}
		t.Skip("tmux is not installed: install it (apt-get install tmux) to run the console's end-to-end test")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	bin = filepath.Join(t.TempDir(), "toolexplorer")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return tmuxPath, bin
}

// TestE2EConsoleTmux runs the console in a real terminal (tmux) and uses it
// as a person would: filter to demo.echo, fill and run its form, search
// and copy its output, edit its text as lines and run it again, submit it
// without a required field, run a tools-file tool (ext.wait) and cancel it, open the
// governance board, go to the ledger through the command palette and open
// the canceled call's record, go back to the tool list with ~ and to a
// tool's form through the palette, and quit, leaving the terminal as it
// was.
func TestE2EConsoleTmux(t *testing.T) {
	start := time.Now()
	tmuxPath, bin := e2eBuild(t)

	var b [6]byte
	_, _ = rand.Read(b[:])
	c := &e2eConsole{tmux: tmuxPath, socket: "toolexplorer-e2e-" + hex.EncodeToString(b[:]), env: e2eEnv()}
	var socketPath string
	t.Cleanup(func() {
		// Whatever happened, the server and the console in it end here.
		_, _ = c.command("kill-server")
		if socketPath != "" {
			_ = os.Remove(socketPath)
		}
	})
	// A shell runs the console in the pane, as a person would from their
	// prompt, says how it exited and then waits: what the terminal is like
	// after the console can be read before the pane closes.
	const (
		before = "the shell before the console"
		exited = "the console exited with status "
	)
	// A tools file with a tool whose schema does not compile: the console
	// opens with the others and shows the problem in a screen of its own.
	tools := filepath.Join(t.TempDir(), "tools.json")
	if err := os.WriteFile(tools, []byte(`{"tools":[{"name":"ext.mail","inputSchema":{"type":"object","properties":{"to":{"type":"string","pattern":"(?<=x"}}}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// The call canceled is of ext.wait, whose endpoint answers only once the
	// request is given up, under a deadline of ten minutes: esc cancels it
	// whatever the machine's load (demo.slow's own 500 ms deadline could pass
	// before esc is read).
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
	waitTool := filepath.Join(t.TempDir(), "wait.json")
	if err := os.WriteFile(waitTool, []byte(`{"sources":{"api":{"http":{"base_url":"`+api.URL+`","allow_private":true,"timeout":"10m"}}},
		"tools":[{"name":"ext.wait","input":{"type":"object","properties":{"note":{"type":"string"}}},"meta":{"timeout":"10m"},"binding":{"http":{"source":"api","path":"/wait"}}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `printf '%s\n' "` + before + `"; "$0" --tools "$1" --tools-dir "$2"; printf '` + exited + `%d\n' "$?"; read -r _`
	c.must(t,
		"start-server", ";",
		"set-option", "-g", "default-terminal", "xterm-256color", ";",
		"new-session", "-d", "-s", e2eTarget, "-x", "100", "-y", "30",
		"-e", "NO_COLOR=1", "-e", configEnv+"=", "--", "/bin/sh", "-c", script, bin, tools, waitTool)
	socketPath = c.format(t, "#{socket_path}")
	shellPID, err := strconv.Atoi(c.format(t, "#{pane_pid}"))
	if err != nil {
		t.Fatalf("pane pid: %v", err)
	}

	// The list shows the demo tools.
	c.waitAll(t, "toolexplorer › Tools", "press / to filter", "demo.echo", "demo.slow", "demo.counter")
	if runtime.GOOS == "linux" {
		if pids := e2eProcesses(bin); len(pids) != 1 {
			t.Errorf("want one console process, found %v", pids)
		}
	}

	// The tool that did not load is listed in the load problems (P).
	c.waitScreen(t, "1 load problem (P)", e2eWait)
	c.keys(t, "P")
	c.waitAll(t, "Load problems", `tool 1 "ext.mail": input schema`, "pattern at /properties/to:")
	c.keys(t, "Escape")
	c.waitScreen(t, "press / to filter", e2eWait)

	// The full help opens and closes with ?.
	c.keys(t, "?")
	c.waitAll(t, "Keys · Tools", "On every screen")
	c.keys(t, "?")
	c.waitFor(t, "the help to close", func(s string) bool {
		return strings.Contains(s, "press / to filter") && !strings.Contains(s, "On every screen")
	}, e2eWait)

	// Filter to demo.echo, keep the filter, open it, open its form.
	c.keys(t, "/")
	c.waitScreen(t, "enter keep filter", e2eWait)
	c.text(t, "echo")
	c.waitMatch(t, `(?m)^/ echo\b[\s\S]*^› demo\.echo `)
	c.keys(t, "Enter")
	c.waitScreen(t, "1-6 facets", e2eWait)
	c.keys(t, "Enter")
	c.waitAll(t, "toolexplorer › Tools › demo.echo", "demo.echo · Echo", "Overview │ Input")
	c.keys(t, "r")
	c.waitAll(t, "Run demo.echo · Echo", "arguments: form")
	c.waitMatch(t, `(?m)^› text\*`)

	// Fill text and repeat, run with ctrl+s: the text comes back twice.
	c.text(t, "hi")
	c.keys(t, "Tab")
	c.waitMatch(t, `(?m)^› repeat\s`)
	c.keys(t, "C-u")
	c.text(t, "2")
	c.waitMatch(t, `(?m)^  text\*\s+hi$[\s\S]*^› repeat\s+2$`)
	c.keys(t, "C-s")
	s := c.waitAll(t, "✓ ok · demo.echo", `"text": "hi hi"`)
	if !strings.Contains(s, `"length": 5`) {
		t.Errorf("the result has no length 5:\n%s", s)
	}

	// Search the output, copy the value found: the copy is also shown,
	// for terminals that ignore OSC 52.
	c.keys(t, "/")
	c.waitScreen(t, "enter search", e2eWait)
	c.text(t, "hi")
	c.keys(t, "Enter")
	c.waitAll(t, "match 1 of 1", "/hi: 1 match")
	c.keys(t, "y")
	c.waitAll(t, "copied the value at /text", "Copied (also sent to the clipboard with OSC 52):", "│ hi hi")

	// Edit the text as lines: enter opens the editor under the field,
	// enter there is a line break, esc keeps the lines; the call gets them.
	c.keys(t, "Escape")
	c.waitScreen(t, "arguments: form", e2eWait)
	c.keys(t, "BTab")
	c.waitMatch(t, `(?m)^› text\*\s+hi\s+enter: lines$`)
	c.keys(t, "Enter")
	c.waitScreen(t, "esc closes the editor", e2eWait)
	c.text(t, " there")
	c.keys(t, "Enter")
	c.text(t, "second line")
	c.waitMatch(t, `(?m)│ hi there\s*$[\s\S]*│ second line`)
	c.keys(t, "Escape")
	c.waitMatch(t, `(?m)^› text\*\s+hi there\s+⏎ 2 lines \(ctrl\+e\)`)
	c.keys(t, "C-s")
	c.waitAll(t, "✓ ok · demo.echo", `"text": ⏎ 3 lines`, "second line hi there", "strings shown as text")

	// Back to the form, empty the required text and run: the error shows
	// on the text field and the call is not made.
	c.keys(t, "Escape")
	c.waitScreen(t, "arguments: form", e2eWait)
	c.waitMatch(t, `(?m)^› text\*\s+hi there\s+⏎ 2 lines`)
	c.keys(t, "C-u")
	c.waitMatch(t, `(?m)^› text\*\s+‹text›\s+enter: lines$`) // the placeholder
	c.keys(t, "C-s")
	s = c.waitAll(t, "validation_error", "✗ is required")
	field, errLine, next := lineIndex(s, `^› text\*`), lineIndex(s, `✗ .*required`), lineIndex(s, `^  repeat\s`)
	if field < 0 || !(field < errLine && errLine < next) {
		t.Errorf("the required error is not shown under the text field (text line %d, error line %d, repeat line %d):\n%s", field, errLine, next, s)
	}

	// Raw JSON never traps: esc on text that is not JSON asks, and y drops
	// the edit and goes back to the form.
	c.keys(t, "C-r")
	c.waitAll(t, "arguments: raw JSON", "esc or ctrl+r back to the form")
	c.text(t, "}}")
	c.keys(t, "Escape")
	c.waitAll(t, "✗ not valid JSON", "Discard the edits and go back to the form?")
	c.keys(t, "y")
	c.waitFor(t, "the form to come back", func(s string) bool {
		return strings.Contains(s, "arguments: form") && !strings.Contains(s, "Discard the edits")
	}, e2eWait)

	// Back to the list, clear the filter, open ext.wait's form.
	c.keys(t, "Escape")
	c.waitScreen(t, "Overview │ Input", e2eWait)
	c.keys(t, "Escape")
	c.waitAll(t, `filter "echo" · / new filter`, "1-6 facets")
	c.keys(t, "Escape")
	c.waitScreen(t, "press / to filter", e2eWait)
	c.keys(t, "/")
	c.waitScreen(t, "enter keep filter", e2eWait)
	c.text(t, "wait")
	c.waitMatch(t, `(?m)^/ wait\b[\s\S]*^› ext\.wait `)
	c.keys(t, "Enter")
	c.waitScreen(t, "1-6 facets", e2eWait)
	c.keys(t, "Enter")
	c.waitAll(t, "ext.wait", "Overview │ Input")
	c.keys(t, "r")
	c.waitAll(t, "Run ext.wait", "arguments: form")
	c.waitMatch(t, `(?m)^› note\s`)
	c.text(t, "left to run")
	c.waitMatch(t, `(?m)^› note\s+left to run\s+enter: lines$`)

	// Run it and cancel it with esc while it runs.
	c.keys(t, "C-s")
	s = c.waitScreen(t, "esc cancels the call", e2eWait)
	if !regexp.MustCompile(`(?m)^. (starting|queued|running) \d`).MatchString(s) {
		t.Errorf("the running call shows no spinner line:\n%s", s)
	}
	if !regexp.MustCompile(`arguments \{.*"note":"left to run"`).MatchString(s) {
		t.Errorf("the running call does not show its arguments:\n%s", s)
	}
	c.keys(t, "Escape")
	s = c.waitFor(t, "the call to end", func(s string) bool { return strings.Contains(s, "✗ error ") }, e2eWait)
	if !strings.Contains(s, "✗ error canceled · ext.wait") || !strings.Contains(s, "canceled by its caller") {
		t.Errorf("want ext.wait canceled by its caller, got:\n%s", s)
	}

	// The governance board, with its sections and the calls made.
	c.keys(t, "B")
	c.waitAll(t, "Governance · live", "Slots", "Main thread", "Resources", "Rate buckets", "Tools")
	c.waitMatch(t, `(?m)^  ext\.wait .*canceled 1`)
	c.waitMatch(t, `(?m)^  demo\.echo .*validation_error 1`)

	// The command palette goes to the ledger, where the canceled call is
	// found and opened with every field of its records; ~ goes straight
	// back to the tool list, and the palette to a tool's form.
	c.keys(t, ":")
	c.waitAll(t, "a tool, a screen or an action", "Ledger", "Next origin")
	c.text(t, "ledger")
	c.waitMatch(t, `(?m)› Ledger\s+the evidence of every call`)
	c.keys(t, "Enter")
	c.waitMatch(t, `Ledger · \d+ calls? · `)
	c.keys(t, "/")
	c.text(t, "ext.wait canceled")
	c.waitMatch(t, `(?m)^› .*ext\.wait\S*\s+\S+\s+✗ canceled`)
	c.keys(t, "Enter")
	c.waitScreen(t, "(esc clears)", e2eWait)
	c.keys(t, "Enter")
	c.waitAll(t, "› Record of ", "✗ canceled · ext.wait", "Principal", "Evidence", "sha256 ")
	c.keys(t, "~")
	c.waitFor(t, "the tool list", func(s string) bool {
		return regexp.MustCompile(`(?m)^toolexplorer › Tools\s`).MatchString(s) && strings.Contains(s, "1-6 facets")
	}, e2eWait)
	c.keys(t, ":")
	c.waitScreen(t, "a tool, a screen or an action", e2eWait)
	c.text(t, "slow")
	c.waitMatch(t, `(?m)› demo\.slow\s`)
	c.keys(t, "Enter")
	c.waitAll(t, "toolexplorer › Tools › Run demo.slow", "preflight (as ui", "✓ would run")
	c.keys(t, "Escape") // B would be typed into the form's field
	c.waitScreen(t, "1-6 facets", e2eWait)
	c.keys(t, "B")
	c.waitScreen(t, "Governance · live", e2eWait)

	// q away from the tool list asks first: n stays, y quits. The console
	// exits 0 and the terminal is back as it was.
	c.keys(t, "q")
	c.waitAll(t, "Quit toolexplorer?", "Quit (y)", "Stay (n)")
	c.keys(t, "n")
	c.waitFor(t, "the quit question to close", func(s string) bool {
		return strings.Contains(s, "Governance · live") && !strings.Contains(s, "Quit toolexplorer?")
	}, e2eWait)
	c.keys(t, "q")
	c.waitScreen(t, "Quit toolexplorer?", e2eWait)
	c.keys(t, "y")
	s = c.waitScreen(t, exited, e2eWait)
	if !strings.Contains(s, exited+"0") {
		t.Errorf("the console did not exit with status 0:\n%s", s)
	}
	if !strings.Contains(s, before) || strings.Contains(s, "toolexplorer ›") || strings.Contains(s, "demo.echo") {
		t.Errorf("the terminal does not show what it showed before the console:\n%s", s)
	}
	for f, want := range map[string]string{
		"#{alternate_on}":       "0", // the alternate screen was left
		"#{cursor_flag}":        "1", // the cursor is shown again
		"#{mouse_any_flag}":     "0", // mouse reporting is off
		"#{mouse_button_flag}":  "0",
		"#{mouse_all_flag}":     "0",
		"#{mouse_sgr_flag}":     "0",
		"#{keypad_cursor_flag}": "0",
		"#{keypad_flag}":        "0",
		"#{insert_flag}":        "0",
		"#{wrap_flag}":          "1",
	} {
		if got := c.format(t, f); got != want {
			t.Errorf("after quitting, %s is %q, want %q", f, got, want)
		}
	}

	// Nothing is left behind: no server on the socket, no process.
	c.must(t, "kill-server")
	if out, err := c.command("list-sessions"); err == nil {
		t.Errorf("a tmux server still answers on %s:\n%s", c.socket, out)
	}
	if runtime.GOOS == "linux" {
		if left := e2eProcesses(bin); len(left) > 0 {
			t.Errorf("processes of %s still run: %v", bin, left)
		}
	}
	deadline := time.Now().Add(e2eWait)
	for !e2eGone(shellPID) {
		if time.Now().After(deadline) {
			t.Errorf("the pane's shell (pid %d) still runs %v after the tmux server was killed", shellPID, e2eWait)
			break
		}
		time.Sleep(e2ePoll)
	}
	t.Logf("the session took %v", time.Since(start))
}

// e2eGone reports whether the process pid has ended: it does not exist, or
// (Linux) it is a zombie no one has reaped yet.
func e2eGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	return i >= 0 && strings.HasPrefix(strings.TrimSpace(string(stat[i+1:])), "Z")
}

// e2eProcesses lists the pids of the processes running the binary bin
// (Linux: from /proc).
func e2eProcesses(bin string) []int {
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
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, bin) {
			pids = append(pids, pid)
		}
	}
	return pids
}
