//go:build linux

package confine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The names a call may make other than by open, mkdir, symlink, link and rename by their plain
// paths: a unix socket bound to a path, renameat2 with its flags, an O_TMPFILE file linked by a
// program, mknod; and open with O_CREAT of an existing FIFO, which waits for its other end. Each
// is tried by the child's own code and by a program it starts (this test binary, run as a
// program: envTestProgram).

// envTestProgram, set to a JSON namesReq, makes this test binary a program that carries out the
// request (runNames) and exits: 0 when it succeeded, 1 with the error on stderr.
const envTestProgram = "TOOLEXPLORER_CONFINE_TEST_PROGRAM"

// namesReq asks for one way of making the name A: B is what it prepares or moves, N the flags
// or mode; W a workspace where the same call then does a writing tool's ordinary work; Prog,
// when set, the program that makes the name in the child's stead.
type namesReq struct {
	Op string `json:"op"`
	A  string `json:"a"`
	B  string `json:"b,omitempty"`
	N  int    `json:"n,omitempty"`
	// Refused is how many of N opens that wait at once are refused (see runFIFOMany).
	Refused int    `json:"refused,omitempty"`
	W       string `json:"w,omitempty"`
	Prog    string `json:"prog,omitempty"`
}

func init() {
	Handle("test.names", func(ctx context.Context, req []byte) ([]byte, error) {
		var r namesReq
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, err
		}
		var err error
		if r.Prog != "" {
			err = runProgram(r)
		} else {
			err = runNames(r)
		}
		if r.W != "" {
			if oerr := ordinaryWork(r.W); oerr != nil {
				return nil, fmt.Errorf("ordinary work in the workspace failed: %s", oerr.Error())
			}
		}
		return nil, err
	})
	Handle("test.fifo", func(ctx context.Context, req []byte) ([]byte, error) {
		var r namesReq
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, err
		}
		return runFIFO(ctx, r)
	})
}

// programMain is main in this test binary run as a program (envTestProgram).
func programMain(req string) int {
	var r namesReq
	if err := json.Unmarshal([]byte(req), &r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := runNames(r); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// runProgram runs r in the program r.Prog; its error is the program's own message.
func runProgram(r namesReq) error {
	prog := r.Prog
	r.Prog, r.W = "", ""
	b, _ := json.Marshal(r)
	cmd := exec.Command(prog)
	cmd.Env = []string{envTestProgram + "=" + string(b)}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("the program: %s (%v)", strings.TrimSpace(string(out)), err)
	}
	return nil
}

var namesPayload = []byte("[core]\n\tfsmonitor = touch /tmp/owned\n")

// runNames makes the name r.A the way r.Op says.
func runNames(r namesReq) error {
	switch r.Op {
	case "bind": // a unix socket bound as A
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return os.NewSyscallError("socket", err)
		}
		defer unix.Close(fd)
		if err := unix.Bind(fd, &unix.SockaddrUnix{Name: r.A}); err != nil {
			return &os.PathError{Op: "bind", Path: r.A, Err: err}
		}
		return nil
	case "rename2": // renameat2(B, A, N)
		if err := unix.Renameat2(unix.AT_FDCWD, r.B, unix.AT_FDCWD, r.A, uint(r.N)); err != nil {
			return &os.LinkError{Op: "renameat2", Old: r.B, New: r.A, Err: err}
		}
		return nil
	case "tmpfile": // an O_TMPFILE file in A's directory, written, linked as A
		dir := filepath.Dir(r.A)
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return &os.PathError{Op: "open O_TMPFILE", Path: dir, Err: err}
		}
		defer unix.Close(fd)
		unix.Write(fd, namesPayload)
		// By its descriptor (CAP_DAC_READ_SEARCH on older kernels), and by /proc/self/fd, as
		// an unprivileged program does.
		err1 := unix.Linkat(fd, "", unix.AT_FDCWD, r.A, unix.AT_EMPTY_PATH)
		if err1 == nil {
			return nil
		}
		err2 := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, r.A, unix.AT_SYMLINK_FOLLOW)
		if err2 == nil {
			return nil
		}
		return &os.LinkError{Op: "linkat", Old: "O_TMPFILE", New: r.A, Err: fmt.Errorf("%w (by descriptor); %v (through /proc/self/fd)", err1, err2)}
	case "mknod": // mknod(A, N)
		if err := unix.Mknod(r.A, uint32(r.N), 0); err != nil {
			return &os.PathError{Op: "mknod", Path: r.A, Err: err}
		}
		return nil
	case "mknodat": // mknodat(AT_FDCWD, A, N)
		if err := unix.Mknodat(unix.AT_FDCWD, r.A, uint32(r.N), 0); err != nil {
			return &os.PathError{Op: "mknodat", Path: r.A, Err: err}
		}
		return nil
	}
	return fmt.Errorf("unknown op %q", r.Op)
}

// testProgram is this test binary, copied where the children's user may run it.
var testProgram struct {
	once sync.Once
	path string
	err  error
}

// programPath returns the copy of this test binary that children start as a program.
func programPath(t *testing.T) string {
	t.Helper()
	testProgram.once.Do(func() {
		self, err := os.Executable()
		if err != nil {
			testProgram.err = err
			return
		}
		dir, err := os.MkdirTemp("", "confine-program-")
		if err == nil {
			err = os.Chmod(dir, 0o755)
		}
		if err == nil {
			testProgram.path = filepath.Join(dir, "confine.test")
			err = copyFile(self, testProgram.path, 0o755)
		}
		testProgram.err = err
	})
	if testProgram.err != nil {
		t.Fatal(testProgram.err)
	}
	return testProgram.path
}

// nameRow is one way of making a protected name: prepare lays out dir before the attack (the
// same in the control and in the workspace), made reports what was made or changed there.
type nameRow struct {
	what    string
	req     func(dir string) namesReq
	prepare func(t *testing.T, dir string, mk func(dir bool, rel ...string) string)
	made    func(dir string) string
	// na says why the control cannot carry the attack out on this host, or "".
	na func(err error) string
}

// TestNameMakingCalls: in the supervised mode, each way of making a protected name below, by the
// child's own code and by a program it starts, in a git workspace. The control carries each out
// unconfined (the name is made, or the protected entry changed); confined, it is refused,
// nothing is made or changed (nor moved aside after the call), the message names the protected
// name (but for sockets, refused whatever their name), and the same call's ordinary writes
// succeed.
func TestNameMakingCalls(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("make a protected name by bind, renameat2, O_TMPFILE or mknod (supervised)", "denied", "not applicable: "+why, true)
		t.Skip(why)
	}
	missing := func(name string) func(string) string {
		return func(dir string) string {
			if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
				return name + " was made"
			}
			return ""
		}
	}
	holds := func(rel, want string) func(string) string {
		return func(dir string) string {
			if b, err := os.ReadFile(filepath.Join(dir, rel)); err != nil || string(b) != want {
				return fmt.Sprintf("%s holds %q (%v)", rel, b, err)
			}
			return ""
		}
	}
	prepFile := func(t *testing.T, dir string, mk func(bool, ...string) string) {
		mk(false, "prepared")
		os.WriteFile(filepath.Join(dir, "prepared"), namesPayload, 0o644)
	}
	prepEnvrc := func(t *testing.T, dir string, mk func(bool, ...string) string) {
		prepFile(t, dir, mk)
		mk(false, ".envrc")
	}
	prepGit := func(t *testing.T, dir string, mk func(bool, ...string) string) {
		mk(false, ".git", "config")
		mk(false, "evil", "config")
		os.WriteFile(filepath.Join(dir, "evil", "config"), namesPayload, 0o644)
	}
	privileged := func(err error) string {
		if errors.Is(err, unix.EPERM) && os.Geteuid() != 0 {
			return "the kernel refuses it without privilege (CAP_MKNOD)"
		}
		if errors.Is(err, unix.EINVAL) {
			return "the file system has no whiteouts"
		}
		return ""
	}
	rows := []nameRow{
		{what: "a unix socket bound as .envrc", req: func(d string) namesReq { return namesReq{Op: "bind", A: filepath.Join(d, ".envrc")} }, made: missing(".envrc")},
		{what: "a unix socket bound as .git", req: func(d string) namesReq { return namesReq{Op: "bind", A: filepath.Join(d, ".git")} }, made: missing(".git")},
		{what: "renameat2 RENAME_NOREPLACE of a file onto a missing .envrc", prepare: prepFile, made: missing(".envrc"),
			req: func(d string) namesReq {
				return namesReq{Op: "rename2", A: filepath.Join(d, ".envrc"), B: filepath.Join(d, "prepared"), N: unix.RENAME_NOREPLACE}
			}},
		{what: "renameat2 RENAME_WHITEOUT of a file onto a missing .envrc", prepare: prepFile, made: missing(".envrc"), na: privileged,
			req: func(d string) namesReq {
				return namesReq{Op: "rename2", A: filepath.Join(d, ".envrc"), B: filepath.Join(d, "prepared"), N: unix.RENAME_WHITEOUT}
			}},
		{what: "renameat2 RENAME_EXCHANGE of a file with .envrc", prepare: prepEnvrc, made: holds(".envrc", "x"),
			req: func(d string) namesReq {
				return namesReq{Op: "rename2", A: filepath.Join(d, ".envrc"), B: filepath.Join(d, "prepared"), N: unix.RENAME_EXCHANGE}
			}},
		{what: "renameat2 RENAME_EXCHANGE of a directory with .git", prepare: prepGit, made: holds(".git/config", "x"),
			req: func(d string) namesReq {
				return namesReq{Op: "rename2", A: filepath.Join(d, ".git"), B: filepath.Join(d, "evil"), N: unix.RENAME_EXCHANGE}
			}},
		{what: "renameat2 RENAME_EXCHANGE of .git with a directory", prepare: prepGit, made: holds(".git/config", "x"),
			req: func(d string) namesReq {
				return namesReq{Op: "rename2", A: filepath.Join(d, "evil"), B: filepath.Join(d, ".git"), N: unix.RENAME_EXCHANGE}
			}},
		{what: "an O_TMPFILE file linked as .envrc", made: missing(".envrc"),
			req: func(d string) namesReq { return namesReq{Op: "tmpfile", A: filepath.Join(d, ".envrc")} }},
		{what: "mknod of a FIFO named .envrc", made: missing(".envrc"),
			req: func(d string) namesReq {
				return namesReq{Op: "mknod", A: filepath.Join(d, ".envrc"), N: unix.S_IFIFO | 0o644}
			}},
		{what: "mknodat of a regular file named .envrc", made: missing(".envrc"),
			req: func(d string) namesReq {
				return namesReq{Op: "mknodat", A: filepath.Join(d, ".envrc"), N: unix.S_IFREG | 0o644}
			}},
		{what: "mknodat of a FIFO named .git", made: missing(".git"),
			req: func(d string) namesReq {
				return namesReq{Op: "mknodat", A: filepath.Join(d, ".git"), N: unix.S_IFIFO | 0o644}
			}},
	}
	prog := programPath(t)
	ws, mk := protectFixture(t)
	repo := filepath.Dir(filepath.Dir(mk(false, "repo", ".git", "config")))
	for i, r := range rows {
		// The control, unconfined, in a directory of its own.
		control := t.TempDir()
		if r.prepare != nil {
			r.prepare(t, control, func(dir bool, rel ...string) string {
				p := filepath.Join(append([]string{control}, rel...)...)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if dir {
					os.Mkdir(p, 0o755)
				} else {
					os.WriteFile(p, []byte("x"), 0o644)
				}
				return p
			})
		}
		cerr := runNames(r.req(control))
		na := ""
		if r.na != nil && cerr != nil {
			na = r.na(cerr)
		}
		bad := r.made(control)
		switch {
		case na != "":
			record(r.what+" [unconfined control]", "made", "not applicable: "+na, true)
		default:
			record(r.what+" [unconfined control]", "made", fmt.Sprintf("%s; %s", outcome(nil, cerr), bad), bad != "")
			if bad == "" {
				t.Errorf("control %s: nothing made: %v", r.what, cerr)
			}
		}
		for j, by := range []string{"the child's own code", "a program it starts"} {
			sub := fmt.Sprintf("n%d-%d", i, j)
			dir := filepath.Dir(mk(false, sub, "keep"))
			if r.prepare != nil {
				r.prepare(t, dir, func(d bool, rel ...string) string { return mk(d, append([]string{sub}, rel...)...) })
			}
			req := r.req(dir)
			req.W = repo
			p := Profile{WritePaths: []string{ws}}
			want := Denied
			if by != "the child's own code" {
				req.Prog = prog
				p.Exec = []string{prog}
				p.ReadPaths = []string{"/proc"} // the race detector's runtime reads /proc/self/maps
				want = Failed                   // the program's exit status, with its message
			}
			b, _ := json.Marshal(req)
			attack := fmt.Sprintf("%s, by %s (supervised)", r.what, by)
			resp, err := Run(ctxTimeout(t, 2*time.Minute), "test.names", p, b)
			e := expect(t, attack, want, resp, err)
			name := filepath.Base(req.A)
			if strings.Contains(req.B, ".git") {
				name = ".git"
			}
			if e != nil && req.Op != "bind" && !strings.Contains(e.What, name) {
				t.Errorf("%s: the message does not name %s: %q", attack, name, e.What)
			}
			if bad := r.made(dir); bad != "" {
				t.Errorf("%s: %s", attack, bad)
			}
			if left := leftBehind(filepath.Join(dir, name)); left != "" && r.prepare == nil {
				t.Errorf("%s: %s is there", attack, left)
			}
			if e != nil && strings.Contains(e.What, "ordinary work") {
				t.Errorf("%s: %s", attack, e.What)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(repo, ".git", "config")); string(b) != "x" {
		t.Errorf("repo/.git/config holds %q", b)
	}
}

// TestSocketNameLandlock: a unix socket bound as .envrc in a write grant, with Landlock alone
// (no seccomp filter, which refuses unix sockets): Landlock grants no socket in a write grant,
// so the name is not made whatever descriptor reaches bind. The control binds it unconfined.
func TestSocketNameLandlock(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	control := filepath.Join(t.TempDir(), ".envrc")
	err := runNames(namesReq{Op: "bind", A: control})
	_, lerr := os.Lstat(control)
	record("a unix socket bound as .envrc, Landlock alone [unconfined control]", "made", outcome(nil, errors.Join(err, lerr)), err == nil && lerr == nil)
	if err != nil || lerr != nil {
		t.Errorf("control: %v %v", err, lerr)
	}
	ws, _ := protectFixture(t)
	for _, name := range []string{".envrc", "ordinary.sock"} {
		a := filepath.Join(ws, "sub", name)
		os.MkdirAll(filepath.Dir(a), 0o755)
		if os.Geteuid() == 0 {
			os.Chown(filepath.Dir(a), UnprivilegedID, UnprivilegedID)
		}
		b, _ := json.Marshal(namesReq{Op: "bind", A: a})
		_, e := call(t, "a unix socket bound as "+name+" in a write grant", landlockOnly, Denied, "test.names", Profile{WritePaths: []string{ws}}, b)
		if e != nil && (!strings.Contains(e.What, name) || strings.Contains(e.What, "moved aside")) {
			t.Errorf("%s: the message does not name it, or says it was made and moved aside: %q", name, e.What)
		}
		if left := leftBehind(a); left != "" {
			t.Errorf("%s was made", left)
		}
	}
}

// runFIFO opens the existing FIFO A with O_CREAT, by the child's own code (Op "read": for
// reading; "write": for writing; "abandon": for reading, never opened at the other end) or by a
// program ("sh": a shell's "echo payload > A"), waits until that open waits, then does a
// writing tool's ordinary work in W (each name it makes goes through the supervisor), then
// opens the FIFO's other end (without O_CREAT: not the supervisor's) and checks what went
// through.
func runFIFO(ctx context.Context, r namesReq) ([]byte, error) {
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	var waiter int // the process or thread whose open waits
	var opening atomic.Bool
	var sh *exec.Cmd
	switch r.Op {
	case "read", "write", "abandon":
		tids := make(chan int)
		go func() {
			// The thread watched. Unlocked at the end, not ended with the goroutine: in the
			// control, this process may have started a confined child from that thread, whose
			// parent-death signal the thread's end would send.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			tids <- unix.Gettid()
			flags := unix.O_RDONLY
			if r.Op == "write" {
				flags = unix.O_WRONLY
			}
			opening.Store(true)
			fd, err := unix.Open(r.A, flags|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
			if err != nil {
				done <- result{err: &os.PathError{Op: "open", Path: r.A, Err: err}}
				return
			}
			f := os.NewFile(uintptr(fd), r.A)
			defer f.Close()
			if r.Op == "write" {
				_, err = f.Write(namesPayload)
				done <- result{err: err}
				return
			}
			b, err := io.ReadAll(f)
			done <- result{b, err}
		}()
		waiter = <-tids
		for !opening.Load() {
			runtime.Gosched()
		}
	case "sh":
		sh = exec.Command("/bin/sh", "-c", `echo payload > "$1"`, "sh", r.A)
		sh.Env = []string{"PATH=/usr/bin:/bin"}
		var out bytes.Buffer
		sh.Stdout, sh.Stderr = &out, &out
		if err := sh.Start(); err != nil {
			return nil, err
		}
		go func() {
			err := sh.Wait()
			if err != nil {
				err = fmt.Errorf("sh: %v: %s", err, out.String())
			}
			done <- result{err: err}
		}()
		waiter = sh.Process.Pid
	case "many":
		return runFIFOMany(ctx, r)
	default:
		return nil, fmt.Errorf("unknown op %q", r.Op)
	}
	// Until the open waits (for the supervisor, or for the FIFO's other end).
	for !inOpen(waiter) {
		select {
		case res := <-done:
			return nil, fmt.Errorf("the open of the FIFO did not wait: %v", res.err)
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Millisecond):
		}
	}
	if err := ordinaryWork(r.W); err != nil {
		return nil, fmt.Errorf("while an open of the FIFO waits: %w", err)
	}
	if r.Op == "abandon" {
		return []byte("the open of the FIFO still waits"), nil
	}
	var got []byte
	if r.Op == "read" {
		f, err := os.OpenFile(r.A, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(namesPayload)
		if err = errors.Join(err, f.Close()); err != nil {
			return nil, err
		}
	}
	if r.Op != "read" {
		f, err := os.OpenFile(r.A, os.O_RDONLY, 0)
		if err != nil {
			return nil, err
		}
		got, err = io.ReadAll(f)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	res := <-done
	if res.err != nil {
		return nil, res.err
	}
	if r.Op == "read" {
		got = res.data
	}
	return got, nil
}

// runFIFOMany opens the N existing FIFOs A/fifo-0... for reading with O_CREAT at once, each in a
// goroutine of its own, and waits until Refused of them were refused with EAGAIN and the others
// wait; then does the ordinary work in W, opens each waiting FIFO for writing and writes the
// payload. It says how many opens were refused and how many read the payload.
func runFIFOMany(ctx context.Context, r namesReq) ([]byte, error) {
	type result struct {
		i    int
		data []byte
		err  error
	}
	done := make(chan result, r.N)
	tids := make([]int, r.N)
	var opening atomic.Int32
	for i := range r.N {
		started := make(chan int)
		go func() {
			runtime.LockOSThread() // as in runFIFO
			defer runtime.UnlockOSThread()
			started <- unix.Gettid()
			opening.Add(1)
			fd, err := unix.Open(filepath.Join(r.A, "fifo-"+strconv.Itoa(i)), unix.O_RDONLY|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
			if err != nil {
				done <- result{i: i, err: err}
				return
			}
			f := os.NewFile(uintptr(fd), "fifo")
			b, err := io.ReadAll(f)
			f.Close()
			done <- result{i, b, err}
		}()
		tids[i] = <-started
	}
	for int(opening.Load()) < r.N {
		runtime.Gosched()
	}
	var refused []int
	results := 0
	for waiting := 0; len(refused) < r.Refused || waiting+len(refused) < r.N; {
		waiting = 0
		for _, tid := range tids {
			if inOpen(tid) {
				waiting++
			}
		}
		select {
		case res := <-done:
			results++
			if res.err != unix.EAGAIN {
				return nil, fmt.Errorf("fifo-%d: an open that did not wait: %v", res.i, res.err)
			}
			refused = append(refused, res.i)
			tids[res.i] = -1
		case <-ctx.Done():
			return nil, fmt.Errorf("%d opens wait, %d were refused: %w", waiting, len(refused), ctx.Err())
		case <-time.After(time.Millisecond):
		}
	}
	if err := ordinaryWork(r.W); err != nil {
		return nil, fmt.Errorf("while %d opens of FIFOs wait: %w", r.N-len(refused), err)
	}
	for i := range r.N {
		if slices.Contains(refused, i) {
			continue
		}
		for { // until the open that waits (or the thread that opens it again) is its reader
			fd, err := unix.Open(filepath.Join(r.A, "fifo-"+strconv.Itoa(i)), unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err == nil {
				unix.Write(fd, namesPayload)
				unix.Close(fd)
				break
			}
			if err != unix.ENXIO {
				return nil, err
			}
			select {
			case <-ctx.Done():
				var got []string
				for len(done) > 0 {
					res := <-done
					got = append(got, fmt.Sprintf("%d:%v", res.i, res.err))
				}
				return nil, fmt.Errorf("fifo-%d: no reader came (refused %v, results %v): %w", i, refused, got, ctx.Err())
			case <-time.After(time.Millisecond):
			}
		}
	}
	read := 0
	for ; results < r.N; results++ {
		res := <-done
		if res.err != nil || !bytes.Equal(res.data, namesPayload) {
			return nil, fmt.Errorf("fifo-%d: read %q: %v", res.i, res.data, res.err)
		}
		read++
	}
	return []byte(fmt.Sprintf("%d refused with EAGAIN, %d read the payload", len(refused), read)), nil
}

// inOpen reports whether the thread tid of this process, or the single-threaded process tid,
// waits in open or openat. Its /proc/PID/syscall says so where it is readable (not in a child,
// which is not dumpable: there, a thread that sleeps in the kernel other than on a futex, where
// Go parks a thread, waits in the open it was about to make).
func inOpen(tid int) bool {
	dir := fmt.Sprintf("/proc/self/task/%d", tid)
	if _, err := os.Stat(dir); err != nil {
		dir = fmt.Sprintf("/proc/%d", tid)
	}
	if b, err := os.ReadFile(dir + "/syscall"); err == nil {
		nr, _, _ := strings.Cut(string(b), " ")
		return nr == strconv.Itoa(unix.SYS_OPENAT) || nr == strconv.Itoa(unix.SYS_OPEN)
	}
	b, err := os.ReadFile(dir + "/stat")
	if i := bytes.LastIndexByte(b, ')'); err != nil || i < 0 || len(b) < i+3 || b[i+2] != 'S' {
		return false
	}
	w, err := os.ReadFile(dir + "/wchan")
	return err == nil && !bytes.Contains(w, []byte("futex"))
}

// TestSupervisedFIFO: an existing FIFO opened with O_CREAT, by the child's own code (for reading
// and for writing) and by a program (a shell's "echo payload > fifo"). The open waits for the
// FIFO's other end, as the kernel's does; meanwhile the same call makes, renames and removes
// files and directories (each through the supervisor), then opens the other end and the
// payload goes through. The supervisor that carried the open out on its own thread waited with
// it, and every other call of the child waited behind it until the call's deadline. An open
// whose other end never comes ends with the call: nothing holds the FIFO open after it. The
// control does the same unconfined.
func TestSupervisedFIFO(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("open an existing FIFO with O_CREAT (supervised)", "ok", "not applicable: "+why, true)
		t.Skip(why)
	}
	fifo := func(t *testing.T, p string) {
		t.Helper()
		if err := unix.Mkfifo(p, 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, 0o666)
		if os.Geteuid() == 0 {
			os.Chown(p, UnprivilegedID, UnprivilegedID)
		}
	}
	// noReader reports whether nothing holds the FIFO open for reading, waiting (for the
	// processes of a call that ended to be gone) up to a generous deadline.
	noReader := func(p string) error {
		deadline := time.Now().Add(time.Minute)
		for {
			fd, err := unix.Open(p, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
			if err == unix.ENXIO {
				return nil
			}
			if err == nil {
				unix.Close(fd)
				err = errors.New("something holds it open for reading")
			}
			if time.Now().After(deadline) {
				return err
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cases := []struct{ op, what string }{
		{"read", "the child's own code opens an existing FIFO for reading with O_CREAT"},
		{"write", "the child's own code opens an existing FIFO for writing with O_CREAT"},
		{"sh", "a program opens an existing FIFO for writing with O_CREAT (echo > fifo)"},
		{"abandon", "the child's own code opens an existing FIFO with O_CREAT, never opened at the other end"},
	}
	ws, mk := protectFixture(t)
	repo := filepath.Dir(filepath.Dir(mk(false, "repo", ".git", "config")))
	for _, c := range cases {
		want := string(namesPayload)
		if c.op == "sh" {
			want = "payload\n"
		}
		if c.op == "abandon" {
			want = "the open of the FIFO still waits"
		}
		// The control, unconfined: the same steps in this process (the abandoned open is
		// left to the kernel, as the call's end would leave it: the control shows it waits).
		if c.op != "abandon" {
			dir := t.TempDir()
			p := filepath.Join(dir, "fifo")
			fifo(t, p)
			os.MkdirAll(filepath.Join(dir, "w"), 0o755)
			got, err := runFIFO(ctxTimeout(t, time.Minute), namesReq{Op: c.op, A: p, W: filepath.Join(dir, "w")})
			ok := err == nil && string(got) == want
			record(c.what+" [unconfined control]", "waits, then ok", outcome(got, err), ok)
			if !ok {
				t.Errorf("control %s: %q %v", c.op, got, err)
			}
		}
		p := filepath.Join(filepath.Dir(mk(false, "fifo-"+c.op, "keep")), "fifo")
		fifo(t, p)
		prof := Profile{WritePaths: []string{ws}, ReadPaths: []string{"/proc"}}
		if c.op == "sh" {
			prof.Exec = []string{"/bin/sh"}
		}
		b, _ := json.Marshal(namesReq{Op: c.op, A: p, W: repo})
		resp, err := Run(ctxTimeout(t, time.Minute), "test.fifo", prof, b)
		expect(t, c.what+" (supervised)", 0, resp, err)
		if err == nil && string(resp) != want {
			t.Errorf("%s: got %q, want %q", c.what, resp, want)
		}
		if err := noReader(p); err != nil {
			t.Errorf("%s: after the call, the FIFO: %v", c.what, err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%s: the FIFO is no longer one: %v %v", c.what, fi, err)
		}
	}
	// More opens of FIFOs that wait at once than the supervisor gives threads: the one over
	// is refused, the others go through, and the call's ordinary writes are served meanwhile.
	// The control waits on all of them.
	n := maxWaiting + 1
	many := func(dir string) string {
		for i := range n {
			fifo(t, filepath.Join(dir, "fifo-"+strconv.Itoa(i)))
		}
		return dir
	}
	what := fmt.Sprintf("%d opens of FIFOs with O_CREAT waiting at once", n)
	control := t.TempDir()
	os.MkdirAll(filepath.Join(control, "w"), 0o755)
	got, err := runFIFO(ctxTimeout(t, time.Minute), namesReq{Op: "many", A: many(control), N: n, Refused: 0, W: filepath.Join(control, "w")})
	want := fmt.Sprintf("0 refused with EAGAIN, %d read the payload", n)
	record(what+" [unconfined control]", want, outcome(got, err), err == nil && string(got) == want)
	if err != nil || string(got) != want {
		t.Errorf("control: %q %v", got, err)
	}
	dir := many(filepath.Dir(mk(false, "fifo-many", "keep")))
	b, _ := json.Marshal(namesReq{Op: "many", A: dir, N: n, Refused: n - maxWaiting, W: repo})
	resp, err := Run(ctxTimeout(t, time.Minute), "test.fifo", Profile{WritePaths: []string{ws}, ReadPaths: []string{"/proc"}}, b)
	want = fmt.Sprintf("1 refused with EAGAIN, %d read the payload", maxWaiting)
	expect(t, what+" (supervised, documented limit)", 0, resp, err)
	if err == nil && string(resp) != want {
		t.Errorf("%s: %q, want %q", what, resp, want)
	}
}
