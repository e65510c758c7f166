//go:build unix

package history_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

// A history file made before, readable by others (0644), is made private
// by the next Append.
func TestAppendMakesAnOpenHistoryPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := history.Open(path).Append(entry(1)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("the history file is %#o after an append, want 0600", perm)
	}
}

// A symbolic link at the history's path (or at its lock's) is refused,
// not followed: the calls would go wherever it points.
func TestHistoryDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "elsewhere")
	if err := os.WriteFile(target, []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The control: an ordinary open of such a link writes to its target.
	control := filepath.Join(dir, "control")
	if err := os.Symlink(target, control); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(control, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteString("control\n")
	f.Close()
	if b, _ := os.ReadFile(target); err != nil || string(b) != "theirs\ncontrol\n" {
		t.Fatalf("the control did not write through the link: %v, %q", err, b)
	}

	path := filepath.Join(dir, "history.jsonl")
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	s := history.Open(path)
	err = s.Append(entry(1))
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Append through a link: %v", err)
	}
	if b, _ := os.ReadFile(target); string(b) != "theirs\ncontrol\n" {
		t.Fatalf("the link's target was written: %q", b)
	}
	if _, err := s.Newest(); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("reading through a link: %v", err)
	}

	// The lock file beside it.
	path2 := filepath.Join(dir, "h2.jsonl")
	made := filepath.Join(dir, "made-by-the-lock")
	if err := os.Symlink(made, path2+".lock"); err != nil {
		t.Fatal(err)
	}
	if err := history.Open(path2).Append(entry(1)); err == nil {
		t.Error("Append with a linked lock file succeeded")
	}
	if _, err := os.Lstat(made); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock's link was followed: %v", err)
	}
}
