//go:build linux

package confine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Variables the parent test process sets in its own environment; a profile passes one to a child
// only when its Env names it.
const (
	// envTestLayers=landlock makes a test child skip the seccomp filter, to show what Landlock
	// alone blocks.
	envTestLayers = "TOOLEXPLORER_CONFINE_TEST_LAYERS"
	// envTestThread=1 makes a test child start a locked thread before it confines itself.
	envTestThread = "TOOLEXPLORER_CONFINE_TEST_THREAD"
	// envTestSecret is a secret no child may see.
	envTestSecret = "TOOLEXPLORER_CONFINE_TEST_SECRET"
	secretValue   = "s3cr3t-never-in-a-child"
	// envTestParent=DIR makes the test binary a parent that runs test.spin-pid (see
	// TestParentDeath).
	envTestParent = "TOOLEXPLORER_CONFINE_TEST_PARENT"
	// envTestPoll=1 makes a test child start the Go poller from init (a pollable pipe), so that
	// the runtime's epoll and eventfd exist before Main.
	envTestPoll = "TOOLEXPLORER_CONFINE_TEST_POLL"
	// envTestInitFile=PATH makes a test child open PATH from init, before it is confined.
	envTestInitFile = "TOOLEXPLORER_CONFINE_TEST_INIT_FILE"
	// envTestKeepLeftovers=1 makes a reused test worker serve on after a call that left a
	// goroutine running (the control of the attack that stops).
	envTestKeepLeftovers = "TOOLEXPLORER_CONFINE_TEST_KEEP_LEFTOVERS"
	// envRequireLandlock=1 turns a skip for want of Landlock or seccomp into a failure.
	envRequireLandlock = "TOOLEXPLORER_REQUIRE_LANDLOCK"
)

// initOpened is the file a test child opened from init (envTestInitFile); initPipe the pollable
// pipe it made (envTestPoll).
var (
	initOpened *os.File
	initPipe   [2]*os.File
)

// The thread started before confinement (see init) and its channel.
var (
	earlyThreadReq  chan string
	earlyThreadResp chan string
)

func init() {
	// In a child started with envTestLayers=landlock, leave seccomp out (tests only). The
	// marker is still set: init runs before Main.
	child := os.Getenv(envMarker) == markerValue
	if child && os.Getenv(envTestLayers) == "landlock" {
		installSeccomp = nil
		allowMissingSeccomp = true
	}
	if child && os.Getenv(envTestThread) == "1" {
		beforeConfine = startEarlyThread
	}
	if child && os.Getenv(envTestPoll) == "1" {
		initPipe[0], initPipe[1], _ = os.Pipe()
	}
	if child && os.Getenv(envTestKeepLeftovers) == "1" {
		retireOnLeftovers = false
	}
	if path := os.Getenv(envTestInitFile); child && path != "" {
		initOpened, _ = os.Open(path) // as Go opens every file: close-on-exec
	}
	registerTestHandlers()
}

// startEarlyThread starts a goroutine locked to its own OS thread, and waits until it runs: that
// thread exists before the child confines itself. It opens the paths it is sent and answers with
// its thread id and the outcome.
func startEarlyThread() {
	earlyThreadReq = make(chan string)
	earlyThreadResp = make(chan string)
	started := make(chan struct{})
	go func() {
		runtime.LockOSThread() // never unlocked: the thread stays this goroutine's
		close(started)
		for path := range earlyThreadReq {
			f, err := os.Open(path)
			if err == nil {
				f.Close()
			}
			earlyThreadResp <- fmt.Sprintf("%d %v", unix.Gettid(), err)
		}
	}()
	<-started
}

// allThreadsSyscallWorks reports whether syscall.AllThreadsSyscall is usable, that is whether the
// binary was built without cgo.
func allThreadsSyscallWorks() bool {
	_, _, errno := syscall.AllThreadsSyscall(syscall.SYS_GETPID, 0, 0, 0)
	return errno != syscall.ENOTSUP
}

func TestMain(m *testing.M) {
	if req := os.Getenv(envTestProgram); req != "" {
		os.Exit(programMain(req)) // a program a child starts
	}
	switch os.Getenv(envNaiveChild) {
	case "1":
		naiveChild()
	case "loop":
		naiveLoop()
	}
	if Main() {
		return
	}
	if dir := os.Getenv(envTestParent); dir != "" {
		// A parent that TestParentDeath kills while its child runs.
		Run(context.Background(), "test.spin-pid", Profile{WritePaths: []string{dir}}, []byte(dir))
		os.Exit(3)
	}
	os.Setenv(envTestLayers, "landlock")
	os.Setenv(envTestThread, "1")
	os.Setenv(envTestSecret, secretValue)
	os.Setenv(envTestKeepLeftovers, "1")
	code := m.Run()
	if coldHost.path != "" {
		os.RemoveAll(filepath.Dir(coldHost.path))
	}
	if testProgram.path != "" {
		os.RemoveAll(filepath.Dir(testProgram.path))
	}
	Shutdown() // the last children's temp dirs and the session dir
	printTable()
	os.Exit(code)
}

// requireConfinement skips (or fails, under TOOLEXPLORER_REQUIRE_LANDLOCK=1) when this machine
// cannot confine.
func requireConfinement(t testing.TB) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv(envRequireLandlock) == "1" {
			t.Fatalf("confinement required (%s=1) but unavailable: %v", envRequireLandlock, err)
		}
		t.Skipf("confinement unavailable on this machine: %v (set %s=1 to fail instead)", err, envRequireLandlock)
	}
}

// ---------------------------------------------------------------------------------------------------
// The attack table.

type row struct{ attack, expected, outcome, verdict string }

var (
	tableMu sync.Mutex
	table   []row
)

func record(attack, expected, outcome string, ok bool) {
	v := "ok"
	if !ok {
		v = "FAIL"
	}
	tableMu.Lock()
	table = append(table, row{attack, expected, outcome, v})
	tableMu.Unlock()
}

func printTable() {
	tableMu.Lock()
	defer tableMu.Unlock()
	if len(table) == 0 {
		return
	}
	sort.Slice(table, func(i, j int) bool { return table[i].attack < table[j].attack })
	cut := func(s string, n int) string {
		s = strings.ReplaceAll(s, "\n", " ")
		if len(s) > n {
			return s[:n-1] + "…"
		}
		return s
	}
	seccomp := "applied"
	if installSeccomp == nil {
		seccomp = "NOT applied (no filter built in)"
	}
	build := "cgo (libpsx)"
	if allThreadsSyscallWorks() {
		build = "no cgo (AllThreadsSyscall)"
	}
	fmt.Printf("\nconfine attack table (seccomp %s; %s; race %t; euid %d)\n", seccomp, build, raceEnabled, os.Geteuid())
	fmt.Printf("%-52s %-22s %-60s %s\n", "attack", "expected", "outcome", "verdict")
	for _, r := range table {
		fmt.Printf("%-52s %-22s %-60s %s\n", cut(r.attack, 52), cut(r.expected, 22), cut(r.outcome, 60), r.verdict)
	}
}

// outcome describes a call's result for the table.
func outcome(resp []byte, err error) string {
	if err == nil {
		return "ok: " + string(resp)
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind.String() + ": " + e.What
	}
	return "error: " + err.Error()
}

// expect runs nothing: it checks a result against an expected kind (0 for success), records the
// row and fails the test on a mismatch.
func expect(t *testing.T, attack string, want ErrorKind, resp []byte, err error) *Error {
	t.Helper()
	exp := "ok"
	if want != 0 {
		exp = want.String()
	}
	var e *Error
	isErr := errors.As(err, &e)
	ok := false
	switch {
	case want == 0:
		ok = err == nil
	case isErr:
		ok = e.Kind == want
	}
	record(attack, exp, outcome(resp, err), ok)
	if !ok {
		t.Errorf("%s: want %s, got %s", attack, exp, outcome(resp, err))
		if e != nil && e.Stderr != "" {
			t.Logf("child output:\n%s", e.Stderr)
		}
	}
	return e
}

// ---------------------------------------------------------------------------------------------------
// Test handlers: registered in every process (parent and child), as a host registers its own.

type fsOp struct {
	Op string `json:"op"`
	A  string `json:"a"`
	B  string `json:"b,omitempty"`
	N  int    `json:"n,omitempty"`
}

func registerTestHandlers() {
	Handle("test.echo", func(ctx context.Context, req []byte) ([]byte, error) { return req, nil })
	// test.tmpleave leaves a file, a read-only dir with a file and a symlink in its temp dir and
	// answers the dir; test.tmplist answers its temp dir and what it holds.
	Handle("test.tmpleave", func(ctx context.Context, req []byte) ([]byte, error) {
		dir := os.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "left.txt"), []byte(secretValue), 0o600); err != nil {
			return nil, err
		}
		if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "sub", "inner.txt"), []byte(secretValue), 0o600); err != nil {
			return nil, err
		}
		if err := os.Symlink("/etc", filepath.Join(dir, "link")); err != nil {
			return nil, err
		}
		return []byte(dir), nil
	})
	Handle("test.tmplist", func(ctx context.Context, req []byte) ([]byte, error) {
		dir := os.TempDir()
		names, err := (func() ([]string, error) {
			f, err := os.Open(dir)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			return f.Readdirnames(-1)
		})()
		if err != nil {
			return nil, err
		}
		return []byte(strings.Join(append([]string{dir}, names...), "\n")), nil
	})
	// test.poll waits on the poller: a read with a 10 ms deadline on a fresh pipe.
	Handle("test.poll", func(ctx context.Context, req []byte) ([]byte, error) {
		r, w, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		defer w.Close()
		r.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		_, err = r.Read(make([]byte, 1))
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("read: %v, want a deadline error", err)
		}
		return []byte(fmt.Sprintf("ok (pipe from init: %v)", initPipe[0] != nil)), nil
	})
	Handle("test.initopened", func(ctx context.Context, req []byte) ([]byte, error) {
		if initOpened == nil {
			return []byte("not opened"), nil
		}
		return []byte("opened"), nil
	})
	// test.forge writes a file in its temp dir (a side effect), then puts a response frame of
	// its own on the response pipe: the error kind it is sent, with the text "forged". It then
	// waits for its deadline; the parent reads the forged frame first.
	Handle("test.forge", func(ctx context.Context, req []byte) ([]byte, error) {
		kind, err := strconv.Atoi(string(req))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(os.TempDir(), "side-effect"), []byte("done"), 0o600); err != nil {
			return nil, err
		}
		m := responseMsg{nonce: servingNonce.Load(), kind: ErrorKind(kind), what: "forged", detail: "forged"}
		if err := writeFrame(os.NewFile(responseFD, "forged"), frameResponse, m.encode()); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	// test.bigframe writes a response frame of its own with a body of the size it is sent,
	// past the child's own check of the response size, then waits for its deadline.
	Handle("test.bigframe", func(ctx context.Context, req []byte) ([]byte, error) {
		n, err := strconv.Atoi(string(req))
		if err != nil {
			return nil, err
		}
		m := responseMsg{nonce: servingNonce.Load(), body: bytes.Repeat([]byte("x"), n)}
		if err := writeFrame(os.NewFile(responseFD, "forged"), frameResponse, m.encode()); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	})
	// test.fill, sent "bytes N", writes N bytes in its temp dir in files of 1 MiB; sent
	// "inodes N", makes N empty files there.
	Handle("test.fill", func(ctx context.Context, req []byte) ([]byte, error) {
		var what string
		var n int
		if _, err := fmt.Sscan(string(req), &what, &n); err != nil {
			return nil, err
		}
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; n > 0; i++ {
			p := filepath.Join(os.TempDir(), "fill"+strconv.Itoa(i))
			if what == "inodes" {
				if err := os.WriteFile(p, nil, 0o600); err != nil {
					return nil, err
				}
				n--
				continue
			}
			if err := os.WriteFile(p, chunk[:min(n, len(chunk))], 0o600); err != nil {
				return nil, err
			}
			n -= len(chunk)
		}
		return []byte("filled"), nil
	})
	Handle("test.fail", func(ctx context.Context, req []byte) ([]byte, error) { return nil, errors.New(string(req)) })
	Handle("test.panic", func(ctx context.Context, req []byte) ([]byte, error) { panic(string(req)) })
	Handle("test.read", func(ctx context.Context, req []byte) ([]byte, error) { return os.ReadFile(string(req)) })
	Handle("test.fs", func(ctx context.Context, req []byte) ([]byte, error) {
		var op fsOp
		if err := json.Unmarshal(req, &op); err != nil {
			return nil, err
		}
		return nil, runFSOp(op)
	})
	Handle("test.env", func(ctx context.Context, req []byte) ([]byte, error) {
		return []byte(strings.Join(os.Environ(), "\n")), nil
	})
	Handle("test.fds", func(ctx context.Context, req []byte) ([]byte, error) {
		// req is "fd ino": try the leaked descriptor's number, then look for any descriptor
		// open on that inode.
		var fd int
		var ino uint64
		if _, err := fmt.Sscan(string(req), &fd, &ino); err != nil {
			return nil, err
		}
		buf := make([]byte, 64)
		n, err := syscall.Pread(fd, buf, 0)
		out := []string{fmt.Sprintf("read fd %d: %q %v", fd, buf[:max(n, 0)], err)}
		var open, onFile []string
		for i := 0; i < max(1024, fd+1); i++ {
			var st syscall.Stat_t
			if syscall.Fstat(i, &st) == nil {
				open = append(open, strconv.Itoa(i))
				if st.Ino == ino {
					onFile = append(onFile, strconv.Itoa(i))
				}
			}
		}
		out = append(out, "open fds: "+strings.Join(open, ","), "fds on the leaked file: ["+strings.Join(onFile, ",")+"]")
		return []byte(strings.Join(out, "; ")), nil
	})
	Handle("test.dial", func(ctx context.Context, req []byte) ([]byte, error) {
		d := net.Dialer{Timeout: 5 * time.Second}
		d.SetMultipathTCP(false)
		c, err := d.DialContext(ctx, "tcp", string(req))
		if err != nil {
			return nil, err
		}
		defer c.Close()
		b, err := io.ReadAll(c)
		return b, err
	})
	Handle("test.listen", func(ctx context.Context, req []byte) ([]byte, error) {
		var lc net.ListenConfig
		lc.SetMultipathTCP(false)
		l, err := lc.Listen(ctx, "tcp", string(req))
		if err != nil {
			return nil, err
		}
		defer l.Close()
		return []byte(l.Addr().String()), nil
	})
	Handle("test.listen-default", func(ctx context.Context, req []byte) ([]byte, error) {
		l, err := net.Listen("tcp", string(req)) // MPTCP first since Go 1.24
		if err != nil {
			return nil, err
		}
		defer l.Close()
		return []byte(l.Addr().String()), nil
	})
	Handle("test.unix", func(ctx context.Context, req []byte) ([]byte, error) {
		c, err := net.Dial("unix", string(req))
		if err != nil {
			return nil, err
		}
		c.Close()
		return []byte("connected"), nil
	})
	Handle("test.kill", func(ctx context.Context, req []byte) ([]byte, error) {
		pid, err := strconv.Atoi(string(req))
		if err != nil {
			return nil, err
		}
		return nil, os.NewSyscallError("kill", syscall.Kill(pid, syscall.SIGKILL))
	})
	Handle("test.setuid", func(ctx context.Context, req []byte) ([]byte, error) {
		return nil, os.NewSyscallError("setuid", syscall.Setuid(0))
	})
	Handle("test.whoami", func(ctx context.Context, req []byte) ([]byte, error) {
		nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
		sc, _ := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
		var groups []int
		groups, _ = syscall.Getgroups()
		wd, _ := os.Getwd()
		return []byte(fmt.Sprintf("uid=%d gid=%d groups=%v nnp=%d seccomp=%d cwd=%s tmp=%s", os.Getuid(), os.Getgid(), groups, nnp, sc, wd, os.TempDir())), nil
	})
	Handle("test.bigfile", func(ctx context.Context, req []byte) ([]byte, error) {
		n, _ := strconv.Atoi(string(req))
		return nil, os.WriteFile(filepath.Join(os.TempDir(), "big"), make([]byte, n), 0o600)
	})
	Handle("test.openmany", func(ctx context.Context, req []byte) ([]byte, error) {
		var files []*os.File
		defer func() {
			for _, f := range files {
				f.Close()
			}
		}()
		for i := 0; i < 100000; i++ {
			f, err := os.Open("/dev/null")
			if err != nil {
				return nil, err
			}
			files = append(files, f)
		}
		return []byte("opened 100000 files"), nil
	})
	// test.burn uses the CPU for the milliseconds it is sent, and answers its pid.
	Handle("test.burn", func(ctx context.Context, req []byte) ([]byte, error) {
		ms, err := strconv.Atoi(string(req))
		if err != nil {
			return nil, err
		}
		start := cpuUsed()
		for x := 0; cpuUsed()-start < time.Duration(ms)*time.Millisecond; x++ {
		}
		return []byte(strconv.Itoa(os.Getpid())), nil
	})
	Handle("test.spin", func(ctx context.Context, req []byte) ([]byte, error) {
		spin()
		return nil, nil
	})
	Handle("test.spin-family", func(ctx context.Context, req []byte) ([]byte, error) {
		// A double-forked grandchild: the subshell starts the busy loop in the background and
		// exits, so the loop's parent is gone; it stays in the process group.
		dir := string(req)
		script := `( /bin/sh -c 'echo $$ > "$1/grandchild.pid"; while :; do :; done' x "$1" & ) ; exit 0`
		if err := exec.Command("/bin/sh", "-c", script, "x", dir).Run(); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "child.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return nil, err
		}
		spin()
		return nil, nil
	})
	Handle("test.spin-pid", func(ctx context.Context, req []byte) ([]byte, error) {
		// The temp dir first: the test removes it, as its parent dies before it can.
		if err := os.WriteFile(filepath.Join(string(req), "child.tmp"), []byte(os.TempDir()), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(string(req), "child.pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return nil, err
		}
		spin()
		return nil, nil
	})
	Handle("test.membomb", func(ctx context.Context, req []byte) ([]byte, error) {
		var keep [][]byte
		for i := 0; ; i++ {
			b := make([]byte, 32<<20)
			for j := 0; j < len(b); j += 4096 {
				b[j] = 1
			}
			keep = append(keep, b)
			if i > 1<<20 {
				return []byte(fmt.Sprint(len(keep))), nil
			}
		}
	})
	Handle("test.early-thread", func(ctx context.Context, req []byte) ([]byte, error) {
		if earlyThreadReq == nil {
			return nil, errors.New("no early thread: the child was not started with " + envTestThread + "=1")
		}
		earlyThreadReq <- string(req)
		res := <-earlyThreadResp
		tid, errText, _ := strings.Cut(res, " ")
		out := fmt.Sprintf("early thread %s (handler on %d): %s", tid, unix.Gettid(), errText)
		if errText == "<nil>" {
			return []byte(out), nil
		}
		return []byte(out), permissionIf(errText)
	})
	Handle("test.procs", func(ctx context.Context, req []byte) ([]byte, error) {
		if string(req) != "now" {
			time.Sleep(2 * time.Millisecond) // a wait: the child's resize has run after it
		}
		return []byte(fmt.Sprintf("%d %q", runtime.GOMAXPROCS(0), os.Getenv("GOMAXPROCS"))), nil
	})
	Handle("test.runtime", func(ctx context.Context, req []byte) ([]byte, error) {
		// Threads, the garbage collector and encoding/json after confinement.
		var wg sync.WaitGroup
		sums := make([]int, 32)
		for i := range sums {
			wg.Add(1)
			go func() {
				defer wg.Done()
				runtime.LockOSThread() // forces new OS threads
				defer runtime.UnlockOSThread()
				var garbage [][]byte
				for j := 0; j < 200; j++ {
					garbage = append(garbage, make([]byte, 16<<10))
					sums[i] += len(garbage[j])
				}
				time.Sleep(time.Millisecond)
			}()
		}
		wg.Wait()
		runtime.GC()
		type doc struct {
			N    int            `json:"n"`
			Sums []int          `json:"sums"`
			M    map[string]any `json:"m"`
		}
		b, err := json.Marshal(doc{N: runtime.NumGoroutine(), Sums: sums, M: map[string]any{"gc": true}})
		if err != nil {
			return nil, err
		}
		var back doc
		if err := json.Unmarshal(b, &back); err != nil {
			return nil, err
		}
		return []byte(fmt.Sprintf("goroutines+threads+GC+json ok (%d sums)", len(back.Sums))), nil
	})
}

func spin() {
	x := 0
	for {
		x++
		if x < 0 {
			return
		}
	}
}

// permissionIf turns an error text from the early thread back into a permission error
// when it is one.
func permissionIf(text string) error {
	if strings.Contains(text, "permission denied") || strings.Contains(text, "operation not permitted") {
		return &os.PathError{Op: "open (early thread)", Path: text, Err: syscall.EACCES}
	}
	return errors.New(text)
}

func runFSOp(op fsOp) error {
	switch op.Op {
	case "write":
		return os.WriteFile(op.A, []byte("written by a child"), 0o644)
	case "append":
		f, err := os.OpenFile(op.A, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("appended by a child")
		return err
	case "rename":
		return os.Rename(op.A, op.B)
	case "truncate":
		return os.Truncate(op.A, 0)
	case "unlink":
		return os.Remove(op.A)
	case "mkdir":
		return os.Mkdir(op.A, 0o755)
	case "mkdir-write":
		// Make A's directory, then write A.
		if err := os.MkdirAll(filepath.Dir(op.A), 0o755); err != nil {
			return err
		}
		return os.WriteFile(op.A, []byte("[core]\n\tfsmonitor = touch /tmp/owned\n"), 0o644)
	case "symlink-read":
		// Make a symlink in a writable dir to A, then read through it.
		if err := os.Symlink(op.A, op.B); err != nil {
			return err
		}
		_, err := os.ReadFile(op.B)
		return err
	case "symlink-write":
		if err := os.Symlink(op.A, op.B); err != nil {
			return err
		}
		return os.WriteFile(op.B, []byte("through a symlink"), 0o644)
	case "link":
		return os.Link(op.A, op.B)
	case "swap":
		// Replace A by a symlink to B.
		if err := os.RemoveAll(op.A); err != nil {
			return err
		}
		return os.Symlink(op.B, op.A)
	case "chmod":
		return os.Chmod(op.A, 0o777)
	case "chown":
		return os.Chown(op.A, os.Getuid(), os.Getgid())
	case "mknod":
		return os.NewSyscallError("mknod", unix.Mknod(op.A, unix.S_IFIFO|0o644, 0))
	case "readdir":
		_, err := os.ReadDir(op.A)
		return err
	}
	return fmt.Errorf("unknown op %q", op.Op)
}

// ---------------------------------------------------------------------------------------------------
// Fixtures.

// fixture is a directory tree the unprivileged child user can traverse: ro (read-only in the
// profile), rw (writable in the profile, owned by that user) and out (outside the profile, but
// world-writable, so that only the confinement stops a write).
type fixture struct {
	base, ro, rw, out string
	roFile, outFile   string
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	base, err := os.MkdirTemp("", "confine-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	f := &fixture{base: base, ro: filepath.Join(base, "ro"), rw: filepath.Join(base, "rw"), out: filepath.Join(base, "out")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Chmod(base, 0o755))
	for _, d := range []string{f.ro, f.rw, f.out} {
		must(os.Mkdir(d, 0o755))
	}
	must(os.Chmod(f.out, 0o777))
	if os.Geteuid() == 0 {
		must(os.Chown(f.rw, UnprivilegedID, UnprivilegedID))
	}
	f.roFile = filepath.Join(f.ro, "data.txt")
	must(os.WriteFile(f.roFile, []byte("readable data"), 0o644))
	f.outFile = filepath.Join(f.out, "victim.txt")
	must(os.WriteFile(f.outFile, []byte("outside data"), 0o666))
	must(os.Chmod(f.outFile, 0o666))
	return f
}

func (f *fixture) profile() Profile {
	return Profile{ReadPaths: []string{f.ro}, WritePaths: []string{f.rw}}
}

func fsReq(op, a, b string) []byte {
	out, _ := json.Marshal(fsOp{Op: op, A: a, B: b})
	return out
}

// victim starts a sacrificial process running as the child's user, so that only the
// confinement (not plain permissions) separates the two; it is killed at the end of the test.
func victim(t testing.TB) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("/bin/sleep", "300")
	cmd.Env = []string{"VICTIM_SECRET=" + secretValue}
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: UnprivilegedID, Gid: UnprivilegedID}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// groupGone waits up to d (a hang guard) until process group pgid has no live member and reports
// what it saw. Orphans are reaped by init, which may be slow: a group of zombies only (dead
// processes waiting for their reaper) counts as dead.
func groupGone(pgid int, d time.Duration) (bool, string) {
	start := time.Now()
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return true, fmt.Sprintf("kill(-pgid, 0) = ESRCH after %v", time.Since(start).Round(time.Millisecond))
		}
		live := liveMembers(pgid)
		if len(live) == 0 {
			return true, fmt.Sprintf("only zombies left after %v (not yet reaped by init)", time.Since(start).Round(time.Millisecond))
		}
		if time.Since(start) > d {
			return false, fmt.Sprintf("still alive: %v", live)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// liveMembers lists the pids of non-zombie processes in process group pgid.
func liveMembers(pgid int) []int {
	entries, _ := os.ReadDir("/proc")
	var live []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:]) // state ppid pgrp ...
		if len(fields) < 3 {
			continue
		}
		if g, _ := strconv.Atoi(fields[2]); g == pgid && fields[0] != "Z" {
			live = append(live, pid)
		}
	}
	return live
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
