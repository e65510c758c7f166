//go:build linux

package confine

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
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
	for _, m := range modes(t) {
		want := Denied // the namespace mode's walk has no budget
		if m == ModeSplit {
			want = Unavailable
		}
		_, e := call(t, fmt.Sprintf("write project/.git/config past the scan budget (%s)", m), full, want, "test.fs", inMode(Profile{WritePaths: []string{ws}}, m), fsReq("mkdir-write", config, ""))
		if m == ModeSplit && e != nil && !strings.Contains(e.What, "cannot all be found") {
			t.Errorf("refusal %q does not say why", e.What)
		}
	}
	if b, _ := os.ReadFile(config); string(b) != "written by a child" {
		t.Errorf(".git/config holds %q", b)
	}
}

// modes are the protection modes a test runs under: the namespace mode when this machine has it,
// and the split mode always (forced through envSplitMode).
func modes(t *testing.T) []Mode {
	t.Helper()
	switch m, why := ProtectionMode(); m {
	case ModeSplit:
		record("protected names in a mount namespace", "namespace", "not applicable: "+why, true)
		return []Mode{ModeSplit}
	case ModeNamespace:
		record("protected names made under a supervisor", "supervised", "not applicable: "+why, true)
		return []Mode{ModeNamespace, ModeSplit}
	}
	return []Mode{ModeSupervised, ModeNamespace, ModeSplit}
}

// inMode returns p made to run in mode m.
func inMode(p Profile, m Mode) Profile {
	switch m {
	case ModeSplit:
		p.Env = append(slices.Clone(p.Env), envSplitMode)
	case ModeNamespace:
		p.Env = append(slices.Clone(p.Env), envNamespaceMode)
	}
	return p
}

func init() {
	if os.Getenv(envMarker) != markerValue {
		// In the test parent; a profile passes one on only when it names it.
		os.Setenv(envSplitMode, "1")
		os.Setenv(envNamespaceMode, "1")
	}
}

// TestProtectedAtDepth: a workspace holds a git repository at depth 1, 5 and 30. The control
// writes each .git/config unconfined; confined, each is refused in both modes, with a message
// that names .git and says why.
func TestProtectedAtDepth(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	for _, m := range modes(t) {
		ws, mk := protectFixture(t)
		for _, depth := range []int{1, 5, 30} {
			rel := make([]string, 0, depth+1)
			for i := 1; i < depth; i++ {
				rel = append(rel, "d"+strconv.Itoa(i))
			}
			config := mk(false, append(rel, ".git", "config")...)
			attack := fmt.Sprintf("write .git/config at depth %d (%s)", depth, m)
			err := runFSOp(fsOp{Op: "write", A: config})
			record(attack+" [unconfined control]", "ok", outcome(nil, err), err == nil)
			os.WriteFile(config, []byte("x"), 0o644)
			_, e := call(t, attack, full, Denied, "test.fs", inMode(Profile{WritePaths: []string{ws}}, m), fsReq("write", config, ""))
			if e != nil && (!strings.Contains(e.What, ".git is a protected name") || !strings.Contains(e.What, "fsmonitor")) {
				t.Errorf("%s: message %q does not name .git and why", attack, e.What)
			}
			if b, _ := os.ReadFile(config); string(b) != "x" {
				t.Errorf("%s: .git/config holds %q", attack, b)
			}
		}
	}
}

// TestGitWorkspaceWrites: the ordinary case. In a workspace that is a git repository, files are
// created, overwritten and deleted at the root and in new subdirectories (the namespace mode);
// the split mode refuses the writes in the root with a message that says why. .git stays
// read-only in both.
func TestGitWorkspaceWrites(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	for _, m := range modes(t) {
		ws, mk := protectFixture(t)
		config := mk(false, ".git", "config")
		existing := mk(false, "existing.txt")
		p := inMode(Profile{WritePaths: []string{ws}}, m)
		want := ErrorKind(0)
		if m == ModeSplit {
			want = Denied
		}
		for _, c := range []struct {
			what string
			want ErrorKind
			req  []byte
		}{
			{"create a file at the root", want, fsReq("write", filepath.Join(ws, "new.txt"), "")},
			{"overwrite a file at the root", 0, fsReq("write", existing, "")},
			{"create a file in a new subdirectory", want, fsReq("mkdir-write", filepath.Join(ws, "newdir", "sub", "f.txt"), "")},
			{"delete a file at the root", want, fsReq("unlink", existing, "")},
			{"write .git/config", Denied, fsReq("write", config, "")},
			{"remove .git", Denied, fsReq("unlink", filepath.Join(ws, ".git"), "")},
		} {
			_, e := call(t, fmt.Sprintf("git workspace: %s (%s)", c.what, m), full, c.want, "test.fs", p, c.req)
			if m == ModeSplit && c.want == Denied && e != nil && !strings.Contains(e.What, "protected name") {
				t.Errorf("%s (%s): message %q does not say a protected name is why", c.what, m, e.What)
			}
		}
		if b, _ := os.ReadFile(config); string(b) != "x" {
			t.Errorf(".git/config holds %q", b)
		}
	}
}

// TestProtectedManyEntries: 100,000 entries in the workspace before its .git. The namespace
// mode protects .git and writes the rest; the split mode refuses the call (fail closed).
func TestProtectedManyEntries(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	ws, mk := protectFixture(t)
	manyFiles(t, filepath.Join(ws, "aaa"), 100000)
	config := mk(false, "zzz", ".git", "config")
	for _, m := range modes(t) {
		p := inMode(Profile{WritePaths: []string{ws}}, m)
		if m == ModeSplit {
			call(t, "write .git/config behind 100,000 entries (split)", full, Unavailable, "test.fs", p, fsReq("write", config, ""))
			continue
		}
		call(t, "write .git/config behind 100,000 entries (namespace)", full, Denied, "test.fs", p, fsReq("write", config, ""))
		call(t, "write a file beside 100,000 entries (namespace)", full, 0, "test.fs", p, fsReq("write", filepath.Join(ws, "new.txt"), ""))
	}
	if b, _ := os.ReadFile(config); string(b) != "x" {
		t.Errorf(".git/config holds %q", b)
	}
}

// TestPoolGitInit: a pooled worker started before `git init` in its write grant. The control
// writes .git/config unconfined; the next pooled call, reused worker or pre-started one, is
// refused, as a cold call is.
func TestPoolGitInit(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		record("git init between two pooled calls", "denied", "not applicable: no git here", true)
		t.Skip("no git")
	}
	for _, reuse := range []bool{true, false} {
		ws, _ := protectFixture(t)
		pool := NewPool(1)
		t.Cleanup(pool.Close)
		p := Profile{WritePaths: []string{ws}, Reuse: reuse}
		what := fmt.Sprintf("(pool, reuse %t)", reuse)
		resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.fs", p, fsReq("write", filepath.Join(ws, "a.txt"), ""))
		expect(t, "a pooled call before git init "+what, 0, resp, err)
		// Wait for the pool to hold a ready worker started before git init.
		set, _ := pool.set("test.fs", p)
		for deadline := time.Now().Add(30 * time.Second); set.ready() == 0 && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if out, err := exec.Command(git, "init", "-q", ws).CombinedOutput(); err != nil {
			t.Fatalf("git init: %v %s", err, out)
		}
		config := filepath.Join(ws, ".git", "config")
		if os.Geteuid() == 0 {
			filepath.Walk(filepath.Join(ws, ".git"), func(p string, _ os.FileInfo, _ error) error {
				return os.Chown(p, UnprivilegedID, UnprivilegedID) // only the confinement stops a write
			})
		}
		before, _ := os.ReadFile(config)
		err = runFSOp(fsOp{Op: "append", A: config})
		record("append to .git/config after git init "+what+" [unconfined control]", "ok", outcome(nil, err), err == nil)
		os.WriteFile(config, before, 0o644)
		resp, err = pool.Run(ctxTimeout(t, 30*time.Second), "test.fs", p, fsReq("append", config, ""))
		expect(t, "append to .git/config after git init "+what, Denied, resp, err)
		if b, _ := os.ReadFile(config); !bytes.Equal(b, before) {
			t.Errorf("%s: .git/config was changed", what)
		}
	}
}

// TestMissingProtectedNames: a call creates a .git (with a config), an .envrc and a
// .vscode/settings.json where there was none, in a directory it may write as a whole, and a .git
// in directories the call itself made. The control creates them unconfined; confined, in every
// mode, cold and pooled, the call is refused: in the supervised mode as the name is made (see
// TestProtectedNameCreation for every way of making one), in the others after the call, what it
// created moved aside. No protected name is left behind.
func TestMissingProtectedNames(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	for _, m := range modes(t) {
		for _, pooled := range []bool{false, true} {
			ws, mk := protectFixture(t)
			sub := mk(true, "sub")
			what := fmt.Sprintf("(%s, pooled %t)", m, pooled)
			pool := NewPool(1)
			t.Cleanup(pool.Close)
			p := inMode(Profile{WritePaths: []string{ws}, Reuse: pooled}, m)
			for _, rel := range []string{".git/config", ".envrc", ".vscode/settings.json", "made/by/the/call/.git/config"} {
				target := filepath.Join(sub, rel)
				attack := fmt.Sprintf("create a missing %s in a writable dir %s", rel, what)
				if !pooled && m == modes(t)[0] {
					control := filepath.Join(t.TempDir(), rel)
					err := runFSOp(fsOp{Op: "mkdir-write", A: control})
					record(fmt.Sprintf("create a missing %s [unconfined control]", rel), "ok", outcome(nil, err), err == nil)
				}
				var resp []byte
				var err error
				if pooled {
					resp, err = pool.Run(ctxTimeout(t, 30*time.Second), "test.fs", p, fsReq("mkdir-write", target, ""))
				} else {
					resp, err = Run(ctxTimeout(t, 30*time.Second), "test.fs", p, fsReq("mkdir-write", target, ""))
				}
				e := expect(t, attack, Denied, resp, err)
				switch {
				case e == nil:
				case m == ModeSupervised && (!strings.Contains(e.What, "is a protected name") || strings.Contains(e.What, "moved aside")):
					t.Errorf("%s: message %q does not say it was refused as a protected name", attack, e.What)
				case m != ModeSupervised && !strings.Contains(e.What, "moved aside"):
					t.Errorf("%s: message %q does not say what became of it", attack, e.What)
				}
				// The protected entry itself (the directories the call made above it stay).
				parts := strings.Split(rel, "/")
				i := slices.IndexFunc(parts, func(n string) bool { return slices.Contains(ProtectedNames, n) })
				top := filepath.Join(append([]string{sub}, parts[:i+1]...)...)
				if _, err := os.Lstat(top); err == nil {
					t.Errorf("%s: %s is left behind", attack, top)
				}
			}
			// And an ordinary call in the same workspace goes on working.
			var resp []byte
			var err error
			if pooled {
				resp, err = pool.Run(ctxTimeout(t, 30*time.Second), "test.fs", p, fsReq("write", filepath.Join(sub, "ok.txt"), ""))
			} else {
				resp, err = Run(ctxTimeout(t, 30*time.Second), "test.fs", p, fsReq("write", filepath.Join(sub, "ok.txt"), ""))
			}
			expect(t, "an ordinary write after them "+what, 0, resp, err)
		}
	}
}
