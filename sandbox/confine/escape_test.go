//go:build linux

package confine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// layer says which confinement a case runs under.
type layer int

const (
	full         layer = iota // everything: Landlock, seccomp, user, rlimits
	landlockOnly              // without the seccomp filter: what Landlock alone stops
)

func (l layer) String() string {
	if l == landlockOnly {
		return "landlock only"
	}
	return "full"
}

// call runs handler under p in the given layer and records the outcome against want.
func call(t *testing.T, attack string, l layer, want ErrorKind, handler string, p Profile, req []byte) ([]byte, *Error) {
	t.Helper()
	if l == landlockOnly {
		p.Env = append(p.Env, envTestLayers)
	}
	// A hang guard, not a timing check: a loaded machine may take long to
	// give a child the CPU second a limit test spends.
	resp, err := Run(ctxTimeout(t, 3*time.Minute), handler, p, req)
	return resp, expect(t, fmt.Sprintf("%s [%s]", attack, l), want, resp, err)
}

func TestEcho(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	req := []byte("hello from the parent")
	resp, _ := call(t, "echo handler", full, 0, "test.echo", Profile{}, req)
	if !bytes.Equal(resp, req) {
		t.Fatalf("echo = %q, want %q", resp, req)
	}
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB, over a pipe's buffer
	resp, err := Run(ctxTimeout(t, 30*time.Second), "test.echo", Profile{}, big)
	if err != nil || !bytes.Equal(resp, big) {
		t.Fatalf("1 MiB echo: %d bytes, %v", len(resp), err)
	}
}

func TestWhoAmI(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	resp, _ := call(t, "identity after confinement", full, 0, "test.whoami", Profile{}, nil)
	s := string(resp)
	if os.Geteuid() == 0 && !strings.Contains(s, "uid=65534 gid=65534 groups=[]") {
		t.Errorf("child identity: %s, want uid and gid 65534 and no groups", s)
	}
	if !strings.Contains(s, "nnp=1") {
		t.Errorf("child identity: %s, want no_new_privs", s)
	}
	if installSeccomp != nil && !strings.Contains(s, "seccomp=2") {
		t.Errorf("child identity: %s, want seccomp filter mode", s)
	}
	if !strings.Contains(s, "cwd=/") || !strings.Contains(s, "confine-") {
		t.Errorf("child identity: %s, want the private temp dir as cwd and TMPDIR", s)
	}
	t.Log(s)
}

func TestHandlerErrors(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	_, e := call(t, "handler returns an error", full, Failed, "test.fail", Profile{}, []byte("boom"))
	if e != nil && e.What != "boom" {
		t.Errorf("What = %q, want boom", e.What)
	}
	call(t, "handler panics", full, Crashed, "test.panic", Profile{}, []byte("kaboom"))
	_, err := Run(context.Background(), "test.no-such-handler", Profile{}, nil)
	var ee *Error
	if !errors.As(err, &ee) || ee.Kind != Failed {
		t.Errorf("unknown handler: %v, want Failed", err)
	}
}

// TestForgedErrorKinds: a handler writes a response frame of its own after a side effect. The
// control shows the channel is real: a kind a child may report arrives, marked as the child's.
// The kinds only the parent decides (unavailable: "nothing ran"; timeout; canceled) and unknown
// kinds are a protocol violation.
func TestForgedErrorKinds(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	_, e := call(t, "forge a failed answer (control)", full, Failed, "test.forge", Profile{}, []byte(strconv.Itoa(int(Failed))))
	if e != nil && (e.What != "forged" || !e.FromChild || !strings.Contains(e.Error(), "reported by the child")) {
		t.Errorf("forged failed answer: %+v (%v), want the child's text marked as such", e, e)
	}
	for _, k := range []ErrorKind{Unavailable, Timeout, Canceled, 99} {
		_, e := call(t, fmt.Sprintf("forge a %s answer after a side effect", k), full, Crashed, "test.forge", Profile{}, []byte(strconv.Itoa(int(k))))
		if e != nil && (e.FromChild || !strings.Contains(e.What, "protocol violation")) {
			t.Errorf("forged %s answer: %+v, want a protocol violation decided by the parent", k, e)
		}
	}
}

// TestResponseLimit: the parent holds a response in memory, so Limits.ResponseBytes bounds it:
// an honest child refuses to send a larger one, and a frame a handler writes past that check is
// refused from its header. The control shows such a frame is read whole without the limit.
func TestResponseLimit(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	const big = 8 << 20
	small := Profile{Limits: Limits{ResponseBytes: 1 << 20}}
	resp, _ := call(t, "an 8 MiB response frame, no response limit (control)", full, 0, "test.bigframe", Profile{}, []byte(strconv.Itoa(big)))
	if len(resp) != big {
		t.Errorf("control: %d bytes, want %d", len(resp), big)
	}
	_, e := call(t, "an 8 MiB response frame over a 1 MiB limit", full, Limit, "test.bigframe", small, []byte(strconv.Itoa(big)))
	if e != nil && (e.What != "response" || e.FromChild) {
		t.Errorf("oversized frame: %+v, want the parent's response limit", e)
	}
	_, e = call(t, "a 2 MiB answer over a 1 MiB limit", full, Limit, "test.echo", small, bytes.Repeat([]byte("x"), 2<<20))
	if e != nil && (e.What != "response" || !e.FromChild) {
		t.Errorf("oversized answer: %+v, want the child's response limit", e)
	}
	call(t, "a 1 MiB answer at a 1 MiB limit", full, 0, "test.echo", small, bytes.Repeat([]byte("x"), 1<<20))
}

// TestSymlinkSwap: a call allowed to write a directory shared with other tools replaces a
// subdirectory another tool may read by a symlink to /. The control reads through the link
// unconfined; the next call that names the path is refused, whoever owns the link (a root host's
// children, or the host's own user), and Narrow drops the path.
func TestSymlinkSwap(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	pub := filepath.Join(f.rw, "pub")
	if err := os.Mkdir(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		os.Chown(pub, UnprivilegedID, UnprivilegedID)
	}
	call(t, "replace a shared dir by a symlink to / (WritePaths)", full, 0, "test.fs", Profile{WritePaths: []string{f.rw}}, fsReq("swap", pub, "/"))
	target := filepath.Join(pub, "etc", "passwd")
	_, err := os.ReadFile(target)
	record("read /etc/passwd through the swapped dir (unconfined control)", "ok", outcome(nil, err), err == nil)
	if err != nil {
		t.Fatalf("control: %v", err)
	}
	_, e := call(t, "read /etc/passwd through a swapped ReadPaths dir", full, Unavailable, "test.read", Profile{ReadPaths: []string{pub}}, []byte(target))
	if e != nil && !strings.Contains(e.What, "symlink") {
		t.Errorf("refusal: %s, want it to name the symlink", e.What)
	}
	narrowed, dropped := Profile{ReadPaths: []string{pub}}.Narrow(Bounds{AllowedRoots: []string{f.base}})
	ok := len(narrowed.ReadPaths) == 0 && len(dropped) == 1 && strings.Contains(dropped[0], "symlink")
	record("Narrow a ReadPaths dir swapped for a symlink", "dropped", fmt.Sprint(narrowed.ReadPaths, dropped), ok)
	if !ok {
		t.Errorf("Narrow kept %v (dropped %v)", narrowed.ReadPaths, dropped)
	}
}

// TestProfilePathIdentity: a profile path swapped for another directory between the parent's
// check and the child's rule (a rename, no symlink) is refused; the control runs without the swap.
func TestProfilePathIdentity(t *testing.T) {
	requireConfinement(t)
	f := newFixture(t)
	other := filepath.Join(f.base, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "secret"), []byte(secretValue), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Profile{ReadPaths: []string{f.ro}}
	call(t, "read a ReadPaths file (control)", full, 0, "test.read", p, []byte(f.roFile))
	alterSetup = func(*setupMsg) {
		os.Rename(f.ro, f.ro+".old")
		os.Rename(other, f.ro)
	}
	defer func() { alterSetup = nil }()
	_, e := call(t, "a ReadPaths dir renamed over after the parent checked it", full, Unavailable, "test.read", p, []byte(filepath.Join(f.ro, "secret")))
	if e != nil && !strings.Contains(e.What, "not the object the parent checked") {
		t.Errorf("refusal: %s", e.What)
	}
}

// TestTmpDirBudget: a child fills its private temp dir, with bytes or with entries. The control
// stays within the default budget; over a small one the call ends at a limit, the kernel's (a
// root parent's tmpfs: "disk") or the parent's measure ("tmpdir").
func TestTmpDirBudget(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	small := Profile{Limits: Limits{TmpBytes: 8 << 20, TmpInodes: 1000}}
	call(t, "fill the temp dir with 24 MiB (control: default budget)", full, 0, "test.fill", Profile{}, []byte("bytes 25165824"))
	call(t, "fill the temp dir with 3000 files (control: default budget)", full, 0, "test.fill", Profile{}, []byte("inodes 3000"))
	for _, c := range []struct{ attack, req string }{
		{"fill the temp dir with 24 MiB over an 8 MiB budget", "bytes 25165824"},
		{"fill the temp dir with 3000 files over a 1000 entry budget", "inodes 3000"},
	} {
		_, e := call(t, c.attack, full, Limit, "test.fill", small, []byte(c.req))
		if e != nil && e.What != "disk" && e.What != "tmpdir" {
			t.Errorf("%s: limit %q, want disk or tmpdir", c.attack, e.What)
		}
	}
}

// TestProtectedNames: inside a write grant, version control metadata, shell start-up files and
// editor settings stay read-only (here in the split mode). The control writes .git/config
// unconfined; the last row reports the documented limit (a protected name created where none
// was).
func TestProtectedNames(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	git := filepath.Join(f.rw, ".git")
	for _, d := range []string{git, filepath.Join(f.rw, "sub")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := filepath.Join(git, "config")
	notes := filepath.Join(f.rw, "notes.txt")
	for _, p := range []string{config, notes} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		for _, p := range []string{git, config, notes, filepath.Join(f.rw, "sub")} {
			os.Chown(p, UnprivilegedID, UnprivilegedID) // only the confinement stops a write
		}
	}
	err := runFSOp(fsOp{Op: "write", A: config})
	record("write .git/config in a write grant (unconfined control)", "ok", outcome(nil, err), err == nil)
	p := inMode(Profile{WritePaths: []string{f.rw}}, ModeSplit) // the namespace mode: escape_protect_test.go
	for _, c := range []struct {
		attack string
		want   ErrorKind
		req    []byte
	}{
		{"write .git/config in a write grant", Denied, fsReq("write", config, "")},
		{"add .git/hooks/pre-commit in a write grant", Denied, fsReq("mkdir-write", filepath.Join(git, "hooks", "pre-commit"), "")},
		{"rename .git away in a write grant", Denied, fsReq("rename", git, filepath.Join(f.rw, "old-git"))},
		{"create .bashrc beside .git in a write grant", Denied, fsReq("write", filepath.Join(f.rw, ".bashrc"), "")},
		{"write an existing file beside .git", 0, fsReq("write", notes, "")},
		{"create a file in a subdir beside .git", 0, fsReq("write", filepath.Join(f.rw, "sub", "new.txt"), "")},
	} {
		call(t, c.attack, full, c.want, "test.fs", p, c.req)
	}
	if b, err := os.ReadFile(config); err != nil || string(b) != "written by a child" {
		t.Errorf(".git/config: %q %v", b, err)
	}
	other := filepath.Join(f.base, "other")
	if err := os.Mkdir(other, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(other, 0o777)
	resp, err := Run(ctxTimeout(t, 30*time.Second), "test.fs", inMode(Profile{WritePaths: []string{other}}, ModeSplit), fsReq("mkdir-write", filepath.Join(other, ".git", "config"), ""))
	record("create .git/config where no protected name was (documented limit)", "(report only)", outcome(resp, err), true)
}

func TestFileSystem(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	hostname := "/etc/hostname"
	if _, err := os.Stat(hostname); err != nil {
		hostname = "/etc/passwd"
	}
	cases := []struct {
		attack  string
		want    ErrorKind
		handler string
		req     []byte
	}{
		{"read a file in ReadPaths", 0, "test.read", []byte(f.roFile)},
		{"write a file in WritePaths", 0, "test.fs", fsReq("write", filepath.Join(f.rw, "new.txt"), "")},
		{"rename within WritePaths", 0, "test.fs", fsReq("rename", filepath.Join(f.rw, "a.txt"), filepath.Join(f.rw, "b.txt"))},
		{"read /etc/shadow", Denied, "test.read", []byte("/etc/shadow")},
		{"read world-readable " + hostname, Denied, "test.read", []byte(hostname)},
		{"read a world-readable file outside", Denied, "test.read", []byte(f.outFile)},
		{"list / ", Denied, "test.fs", fsReq("readdir", "/", "")},
		{"write a file in ReadPaths", Denied, "test.fs", fsReq("write", filepath.Join(f.ro, "x.txt"), "")},
		{"write a new file outside", Denied, "test.fs", fsReq("write", filepath.Join(f.out, "new.txt"), "")},
		{"append to a 0666 file outside", Denied, "test.fs", fsReq("append", f.outFile, "")},
		{"rename a file outside", Denied, "test.fs", fsReq("rename", f.outFile, filepath.Join(f.out, "renamed.txt"))},
		{"rename a file out of WritePaths", Denied, "test.fs", fsReq("rename", filepath.Join(f.rw, "keep.txt"), filepath.Join(f.out, "moved.txt"))},
		{"truncate a 0666 file outside", Denied, "test.fs", fsReq("truncate", f.outFile, "")},
		{"unlink a file outside", Denied, "test.fs", fsReq("unlink", f.outFile, "")},
		{"mkdir outside", Denied, "test.fs", fsReq("mkdir", filepath.Join(f.out, "dir"), "")},
		{"symlink out of WritePaths, read", Denied, "test.fs", fsReq("symlink-read", f.outFile, filepath.Join(f.rw, "link-r"))},
		{"symlink out of WritePaths, write", Denied, "test.fs", fsReq("symlink-write", f.outFile, filepath.Join(f.rw, "link-w"))},
		{"hardlink a file outside into WritePaths", Denied, "test.fs", fsReq("link", f.outFile, filepath.Join(f.rw, "hard"))},
		{"mknod (fifo) outside", Denied, "test.fs", fsReq("mknod", filepath.Join(f.out, "fifo"), "")},
	}
	for _, l := range []layer{full, landlockOnly} {
		for _, c := range cases {
			// A fresh rw content for each run: the rename case needs its source.
			for _, name := range []string{"link-r", "link-w", "hard"} {
				os.Remove(filepath.Join(f.rw, name))
			}
			for _, name := range []string{"a.txt", "keep.txt"} {
				p := filepath.Join(f.rw, name)
				os.WriteFile(p, []byte("x"), 0o644)
				if os.Geteuid() == 0 {
					os.Chown(p, UnprivilegedID, UnprivilegedID)
				}
			}
			call(t, c.attack, l, c.want, c.handler, f.profile(), c.req)
		}
	}
	// The outside file is untouched.
	if b, err := os.ReadFile(f.outFile); err != nil || string(b) != "outside data" {
		t.Errorf("outside file: %q %v", b, err)
	}
	if entries, _ := os.ReadDir(f.out); len(entries) != 1 {
		t.Errorf("outside dir holds %d entries, want 1", len(entries))
	}
	// Permission changes outside: refused by seccomp without WritePaths, by the kernel (the
	// file is not the child's) with them.
	call(t, "chmod a file outside (no WritePaths)", full, Denied, "test.fs", Profile{}, fsReq("chmod", f.outFile, ""))
	call(t, "chown a file outside (no WritePaths)", full, Denied, "test.fs", Profile{}, fsReq("chown", f.outFile, ""))
	if os.Geteuid() == 0 {
		call(t, "chmod a root file outside (WritePaths)", full, Denied, "test.fs", f.profile(), fsReq("chmod", f.outFile, ""))
	}
	if st, err := os.Stat(f.outFile); err != nil || st.Mode().Perm() != 0o666 {
		t.Errorf("outside file mode changed: %v %v", st.Mode(), err)
	}
}

func TestProcEnviron(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	v := victim(t)
	path := fmt.Sprintf("/proc/%d/environ", v.Process.Pid)
	for _, l := range []layer{full, landlockOnly} {
		call(t, "read another process's /proc/PID/environ", l, Denied, "test.read", Profile{}, []byte(path))
	}
	call(t, "read /proc/self/environ", full, Denied, "test.read", Profile{}, []byte("/proc/self/environ"))
}

func TestEnvironment(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	resp, _ := call(t, "parent environment not visible", full, 0, "test.env", Profile{}, nil)
	env := string(resp)
	if strings.Contains(env, secretValue) || strings.Contains(env, envTestSecret) {
		t.Errorf("the child sees the parent's secret: %s", env)
	}
	for _, kv := range strings.Split(env, "\n") {
		if !strings.HasPrefix(kv, "TMPDIR=") && kv != "MALLOC_ARENA_MAX=2" && !(raceEnabled && kv == "GORACE=atexit_sleep_ms=0") {
			t.Errorf("unexpected variable in the child: %q", kv)
		}
	}
	resp, _ = call(t, "Env passes a named variable", full, 0, "test.env", Profile{Env: []string{envTestSecret}}, nil)
	if !strings.Contains(string(resp), secretValue) {
		t.Errorf("Env names %s but the child lacks it: %s", envTestSecret, resp)
	}
}

// TestLeakedDescriptor: descriptors the parent leaks without close-on-exec are closed in the
// child before anything runs: one among the first numbers, one far above them (closed wholesale),
// and a run that fills every number the child looks at one by one (it then lists /proc).
func TestLeakedDescriptor(t *testing.T) {
	requireConfinement(t)
	path := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(path, []byte(secretValue), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.Open(path, syscall.O_RDONLY, 0) // no O_CLOEXEC: inherited by every child
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	leak := func(t *testing.T, name string, fd int) {
		t.Helper()
		resp, err := Run(ctxTimeout(t, 30*time.Second), "test.fds", Profile{}, []byte(fmt.Sprintf("%d %d", fd, st.Ino)))
		got := outcome(resp, err)
		ok := err == nil && !strings.Contains(got, secretValue) && strings.Contains(got, "fds on the leaked file: []")
		record(name, "closed", got, ok)
		if !ok {
			t.Errorf("leaked descriptor %d: %s", fd, got)
		}
	}
	leak(t, "read a leaked inherited fd [full]", fd)

	// F_DUPFD takes the lowest free number from its argument up, never one in use.
	high, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD, 4000)
	if err != nil {
		t.Fatal(err)
	}
	leak(t, "read a leaked inherited fd far above the others [full]", high)
	syscall.Close(high)

	// Every free number from the child's first one to past its window, leaked.
	var run []int
	defer func() {
		for _, d := range run {
			syscall.Close(d)
		}
	}()
	for len(run) == 0 || run[len(run)-1] < responseFD+fdWindow+8 {
		d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD, responseFD+1)
		if err != nil {
			t.Fatal(err)
		}
		run = append(run, d)
	}
	leak(t, "read leaked inherited fds that fill the first numbers [full]", run[len(run)-1])
}

// TestInitOpenedDescriptor: a file that package init code opened in the child, before Landlock,
// is closed before the handler runs (Landlock does not govern what is already open).
func TestInitOpenedDescriptor(t *testing.T) {
	requireConfinement(t)
	f := newFixture(t)
	path := filepath.Join(f.ro, "secret")
	if err := os.WriteFile(path, []byte(secretValue), 0o644); err != nil {
		t.Fatal(err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envTestInitFile, path)
	if resp, err := Run(ctxTimeout(t, 30*time.Second), "test.initopened", Profile{Env: []string{envTestInitFile}}, nil); err != nil || string(resp) != "opened" {
		t.Fatalf("init in the child did not open the file: %q %v", resp, err)
	}
	resp, err := Run(ctxTimeout(t, 30*time.Second), "test.fds", Profile{Env: []string{envTestInitFile}}, []byte(fmt.Sprintf("%d %d", 999, st.Ino)))
	got := outcome(resp, err)
	ok := err == nil && !strings.Contains(got, secretValue) && strings.Contains(got, "fds on the leaked file: []")
	record("read a file init opened before confinement [full]", "closed", got, ok)
	if !ok {
		t.Errorf("a file opened by init: %s", got)
	}
}

func TestNetwork(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	serve := func() (net.Listener, uint16) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Write([]byte("hello over tcp"))
				c.Close()
			}
		}()
		return l, uint16(l.Addr().(*net.TCPAddr).Port)
	}
	allowed, allowedPort := serve()
	other, _ := serve()
	p := Profile{ConnectTCP: []uint16{allowedPort}}
	for _, l := range []layer{full, landlockOnly} {
		resp, _ := call(t, "TCP connect to an allowed loopback port", l, 0, "test.dial", p, []byte(allowed.Addr().String()))
		if string(resp) != "hello over tcp" {
			t.Errorf("allowed connect: %q", resp)
		}
		call(t, "TCP connect to a port not allowed", l, Denied, "test.dial", p, []byte(other.Addr().String()))
		call(t, "TCP bind (ephemeral port)", l, Denied, "test.listen", p, []byte("127.0.0.1:0"))
		call(t, "TCP bind (the allowed connect port)", l, Denied, "test.listen", p, []byte("127.0.0.1:"+strconv.Itoa(int(allowedPort)+1)))
	}
	call(t, "TCP connect, no network in the profile", full, Denied, "test.dial", Profile{}, []byte(allowed.Addr().String()))
	call(t, "net.Listen (MPTCP first)", full, Denied, "test.listen-default", p, []byte("127.0.0.1:0"))
	// Landlock's TCP rules do not cover MPTCP sockets: the seccomp filter refuses them. This row
	// only reports what Landlock alone does on this kernel.
	resp, err := Run(ctxTimeout(t, 30*time.Second), "test.listen-default", Profile{Env: []string{envTestLayers}}, []byte("127.0.0.1:0"))
	record("net.Listen (MPTCP first) [landlock only]", "(report only)", outcome(resp, err), true)
	resp, _ = call(t, "TCP bind on a BindTCP port", full, 0, "test.listen", Profile{BindTCP: []uint16{0}}, []byte("127.0.0.1:0"))
	if !strings.HasPrefix(string(resp), "127.0.0.1:") {
		t.Errorf("bind: %q", resp)
	}
}

func TestAbstractUnixSocket(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	name := fmt.Sprintf("@toolexplorer-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	l, err := net.Listen("unix", name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, lay := range []layer{full, landlockOnly} {
		call(t, "connect to a host's abstract unix socket", lay, Denied, "test.unix", Profile{}, []byte(name))
	}
}

func TestSignal(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	v := victim(t)
	for _, l := range []layer{full, landlockOnly} {
		call(t, "SIGKILL a host process (same uid)", l, Denied, "test.kill", Profile{}, []byte(strconv.Itoa(v.Process.Pid)))
	}
	if err := v.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("the victim died: %v", err)
	}
	call(t, "setuid(0)", full, Denied, "test.setuid", Profile{}, nil)
	// In a user namespace of its own (a profile with write paths) uid 0 does not exist for the
	// child: setuid(0) fails there with EINVAL, before any privilege check.
	f := newFixture(t)
	if m, _ := ProtectionMode(); m != ModeSplit {
		_, e := call(t, "setuid(0) in the namespace mode", full, Failed, "test.setuid", Profile{WritePaths: []string{f.rw}}, nil)
		if e != nil && !strings.Contains(e.What, "invalid argument") {
			t.Errorf("setuid(0): %q, want EINVAL", e.What)
		}
	}
}

func TestLimits(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	_, e := call(t, "write a file over the size limit", full, Limit, "test.bigfile", Profile{Limits: Limits{FileSizeBytes: 1 << 20}}, []byte(strconv.Itoa(2<<20)))
	if e != nil && e.What != "filesize" {
		t.Errorf("limit %q, want filesize", e.What)
	}
	call(t, "write a file under the size limit", full, 0, "test.bigfile", Profile{Limits: Limits{FileSizeBytes: 1 << 20}}, []byte(strconv.Itoa(1<<19)))
	_, e = call(t, "open too many files", full, Limit, "test.openmany", Profile{Limits: Limits{OpenFiles: 32}}, nil)
	if e != nil && e.What != "files" {
		t.Errorf("limit %q, want files", e.What)
	}
}

func TestCPULimit(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	start := time.Now()
	_, e := call(t, "busy loop hitting the CPU limit", full, Limit, "test.spin", Profile{Limits: Limits{CPUSeconds: 1}}, nil)
	if e != nil && e.What != "cpu" {
		t.Errorf("limit %q, want cpu", e.What)
	}
	t.Logf("stopped after %v", time.Since(start))
}

func TestMemoryLimit(t *testing.T) {
	requireConfinement(t)
	if raceEnabled {
		record("memory bomb [full]", "limit", "skipped: race detector build (see TestNoCgoSuite)", true)
		t.Skip("RLIMIT_AS is not applied in race detector builds; TestNoCgoSuite runs this case without it")
	}
	t.Parallel()
	_, e := call(t, "memory bomb", full, Limit, "test.membomb", Profile{Limits: Limits{MemoryBytes: 256 << 20}}, nil)
	if e != nil && e.What != "memory" {
		t.Errorf("limit %q, want memory", e.What)
	}
}

func TestTimeoutKillsGroup(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	p := Profile{Exec: []string{"/bin/sh"}, WritePaths: []string{f.rw}}
	// The deadline must come after the child has started its family (and
	// written their pids): a loaded machine may take longer than the first
	// deadline to start it, and the call is then made again with a longer one.
	var (
		resp    []byte
		err     error
		elapsed time.Duration
		limit   time.Duration
	)
	for _, limit = range []time.Duration{3 * time.Second, 30 * time.Second, 2 * time.Minute} {
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		start := time.Now()
		resp, err = Run(ctx, "test.spin-family", p, []byte(f.rw))
		elapsed = time.Since(start)
		cancel()
		if _, statErr := os.Stat(filepath.Join(f.rw, "grandchild.pid")); statErr == nil {
			if _, statErr := os.Stat(filepath.Join(f.rw, "child.pid")); statErr == nil {
				break
			}
		}
		t.Logf("the child had not started its family within %v: again with a longer deadline", limit)
	}
	e := expect(t, "busy loop past the deadline (+ double-forked grandchild) [full]", Timeout, resp, err)
	// The busy loop never ends: Run returning at all shows it did not wait for it. 30 s past
	// the deadline is a hang guard, not a timing check.
	if e != nil && e.Kind == Timeout && elapsed > limit+30*time.Second {
		t.Errorf("Run returned %v after the deadline", elapsed-limit)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(err, context.DeadlineExceeded) = false for %v", err)
	}
	readPid := func(name string) int {
		b, err := os.ReadFile(filepath.Join(f.rw, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		return pid
	}
	child, grandchild := readPid("child.pid"), readPid("grandchild.pid")
	ok, how := groupGone(child, 30*time.Second)
	record("after the deadline: the child's process group", "dead", how, ok)
	if !ok {
		t.Errorf("process group %d: %s", child, how)
	}
	gone := !processAlive(grandchild)
	record("after the deadline: the double-forked grandchild", "dead", fmt.Sprintf("pid %d alive=%t", grandchild, !gone), gone)
	if !gone {
		t.Errorf("grandchild %d still alive", grandchild)
	}
}

// processAlive reports whether pid runs (a zombie does not).
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func TestCancel(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	resp, err := Run(ctx, "test.spin", Profile{}, nil)
	expect(t, "busy loop, context canceled [full]", Canceled, resp, err)
}

func TestEarlyThread(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	p := f.profile()
	p.Env = []string{envTestThread}
	for _, l := range []layer{full, landlockOnly} {
		_, e := call(t, "a thread started before confinement opens a denied path", l, Denied, "test.early-thread", p, []byte(f.outFile))
		if e != nil {
			t.Log(e.What)
		}
		resp, _ := call(t, "a thread started before confinement opens an allowed path", l, 0, "test.early-thread", p, []byte(f.roFile))
		t.Log(string(resp))
	}
}

func TestRuntimeAfterConfinement(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	call(t, "Go runtime after confinement (threads, GC, JSON)", full, 0, "test.runtime", Profile{}, nil)
}

// TestPollerStartedBeforeMain: when init code started the Go poller before Main, the runtime's
// epoll and eventfd survive the closing of descriptors, and the poller works once confined.
func TestPollerStartedBeforeMain(t *testing.T) {
	requireConfinement(t)
	t.Setenv(envTestPoll, "1")
	resp, err := Run(ctxTimeout(t, 30*time.Second), "test.poll", Profile{Env: []string{envTestPoll}}, nil)
	if err != nil || string(resp) != "ok (pipe from init: true)" {
		var e *Error
		if errors.As(err, &e) {
			t.Logf("child output: %s", e.Stderr)
		}
		t.Fatalf("the poller in a child that started it from init: %q %v", resp, err)
	}
}

func TestUnavailableFailsClosed(t *testing.T) {
	// The profile passes envFakeABI on: the child believes the kernel has ABI 3 and must refuse.
	t.Setenv(envFakeABI, "3")
	_, e := call(t, "landlock ABI below the minimum", full, Unavailable, "test.echo", Profile{Env: []string{envFakeABI}}, []byte("must not run"))
	if e != nil && !strings.Contains(e.What, "ABI 3") {
		t.Errorf("reason %q does not name the ABI", e.What)
	}
	_, err := Run(context.Background(), "test.echo", Profile{ReadPaths: []string{"relative/path"}}, nil)
	var ee *Error
	if !errors.As(err, &ee) || ee.Kind != Unavailable {
		t.Errorf("relative path: %v, want Unavailable", err)
	}
}

func TestParentDeath(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	parent := exec.Command("/proc/self/exe", "-test.run=^$")
	parent.Env = append(os.Environ(), envTestParent+"="+f.rw)
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(f.rw, "child.pid")
	var child int
	for deadline := time.Now().Add(20 * time.Second); child == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			parent.Process.Kill()
			parent.Wait()
			t.Fatal("the child did not start")
		}
		b, _ := os.ReadFile(pidFile)
		child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(30 * time.Second) // a hang guard: Pdeathsig acts at once
	for processAlive(child) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	gone := !processAlive(child)
	// The dead parent's session dir is left behind; the sweep of a later parent removes it.
	if tmp, err := os.ReadFile(filepath.Join(f.rw, "child.tmp")); err != nil {
		t.Errorf("the child did not record its temp dir: %v", err)
	} else if sess := filepath.Dir(string(tmp)); !strings.HasPrefix(filepath.Base(sess), sessionPrefix) {
		t.Errorf("the child's temp dir %s is not in a session dir", tmp)
	} else if gone {
		sweepSessions(filepath.Dir(sess), session.path)
		if _, err := os.Lstat(sess); !os.IsNotExist(err) {
			os.RemoveAll(sess)
			t.Errorf("the sweep left the dead parent's session dir %s (%v)", sess, err)
		}
	}
	record("the parent dies: the child (Pdeathsig)", "dead", fmt.Sprintf("child %d alive=%t", child, !gone), gone)
	if !gone {
		syscall.Kill(-child, syscall.SIGKILL)
		t.Errorf("child %d survived its parent", child)
	}
}

// TestOpenDescriptors: the descriptors closeInherited finds, on numbers no other code uses (the
// lowest free numbers are taken first): within the window, one poll finds them and everything
// above is closed wholesale; a full window is listed from /proc instead.
func TestOpenDescriptors(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	// High enough that nothing else in the process gets these numbers, below the limit.
	base := int(min(lim.Cur, 8000+fdWindow+2)) - fdWindow - 2
	if base < 1024 {
		t.Skipf("RLIMIT_NOFILE %d leaves no room above 1024 for this test", lim.Cur)
	}
	var mine []int
	defer func() {
		for _, d := range mine {
			unix.Close(d)
		}
	}()
	dup := func(at int) int {
		t.Helper()
		d, err := unix.FcntlInt(0, unix.F_DUPFD_CLOEXEC, at)
		if err != nil {
			t.Fatal(err)
		}
		mine = append(mine, d)
		return d
	}
	a, b := dup(base+3), dup(base+100)
	fds, above := openDescriptors(base)
	if !slices.Equal(fds, []int{a, b}) || above != base+fdWindow {
		t.Errorf("two in the window: %v, above %d; want [%d %d], above %d", fds, above, a, b, base+fdWindow)
	}
	for len(mine) < fdWindow+1 {
		dup(base)
	}
	fds, above = openDescriptors(base)
	if len(fds) != fdWindow+1 || above != -1 {
		t.Errorf("a full window: %d descriptors, above %d; want %d from /proc, above -1", len(fds), above, fdWindow+1)
	}
}

// TestChildParallelism: a child starts with one P, to have fewer threads to confine; once
// confined, its handler runs with the parent's GOMAXPROCS, or the one the profile passes on: at
// once in a worker started ahead of its request, from its first wait in a cold call.
func TestChildParallelism(t *testing.T) {
	requireConfinement(t)
	want := fmt.Sprintf("%d %q", runtime.GOMAXPROCS(0), "")
	pool := NewPool(1)
	defer pool.Close()
	waitIdle(t, pool, "test.procs", Profile{}, 1)
	if resp, err := pool.Run(ctxTimeout(t, 30*time.Second), "test.procs", Profile{}, []byte("now")); err != nil || string(resp) != want {
		t.Errorf("GOMAXPROCS in a pooled worker: %q %v, want %q", resp, err, want)
	}
	if resp, err := Run(ctxTimeout(t, 30*time.Second), "test.procs", Profile{}, nil); err != nil || string(resp) != want {
		t.Errorf("GOMAXPROCS in the child: %q %v, want %q", resp, err, want)
	}
	t.Setenv("GOMAXPROCS", "3")
	want = fmt.Sprintf("%d %q", 3, "3")
	if resp, err := Run(ctxTimeout(t, 30*time.Second), "test.procs", Profile{Env: []string{"GOMAXPROCS"}}, nil); err != nil || string(resp) != want {
		t.Errorf("GOMAXPROCS in the child, passed on: %q %v, want %q", resp, err, want)
	}
}
