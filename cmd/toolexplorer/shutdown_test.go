//go:build linux

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// marked counts the live processes whose environment holds mark.
func marked(t *testing.T, mark string) []string {
	t.Helper()
	dirs, err := filepath.Glob("/proc/[0-9]*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range dirs {
		env, err := os.ReadFile(filepath.Join(d, "environ"))
		if err == nil && slices.Contains(strings.Split(string(env), "\x00"), mark) {
			out = append(out, filepath.Base(d))
		}
	}
	return out
}

// TestGatewayLeavesNoProcess ends the gateway each way it can end (SIGTERM,
// SIGINT, SIGHUP then SIGTERM, its stdin closed) while it fronts two
// servers, and counts the servers' processes left once it has exited:
// none.
func TestGatewayLeavesNoProcess(t *testing.T) {
	bin := buildBinary(t)
	for _, way := range []string{"SIGTERM", "SIGINT", "SIGHUP then SIGTERM", "stdin closed"} {
		t.Run(way, func(t *testing.T) {
			b := make([]byte, 8)
			_, _ = rand.Read(b)
			mark := "TOOLEXPLORER_TEST_MARK=" + hex.EncodeToString(b)
			name, value, _ := strings.Cut(mark, "=")
			servers := map[string]any{}
			for _, s := range []string{"one", "two"} {
				// The server is this program's serve; it starts a child of its own
				// (a shell that waits), as npx starts node.
				servers[s] = map[string]any{"command": "/bin/sh", "args": []string{"-c", "sleep 3600 & exec '" + bin + "' serve"}, "env": map[string]string{name: value}}
			}
			raw, _ := json.Marshal(map[string]any{"servers": servers})
			cfg := writeFile(t, "c.json", string(raw))
			cmd := exec.Command(bin, "serve", "--config", cfg)
			cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr syncBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(),
				&sdk.IOTransport{Reader: stdout, Writer: nopWriteCloser{stdin}}, nil)
			if err != nil {
				cmd.Process.Kill()
				t.Fatalf("connect: %v; stderr: %s", err, stderr.String())
			}
			names := listNames(t, cs)
			if !slices.Contains(names, "one.demo_echo") || !slices.Contains(names, "two.demo_echo") {
				t.Fatalf("the gateway lists %v", names)
			}
			if n := len(marked(t, mark)); n != 4 {
				t.Fatalf("%d processes of the servers, want 4 (two servers, a child each)", n)
			}
			switch way {
			case "SIGTERM":
				cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				cmd.Process.Signal(syscall.SIGINT)
			case "SIGHUP then SIGTERM":
				cmd.Process.Signal(syscall.SIGHUP)
				// SIGHUP does not end it: it still answers.
				if names := listNames(t, cs); !slices.Contains(names, "one.demo_echo") {
					t.Fatalf("after SIGHUP the gateway lists %v", names)
				}
				cmd.Process.Signal(syscall.SIGTERM)
			case "stdin closed":
				stdin.Close()
			}
			select {
			case err := <-waited:
				if err != nil {
					t.Errorf("the gateway ended with %v; stderr: %s", err, stderr.String())
				}
			case <-time.After(2 * time.Minute): // a hang guard
				cmd.Process.Kill()
				<-waited
				t.Fatalf("the gateway did not end; stderr: %s", stderr.String())
			}
			cs.Close()
			if left := marked(t, mark); len(left) > 0 {
				for _, pid := range left {
					if p, err := os.FindProcess(atoi(pid)); err == nil {
						p.Kill()
					}
				}
				t.Fatalf("processes left: %v; stderr: %s", left, stderr.String())
			}
			if strings.Contains(stderr.String(), "stopping it") {
				t.Errorf("stopping a server said: %s", stderr.String())
			}
		})
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
