//go:build linux

package confine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// createReq asks test.create to make the protected name A one way (Op), B being what it
// prepares or goes through, then to do the ordinary work of a writing tool in the workspace W.
type createReq struct {
	Op string `json:"op"`
	A  string `json:"a"`
	B  string `json:"b,omitempty"`
	W  string `json:"w,omitempty"`
	N  int    `json:"n,omitempty"`
}

func init() {
	Handle("test.create", func(ctx context.Context, req []byte) ([]byte, error) {
		var r createReq
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, err
		}
		out, err := runCreate(r)
		if r.W != "" {
			if oerr := ordinaryWork(r.W); oerr != nil {
				return nil, fmt.Errorf("ordinary work in the workspace failed: %s", oerr.Error())
			}
		}
		return out, err
	})
}

// runCreate makes the name r.A the way r.Op says; the directories above it are made first
// (by the same call).
func runCreate(r createReq) ([]byte, error) {
	dir := filepath.Dir(r.A)
	if r.Op != "mkdir" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	payload := []byte("[core]\n\tfsmonitor = touch /tmp/owned\n")
	switch r.Op {
	case "open": // open(2) with O_CREAT, as os.WriteFile
		return nil, os.WriteFile(r.A, payload, 0o644)
	case "creat":
		fd, err := unix.Creat(r.A, 0o644)
		if err != nil {
			return nil, &os.PathError{Op: "creat", Path: r.A, Err: err}
		}
		unix.Close(fd)
		return nil, nil
	case "mkdir":
		return nil, os.MkdirAll(r.A, 0o755)
	case "symlink": // a link named A
		return nil, os.Symlink("/tmp/owned", r.A)
	case "link": // a hard link named A to a prepared file B
		if err := os.WriteFile(r.B, payload, 0o644); err != nil {
			return nil, err
		}
		return nil, os.Link(r.B, r.A)
	case "rename-file": // a prepared file B renamed onto A
		if err := os.WriteFile(r.B, payload, 0o644); err != nil {
			return nil, err
		}
		return nil, os.Rename(r.B, r.A)
	case "rename-dir": // a prepared directory B (with a config) renamed onto A
		if err := os.MkdirAll(r.B, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(r.B, "config"), payload, 0o644); err != nil {
			return nil, err
		}
		return nil, os.Rename(r.B, r.A)
	case "tmpfile": // an O_TMPFILE file, written, then linked as A
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, &os.PathError{Op: "open O_TMPFILE", Path: dir, Err: err}
		}
		defer unix.Close(fd)
		unix.Write(fd, payload)
		if err := unix.Linkat(fd, "", unix.AT_FDCWD, r.A, unix.AT_EMPTY_PATH); err != nil {
			return nil, &os.LinkError{Op: "linkat", Old: "O_TMPFILE", New: r.A, Err: err}
		}
		return nil, nil
	case "dangling": // a symlink B whose target is A's name, then opened with O_CREAT
		if err := os.Symlink(filepath.Base(r.A), r.B); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(r.B, os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: r.A, Err: errors.Unwrap(err)}
		}
		return nil, f.Close()
	case "race":
		return raceCreate(r.A, r.N)
	case "many": // N files made (open with O_CREAT) and removed in A's directory: the time of one
		start := time.Now()
		for i := range r.N {
			f := filepath.Join(dir, "many-"+strconv.Itoa(i))
			if err := os.WriteFile(f, nil, 0o644); err != nil {
				return nil, err
			}
			if err := os.Remove(f); err != nil {
				return nil, err
			}
		}
		return []byte(strconv.FormatInt(time.Since(start).Nanoseconds()/int64(max(r.N, 1)), 10)), nil
	case "chdir-write": // into A's directory, then A by a relative path
		if err := os.Chdir(dir); err != nil {
			return nil, err
		}
		err := os.WriteFile(filepath.Base(r.A), payload, 0o644)
		var pe *os.PathError
		if errors.As(err, &pe) {
			pe.Path = r.A
		}
		return nil, err
	}
	return nil, fmt.Errorf("unknown op %q", r.Op)
}

// raceCreate opens a path with O_CREAT n times while another thread flips one byte of the very
// buffer passed to the kernel between A's name and an ordinary one ('x' for its first byte): a
// check of the path followed by the kernel's own read of it loses that race. It fails as soon
// as A exists.
func raceCreate(a string, n int) ([]byte, error) {
	dir, name := filepath.Dir(a), filepath.Base(a)
	ordinary := "x" + name[1:]
	buf := append([]byte(filepath.Join(dir, ordinary)), 0)
	at := len(buf) - 1 - len(name) // the byte that flips
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		// Unlocked at the end, not ended with the goroutine: in the control, this process may
		// have started a confined child from that thread, whose parent-death signal the
		// thread's end would send.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer close(done)
		p := (*byte)(unsafe.Pointer(&buf[at]))
		for i := 0; !stop.Load(); i++ {
			if i%2 == 0 {
				*p = name[0]
			} else {
				*p = 'x'
			}
		}
	}()
	defer func() { stop.Store(true); <-done }()
	opened := 0
	cwd := unix.AT_FDCWD
	for i := 0; i < n; i++ {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(cwd), uintptr(unsafe.Pointer(&buf[0])), unix.O_WRONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644, 0, 0)
		if errno == 0 {
			opened++
			unix.Close(int(fd))
		}
		if _, err := os.Lstat(a); err == nil {
			return nil, fmt.Errorf("the race won after %d tries: %s exists", i+1, a)
		}
		os.Remove(filepath.Join(dir, ordinary))
	}
	runtime.KeepAlive(buf)
	return []byte(fmt.Sprintf("%d tries, %d opened the ordinary name, none made %s", n, opened, name)), nil
}

// ordinaryWork is what a writing tool does in a git workspace: creates, overwrites, renames and
// deletes a file at the root and in new subdirectories.
func ordinaryWork(ws string) error {
	for _, dir := range []string{ws, filepath.Join(ws, "new", "sub")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		f := filepath.Join(dir, "file.txt")
		for _, text := range []string{"created", "overwritten"} {
			if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
				return err
			}
		}
		if err := os.Rename(f, f+".renamed"); err != nil {
			return err
		}
		if b, err := os.ReadFile(f + ".renamed"); err != nil || string(b) != "overwritten" {
			return fmt.Errorf("read back %q: %v", b, err)
		}
		if err := os.Remove(f + ".renamed"); err != nil {
			return err
		}
	}
	return os.RemoveAll(filepath.Join(ws, "new"))
}

// createCase is one way of making one protected name: top is the protected entry it makes (the
// name looked for afterwards), rel the path made under it, or top itself.
type createCase struct {
	op, rel string
}

var createCases = []createCase{
	{"mkdir", ".git"},
	{"rename-dir", ".git"},
	{"symlink", ".git"},
	{"open", ".git/config"},
	{"open", ".envrc"},
	{"creat", ".envrc"},
	{"symlink", ".envrc"},
	{"link", ".envrc"},
	{"rename-file", ".envrc"},
	{"tmpfile", ".envrc"},
	{"dangling", ".envrc"},
	{"open", ".vscode/settings.json"},
}

// createReqFor is the request that makes c under dir; what it prepares is named after c.
func createReqFor(c createCase, dir, ws string) createReq {
	a := filepath.Join(dir, c.rel)
	return createReq{Op: c.op, A: a, B: filepath.Join(filepath.Dir(a), "prepared-"+c.op+"-"+strings.ReplaceAll(c.rel, "/", "-")), W: ws}
}

// protectedTop is the protected entry c makes under dir.
func protectedTop(c createCase, dir string) string {
	return filepath.Join(dir, strings.SplitN(c.rel, "/", 2)[0])
}

// leftBehind reports the protected entry under dir, or an entry moved aside, if any.
func leftBehind(top string) string {
	if _, err := os.Lstat(top); err == nil {
		return top
	}
	entries, _ := os.ReadDir(filepath.Dir(top))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".refused-") {
			return filepath.Join(filepath.Dir(top), e.Name())
		}
	}
	return ""
}

// TestProtectedNameCreation: in a git workspace, a call makes a missing .git, .git/config,
// .envrc or .vscode/settings.json in a writable directory at depth 1, 5 and 30 and in a
// directory the call itself makes, every way a name is made: open with O_CREAT, creat, mkdir,
// a symlink named so, a hard link, a file and a directory renamed onto it, an O_TMPFILE file
// linked as it, and a dangling symlink to it opened with O_CREAT. The control makes each one
// unconfined. In the supervised mode each is refused as it is made (sandbox_denied naming the
// protected name; nothing is ever there, nothing is moved aside), cold and pooled, and the same
// call goes on to create, overwrite, rename and delete files at the workspace's root and in
// new subdirectories.
func TestProtectedNameCreation(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("make a missing protected name (supervised)", "denied", "not applicable: "+why, true)
		t.Skip(why)
	}
	for _, c := range createCases {
		control := t.TempDir()
		req := createReqFor(c, filepath.Join(control, "made"), "")
		_, err := runCreate(req)
		top := protectedTop(c, filepath.Join(control, "made"))
		_, lerr := os.Lstat(top)
		record(fmt.Sprintf("%s %s [unconfined control]", c.op, c.rel), "ok", outcome(nil, errors.Join(err, lerr)), err == nil && lerr == nil)
		if err != nil || lerr != nil {
			t.Errorf("control %s %s: %v %v", c.op, c.rel, err, lerr)
		}
	}
	pool := NewPool(1)
	t.Cleanup(pool.Close)
	for _, pooled := range []bool{false, true} {
		// The write grant holds a git workspace, repo/, where the ordinary work is done; the
		// names are made beside it, and deeper.
		ws, mk := protectFixture(t)
		repo := filepath.Dir(filepath.Dir(mk(false, "repo", ".git", "config")))
		p := Profile{WritePaths: []string{ws}, Reuse: pooled}
		for _, depth := range []int{1, 5, 30, 0} {
			rel := []string{}
			for i := 1; i < depth; i++ {
				rel = append(rel, "d"+strconv.Itoa(i))
			}
			dir := ws
			place := fmt.Sprintf("depth %d", depth)
			if depth == 0 {
				rel = []string{"made", "by", "the", "call"} // made by the call itself
				place = "a directory the call made"
			} else if depth > 1 {
				dir = filepath.Dir(mk(false, append(rel, "keep")...))
			}
			for i, c := range createCases {
				d := dir
				if depth == 0 {
					d = filepath.Join(append([]string{ws, strconv.Itoa(i)}, rel...)...)
				}
				req, _ := json.Marshal(createReqFor(c, d, repo))
				attack := fmt.Sprintf("%s %s at %s (supervised, pooled %t)", c.op, c.rel, place, pooled)
				var resp []byte
				var err error
				if pooled {
					resp, err = pool.Run(ctxTimeout(t, 60*time.Second), "test.create", p, req)
				} else {
					resp, err = Run(ctxTimeout(t, 60*time.Second), "test.create", p, req)
				}
				e := expect(t, attack, Denied, resp, err)
				if e != nil && e.Kind == Denied && (!strings.Contains(e.What, "is a protected name") || strings.Contains(e.What, "moved aside")) {
					t.Errorf("%s: message %q does not say the name is protected, or says it was moved", attack, e.What)
				}
				if left := leftBehind(protectedTop(c, d)); left != "" {
					t.Errorf("%s: %s is there", attack, left)
				}
			}
		}
		if b, _ := os.ReadFile(filepath.Join(repo, ".git", "config")); string(b) != "x" {
			t.Errorf(".git/config holds %q", b)
		}
	}
}

// TestProtectedNameRace: a thread flips the path buffer of open(O_CREAT) between .envrc and an
// ordinary name, many thousands of times: a supervisor that checked the path and let the kernel
// read it again would lose. The control shows the flipping thread does reach the kernel
// unconfined (.envrc is made); confined, it never is.
func TestProtectedNameRace(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("flip the path of open(O_CREAT) to .envrc (supervised)", "ok, never made", "not applicable: "+why, true)
		t.Skip(why)
	}
	const tries = 20000
	control := filepath.Join(t.TempDir(), ".envrc")
	_, err := raceCreate(control, tries)
	record("flip the path of open(O_CREAT) to .envrc [unconfined control]", "made", outcome(nil, err), err != nil)
	if err == nil {
		t.Errorf("control: the flipping thread never reached the kernel in %d tries", tries)
	}
	ws, mk := protectFixture(t)
	mk(false, ".git", "config")
	req, _ := json.Marshal(createReq{Op: "race", A: filepath.Join(ws, "sub", ".envrc"), N: tries, W: ws})
	resp, err := Run(ctxTimeout(t, 5*time.Minute), "test.create", Profile{WritePaths: []string{ws}}, req)
	expect(t, fmt.Sprintf("flip the path of open(O_CREAT) to .envrc, %d tries (supervised)", tries), 0, resp, err)
	if left := leftBehind(filepath.Join(ws, "sub", ".envrc")); left != "" {
		t.Errorf("%s is there", left)
	}
}

// TestProtectedNameByProgram: a program the child starts (a shell, dumpable, reached through
// /proc) makes .envrc by an absolute path and by one relative to its working directory; the
// control runs the same script unconfined. The same script's ordinary write succeeds.
func TestProtectedNameByProgram(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("a started program makes .envrc (supervised)", "denied", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, mk := protectFixture(t)
	mk(false, ".git", "config")
	sub := filepath.Dir(mk(false, "sub", "keep"))
	scripts := filepath.Join(filepath.Dir(ws), "ro") // the fixture's read-only dir, outside the grant
	script := func(name, body string) string {
		p := filepath.Join(scripts, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nset -e\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ what, body string }{
		{"by an absolute path", fmt.Sprintf("echo payload > %s/.envrc", sub)},
		{"relative to its working directory", fmt.Sprintf("cd %s && echo payload > .envrc", sub)},
	} {
		s := script(strings.ReplaceAll(c.what, " ", "-")+".sh", c.body)
		control := strings.ReplaceAll(c.body, sub, t.TempDir())
		out, err := runShell(control)
		record("a started program makes .envrc "+c.what+" [unconfined control]", "ok", outcome(out, err), err == nil)
		_, e := call(t, "a started program makes .envrc "+c.what+" (supervised)", full, Failed, "test.kernel",
			Profile{WritePaths: []string{ws}, Exec: []string{s, "/bin/sh"}}, kernelReq("exec", s, 0))
		if e != nil && !strings.Contains(e.What+e.Detail, "exit status") {
			t.Errorf("%s: %q", c.what, e.What)
		}
		if left := leftBehind(filepath.Join(sub, ".envrc")); left != "" {
			t.Errorf("%s: %s is there", c.what, left)
		}
	}
	ok := script("ordinary.sh", fmt.Sprintf("echo a > %s/ok.txt && echo b > %s/ok.txt && cd %s && echo c > new.txt", sub, sub, ws))
	call(t, "a started program writes ordinary files (supervised)", full, 0, "test.kernel", Profile{WritePaths: []string{ws}, Exec: []string{ok, "/bin/sh"}}, kernelReq("exec", ok, 0))
	if b, _ := os.ReadFile(filepath.Join(ws, "new.txt")); string(b) != "c\n" {
		t.Errorf("new.txt holds %q", b)
	}
}

func runShell(body string) ([]byte, error) {
	return exec.Command("/bin/sh", "-c", "set -e\n"+body).CombinedOutput()
}

// TestSupervisedChildOwnCalls: names the child's own code makes from descriptors the supervisor
// must ask it for (the child is not dumpable, so they are out of reach in /proc): a name relative
// to a working directory the child moved to, and an O_TMPFILE file linked by its descriptor, are
// made where the child asked (both were refused with EACCES before the supervisor asked). Their
// protected counterparts are refused (the createCases rows with .envrc; TestSupervisedOwnDescriptors
// for os.Root). Programs the child starts are not concerned (see TestProtectedNameByProgram); a
// relative name before any move is made in the child's temp dir, its working directory.
func TestSupervisedChildOwnCalls(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("the child's own code makes a relative name after chdir (supervised)", "ok", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, _ := protectFixture(t)
	p := Profile{WritePaths: []string{ws}}
	for _, c := range []struct{ what, op string }{
		{"a relative name after chdir", "chdir-write"},
		{"an O_TMPFILE file linked by its descriptor", "tmpfile"},
	} {
		a := filepath.Join(ws, "sub", "ordinary-"+c.op)
		control := filepath.Join(t.TempDir(), "sub", "ordinary")
		if c.op == "tmpfile" { // chdir would move this test process
			_, err := runCreate(createReq{Op: c.op, A: control})
			record("the child's own code makes "+c.what+" [unconfined control]", "ok", outcome(nil, err), err == nil)
		}
		req, _ := json.Marshal(createReq{Op: c.op, A: a})
		call(t, "the child's own code makes "+c.what+" (supervised)", full, 0, "test.create", p, req)
		if _, err := os.Lstat(a); err != nil {
			t.Errorf("%s: %s was not made: %v", c.what, a, err)
		}
	}
	req, _ := json.Marshal(createReq{Op: "open", A: filepath.Join(ws, "absolute.txt")})
	call(t, "the child's own code makes a name by an absolute path (supervised)", full, 0, "test.create", p, req)
}

// TestSupervisorSignals: signals to the supervisor (Go's runtime sends itself SIGURG to preempt
// goroutines; here a storm of them from outside) while the child makes 5,000 files: every
// descriptor handed back must be the file's. Handing it back and answering in one step
// (SECCOMP_ADDFD_FLAG_SEND) lost it to an interrupted request: the child got descriptor 0.
func TestSupervisorSignals(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("signals to the supervisor while it hands descriptors back", "ok", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, _ := protectFixture(t)
	req, _ := json.Marshal(createReq{Op: "many", A: filepath.Join(ws, "x"), N: 5000})
	done := make(chan struct{})
	stormed := make(chan int)
	go func() {
		n := 0
		defer func() { stormed <- n }()
		for {
			select {
			case <-done:
				return
			default:
			}
			for _, pid := range supervisors() {
				tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
				for _, task := range tasks { // every thread, the one waiting in the ioctl among them
					if tid, err := strconv.Atoi(task.Name()); err == nil && unix.Tgkill(pid, tid, unix.SIGURG) == nil {
						n++
					}
				}
			}
			runtime.Gosched()
		}
	}()
	resp, err := Run(ctxTimeout(t, 5*time.Minute), "test.create", Profile{WritePaths: []string{ws}}, req)
	close(done)
	n := <-stormed
	expect(t, fmt.Sprintf("make 5,000 files under a storm of signals to the supervisor (%d sent)", n), 0, resp, err)
	if n == 0 {
		t.Errorf("no signal reached a supervisor")
	}
}

// supervisors lists the running supervisors: confined processes whose parent is one.
func supervisors() []int {
	entries, _ := os.ReadDir("/proc")
	isChild := func(pid string) bool {
		b, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		return strings.HasPrefix(string(b), childArgv0+"\x00")
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !isChild(e.Name()) {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) > 1 && isChild(fields[1]) {
			out = append(out, pid)
		}
	}
	return out
}
