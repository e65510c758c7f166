//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// protectFixture makes a write grant (owned by the children's user on a root host) and returns
// it; mk makes directories and files in it, owned likewise.
func protectFixture(t *testing.T) (ws string, mk func(dir bool, rel ...string) string) {
	t.Helper()
	f := newFixture(t)
	ws = f.rw
	mk = func(dir bool, rel ...string) string {
		t.Helper()
		p := filepath.Join(append([]string{ws}, rel...)...)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if dir {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if os.Geteuid() == 0 {
			for q := p; q != ws; q = filepath.Dir(q) {
				os.Chown(q, UnprivilegedID, UnprivilegedID) // only the confinement stops a write
			}
		}
		return p
	}
	return ws, mk
}

// manyFiles makes n empty files in dir (owned by the children's user on a root host).
func manyFiles(t *testing.T, dir string, n int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		p := filepath.Join(dir, strconv.Itoa(i))
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		os.Chown(dir, UnprivilegedID, UnprivilegedID)
	}
}

// TestProtectBudgetFailsClosed: a write grant holds aaa/ with more entries than the walk for
// protected names may look at, then project/.git. The control writes project/.git/config
// unconfined; in the split mode the call is refused outright (it let the whole grant be written
// once the budget ran out), with a message that says why.
func TestProtectBudgetFailsClosed(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	ws, mk := protectFixture(t)
	manyFiles(t, filepath.Join(ws, "aaa"), protectBudget+1)
	config := mk(false, "project", ".git", "config")
	err := runFSOp(fsOp{Op: "write", A: config})
	record("write project/.git/config past the scan budget (unconfined control)", "ok", outcome(nil, err), err == nil)
	_, e := call(t, "write project/.git/config past the scan budget (split)", full, Unavailable, "test.fs", Profile{WritePaths: []string{ws}}, fsReq("mkdir-write", config, ""))
	if e != nil && !strings.Contains(e.What, "cannot all be found") {
		t.Errorf("refusal %q does not say why", e.What)
	}
	if b, _ := os.ReadFile(config); string(b) != "written by a child" {
		t.Errorf(".git/config holds %q", b)
	}
}
