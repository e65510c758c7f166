package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// TestE2EBinary builds the command and runs it as a subprocess, to check the
// exit statuses the shell sees.
func TestE2EBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	bin := filepath.Join(t.TempDir(), "toolexplorer")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	tests := []struct {
		name  string
		args  []string
		stdin string
		code  int
	}{
		{"ok", []string{"run", "demo.echo", "--args", `{"text":"hi","repeat":2}`, "--json"}, "", exitOK},
		{"stdin", []string{"run", "demo.echo", "--args", "-", "--json"}, `{"text":"hi","repeat":2}`, exitOK},
		{"refused", []string{"run", "demo.echo", "--args", `{"repeat":0}`}, "", exitRefused},
		{"usage", []string{"run"}, "", exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Env = append(os.Environ(), configEnv+"=")
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			var exitErr *exec.ExitError
			if errors.As(err, &exitErr) {
				code = exitErr.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, &stdout, &stderr)
			}
			if tt.code != exitOK {
				return
			}
			var res struct {
				Status string `json:"status"`
				Output struct {
					Text string `json:"text"`
				} `json:"output"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("stdout is not JSON: %v\n%s", err, &stdout)
			}
			if res.Status != "ok" || res.Output.Text != "hi hi" {
				t.Errorf("status %q, text %q: want ok and \"hi hi\"", res.Status, res.Output.Text)
			}
		})
	}
}

// TestE2EConfinedLeavesNothing runs a confined tool through the binary and checks that the
// process, once exited, left no temp dir behind (tooling.Main ends the confinement session).
func TestE2EConfinedLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if err := confine.Available(); err != nil {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %v", err)
		}
		t.Skipf("confinement unavailable here: %v", err)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	bin := filepath.Join(t.TempDir(), "toolexplorer")
	build := exec.Command(goTool, "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "GOTOOLCHAIN=local")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// Children run as an unprivileged user when the test runs as root: the temp dir and the
	// workspace must be reachable for them.
	open := func(pattern string) string {
		d, err := os.MkdirTemp("", pattern)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	tmp, ws := open("te-tmpdir-"), open("te-workspace-")
	cfg := filepath.Join(ws, "..", filepath.Base(ws)+".json")
	if err := os.WriteFile(cfg, []byte(`{"confinement":{"workspace":"`+ws+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(cfg) })
	cmd := exec.Command(bin, "--config", cfg, "run", "fs.list_dir", "--args", `{"path":"."}`, "--json")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), `"status": "ok"`) {
		t.Fatalf("confined call: %v\n%s", err, out)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temp dir: %s", e.Name())
	}
}
