package confined

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// TestWorkspaceNotHandedOverWithContent checks that a root host gives the
// children's user an empty or new workspace, never one that already holds
// another user's files.
func TestWorkspaceNotHandedOverWithContent(t *testing.T) {
	if !hostIsRoot {
		t.Skip("only a root host hands the workspace over")
	}
	base, err := os.MkdirTemp("", "handover-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	full, empty := filepath.Join(base, "full"), filepath.Join(base, "empty")
	for _, d := range []string{full, empty} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(full, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	owner := func(p string) uint32 {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Uid
	}
	if err := newRunner().Workspace(full, false); err != nil || owner(full) != 0 {
		t.Errorf("a workspace to read holding root's files: %v, owner %d; want it usable and left to root", err, owner(full))
	}
	if err := newRunner().Workspace(full, true); err == nil || owner(full) != 0 {
		t.Errorf("a workspace holding root's files: %v, owner %d; want it refused and left to root", err, owner(full))
	}
	if err := newRunner().Workspace(empty, true); err != nil || owner(empty) != confine.UnprivilegedID {
		t.Errorf("an empty workspace: %v, owner %d; want it handed over", err, owner(empty))
	}
	if err := os.Symlink(full, filepath.Join(base, "link")); err != nil {
		t.Fatal(err)
	}
	if err := handOver(filepath.Join(base, "link")); err == nil {
		t.Error("a workspace path that is a symlink was followed")
	}
}
