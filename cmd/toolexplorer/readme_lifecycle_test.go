package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// runTranscript runs each "$ toolexplorer ..." line of block and checks
// that the first line of what it prints is the line the block shows after
// it.
func runTranscript(t *testing.T, block string, dir string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(block), "\n")
	for i := 0; i < len(lines); i++ {
		cmdline, ok := strings.CutPrefix(lines[i], "$ toolexplorer ")
		if !ok {
			t.Fatalf("line %q is not a command", lines[i])
		}
		args, err := shellWords(cmdline)
		if err != nil {
			t.Fatal(err)
		}
		for j, a := range args {
			if a == "config.json" {
				args[j] = filepath.Join(dir, a)
			}
		}
		o := cli(t, "", args...)
		if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") {
			i++
			first, _, _ := strings.Cut(o.stdout, "\n")
			if first != lines[i] {
				t.Errorf("%s\nprints %q first, the README shows %q\n%v", cmdline, first, lines[i], o)
			}
		}
	}
}

// TestREADMERetriesAndDeprecations runs the README's "Retries and
// deprecations": each command, with its config, prints what the README
// shows (an idempotent retry replayed across processes, the same key with
// other arguments refused; a deprecation and a pause of a tool of a
// running serve).
func TestREADMERetriesAndDeprecations(t *testing.T) {
	blocks := readmeSection(t, "Retries and deprecations")
	stateDir, err := os.MkdirTemp("", "te-rd") // short: the control socket's path is at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(stateDir) })
	t.Setenv("XDG_STATE_HOME", stateDir)
	t.Setenv(ledgerEnv, filepath.Join(stateDir, "ledger.jsonl"))
	if err := os.WriteFile(filepath.Join(stateDir, "config.json"), []byte(blocks["json"]), 0o600); err != nil {
		t.Fatal(err)
	}
	runTranscript(t, blocks["sh"], stateDir)

	t.Cleanup(func() {
		_ = tooling.Default().SetState(context.Background(), "demo.kv_get", tooling.StateEnabled, "", "")
	})
	serveStdio(t, nil)
	runTranscript(t, blocks["text"], stateDir)
}
