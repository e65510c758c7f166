package demotools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestFSWriteFile(t *testing.T) {
	ws := confinedWorkspace(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.Symlink(outside, filepath.Join(ws, "escape")); err != nil {
		t.Fatal(err)
	}
	consent := tooling.WithConsent()
	type result struct {
		Path  string `json:"path"`
		Bytes int    `json:"bytes"`
	}
	t.Run("without consent", func(t *testing.T) {
		res, _ := execute(t, "fs.write_file", `{"path":"x.txt","content":"x"}`, codes.ConsentRequired)
		if res.Hint == "" {
			t.Error("no hint on how to give consent")
		}
		if _, err := os.Stat(filepath.Join(ws, "x.txt")); !os.IsNotExist(err) {
			t.Errorf("the file was written: %v", err)
		}
	})
	for _, tt := range []struct{ path, content string }{
		{"new.txt", "hello"},
		{"new.txt", "héllo again"},
		{"deep/er/file.txt", ""},
	} {
		t.Run(tt.path, func(t *testing.T) {
			res, _ := execute(t, "fs.write_file", `{"path":"`+tt.path+`","content":"`+tt.content+`"}`, codes.OK, consent)
			var got result
			decodeOutput(t, res, &got)
			if got != (result{Path: tt.path, Bytes: len(tt.content)}) {
				t.Errorf("got %+v", got)
			}
			b, err := os.ReadFile(filepath.Join(ws, tt.path))
			if err != nil || string(b) != tt.content {
				t.Errorf("file holds %q (%v), want %q", b, err, tt.content)
			}
			// And the confined reader sees it.
			res, _ = execute(t, "fs.read_file", `{"path":"`+tt.path+`"}`, codes.OK)
			if !strings.Contains(string(res.Output), `"text":"`+tt.content+`"`) {
				t.Errorf("read back %s", res.Output)
			}
		})
	}
	t.Run("symlink out", func(t *testing.T) {
		execute(t, "fs.write_file", `{"path":"escape","content":"x"}`, codes.SandboxDenied, consent)
		if _, err := os.Stat(outside); !os.IsNotExist(err) {
			t.Errorf("a file was written outside: %v", err)
		}
	})
	for _, p := range []string{"/tmp/x", "../x", "a/../../x"} {
		t.Run("refused "+p, func(t *testing.T) {
			execute(t, "fs.write_file", `{"path":"`+p+`","content":"x"}`, codes.ToolError, consent)
		})
	}
}

// TestFSWriteFileGitWorkspace: the ordinary case in a workspace that is a
// git repository. fs.write_file creates and overwrites files at the root and
// in new subdirectories; .git stays read-only, with a message that says why.
func TestFSWriteFileGitWorkspace(t *testing.T) {
	ws := confinedWorkspace(t)
	git := filepath.Join(ws, ".git")
	writeFile(t, filepath.Join(git, "config"), "[core]\n")
	writeFile(t, filepath.Join(git, "HEAD"), "ref: refs/heads/main\n")
	if os.Geteuid() == 0 {
		for _, p := range []string{git, filepath.Join(git, "config"), filepath.Join(git, "HEAD")} {
			if err := os.Chown(p, 65534, 65534); err != nil { // only the confinement stops a write
				t.Fatal(err)
			}
		}
	}
	consent := tooling.WithConsent()
	for _, tt := range []struct{ path, content string }{
		{"new.txt", "at the root"},
		{"new.txt", "overwritten"},
		{"newdir/sub/file.txt", "in new subdirectories"},
	} {
		execute(t, "fs.write_file", `{"path":"`+tt.path+`","content":"`+tt.content+`"}`, codes.OK, consent)
		if b, err := os.ReadFile(filepath.Join(ws, tt.path)); err != nil || string(b) != tt.content {
			t.Errorf("%s holds %q (%v), want %q", tt.path, b, err, tt.content)
		}
	}
	res, _ := execute(t, "fs.write_file", `{"path":".git/config","content":"[core]\n\tfsmonitor = touch /tmp/owned\n"}`, codes.SandboxDenied, consent)
	if !strings.Contains(res.Message, ".git is a protected name") {
		t.Errorf("message %q does not say that .git is protected", res.Message)
	}
	if b, _ := os.ReadFile(filepath.Join(git, "config")); string(b) != "[core]\n" {
		t.Errorf(".git/config holds %q", b)
	}
}
