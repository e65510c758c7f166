//go:build linux

package confine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Escapes through kernel interfaces Landlock does not govern (TCP Fast Open, listening without a
// bind, metadata changes, file watches, other processes' scheduling, threads) and what Exec
// grants. Each attack runs confined (full, and with Landlock alone to show the gap the seccomp
// filter closes) and once unconfined, in this process, as the control that proves the attack
// real; where the kernel cannot carry the control out the row is not applicable.

// kernelOp is the request of test.kernel.
type kernelOp struct {
	Op string `json:"op"`
	A  string `json:"a,omitempty"`
	B  string `json:"b,omitempty"`
	N  int    `json:"n,omitempty"`
}

func kernelReq(op, a string, n int) []byte {
	b, _ := json.Marshal(kernelOp{Op: op, A: a, N: n})
	return b
}

func init() {
	Handle("test.kernel", func(ctx context.Context, req []byte) ([]byte, error) {
		var op kernelOp
		if err := json.Unmarshal(req, &op); err != nil {
			return nil, err
		}
		return runKernelOp(op)
	})
}

func runKernelOp(op kernelOp) ([]byte, error) {
	sysErr := os.NewSyscallError
	pathErr := func(what, path string, err error) error {
		if err == nil {
			return nil
		}
		return &os.PathError{Op: what, Path: path, Err: err}
	}
	switch op.Op {
	case "tfo":
		// sendto(MSG_FASTOPEN) on an unconnected socket: the kernel connects on the way.
		a, err := net.ResolveTCPAddr("tcp4", op.A)
		if err != nil {
			return nil, err
		}
		sa := &unix.SockaddrInet4{Port: a.Port}
		copy(sa.Addr[:], a.IP.To4())
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, sysErr("socket", err)
		}
		defer unix.Close(fd)
		if err := unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, sa); err != nil {
			return nil, &net.OpError{Op: "sendto", Net: "tcp", Addr: a, Err: sysErr("sendto", err)}
		}
		tv := unix.Timeval{Sec: 10}
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		buf := make([]byte, 64)
		// A read with a receive timeout is not restarted after a signal (signal(7)): one of
		// the Go runtime's own (preemption) makes it fail with EINTR, no outcome of the attack.
		var n int
		err = retryEINTR(func() (err error) { n, err = unix.Read(fd, buf); return err })
		if err != nil {
			return nil, sysErr("read", err)
		}
		return buf[:n], nil
	case "listen-autobind":
		fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return nil, sysErr("socket", err)
		}
		defer unix.Close(fd)
		if err := unix.Listen(fd, 8); err != nil {
			return nil, sysErr("listen", err)
		}
		sa, err := unix.Getsockname(fd)
		if err != nil {
			return nil, sysErr("getsockname", err)
		}
		return []byte(fmt.Sprintf("listening on port %d", sa.(*unix.SockaddrInet4).Port)), nil
	case "fchmod":
		f, err := os.Open(op.A)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return nil, pathErr("fchmod", op.A, unix.Fchmod(int(f.Fd()), uint32(op.N)))
	case "chmod":
		return nil, os.Chmod(op.A, os.FileMode(op.N))
	case "create-setuid":
		fd, err := unix.Open(op.A, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o4755)
		if err != nil {
			return nil, pathErr("open", op.A, err)
		}
		unix.Close(fd)
		var st unix.Stat_t
		if err := unix.Stat(op.A, &st); err != nil {
			return nil, pathErr("stat", op.A, err)
		}
		return []byte(fmt.Sprintf("created with mode %#o", st.Mode&0o7777)), nil
	case "acl":
		// A POSIX access ACL (version 2; user::rw-, group::r--, other::rw-): chmod 0646 through
		// an extended attribute.
		acl := make([]byte, 4+3*8)
		le := binary.LittleEndian
		le.PutUint32(acl, 2)
		for i, e := range [][2]uint16{{0x01, 6}, {0x04, 4}, {0x20, 6}} {
			le.PutUint16(acl[4+8*i:], e[0])
			le.PutUint16(acl[6+8*i:], e[1])
			le.PutUint32(acl[8+8*i:], 0xffffffff)
		}
		return nil, pathErr("setxattr", op.A, unix.Setxattr(op.A, "system.posix_acl_access", acl, 0))
	case "utimes":
		return nil, pathErr("utimensat", op.A, unix.UtimesNano(op.A, []unix.Timespec{{Sec: 1}, {Sec: 1}}))
	case "inotify":
		fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
		if err != nil {
			return nil, sysErr("inotify_init1", err)
		}
		defer unix.Close(fd)
		wd, err := unix.InotifyAddWatch(fd, op.A, unix.IN_CREATE|unix.IN_DELETE)
		if err != nil {
			return nil, pathErr("inotify_add_watch", op.A, err)
		}
		return []byte(fmt.Sprintf("watch %d on %s", wd, op.A)), nil
	case "setpriority":
		return nil, sysErr("setpriority", unix.Setpriority(unix.PRIO_PROCESS, op.N, 19))
	case "sched-setaffinity":
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(op.N, &set); err != nil {
			return nil, sysErr("sched_getaffinity", err)
		}
		return nil, sysErr("sched_setaffinity", unix.SchedSetaffinity(op.N, &set))
	case "ioprio-set":
		const whoProcess, idle = 1, 3 << 13
		_, _, e := unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, uintptr(op.N), idle)
		if e != 0 {
			return nil, sysErr("ioprio_set", e)
		}
		return nil, nil
	case "threads":
		// N goroutines each locked to a thread of its own, all at once, then released.
		var started, done sync.WaitGroup
		release := make(chan struct{})
		started.Add(op.N)
		done.Add(op.N)
		for range op.N {
			go func() {
				defer done.Done()
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				started.Done()
				<-release
			}()
		}
		started.Wait()
		close(release)
		done.Wait()
		return []byte(fmt.Sprintf("%d threads at once", op.N)), nil
	case "fork-bomb":
		// Start the program A (sleep) up to N times, until the process limit refuses one;
		// then, with every process still there, write how many started to the FIFO B/peak and
		// wait for a line on the FIFO B/go. The processes end with the child's group (a
		// signal from this thread to a program another thread started may be refused before
		// Landlock ABI 8: see SECURITY.md).
		var procs []*exec.Cmd
		var startErr error
		for len(procs) < op.N {
			c := exec.Command(op.A, "1000")
			if startErr = c.Start(); startErr != nil {
				break
			}
			c.Process.Release() // its pidfd: descriptors are not what this bomb runs out of
			procs = append(procs, c)
		}
		if err := os.WriteFile(filepath.Join(op.B, "peak"), []byte(strconv.Itoa(len(procs))), 0); err != nil {
			return nil, err
		}
		if _, err := os.ReadFile(filepath.Join(op.B, "go")); err != nil {
			return nil, err
		}
		if startErr != nil {
			return nil, startErr
		}
		return []byte(fmt.Sprintf("%d processes started", len(procs))), nil
	case "threads-past-nproc":
		// RLIMIT_NPROC lowered to 1 (the uid has more tasks already), then N threads: the
		// runtime's thread creation fails, by pthread_create in a cgo build (an abort), by clone
		// without cgo (a fatal error).
		if err := syscall.Setrlimit(unix.RLIMIT_NPROC, &syscall.Rlimit{Cur: 1, Max: 1}); err != nil {
			return nil, sysErr("setrlimit", err)
		}
		return runKernelOp(kernelOp{Op: "threads", N: op.N})
	case "loader":
		// Copy the program A into the temp dir (no exec bit, not in Exec) and run the copy
		// through A's ELF interpreter.
		interp := elfInterp(op.A)
		if interp == "" {
			return nil, fmt.Errorf("%s is not a dynamically linked ELF executable", op.A)
		}
		b, err := os.ReadFile(op.A)
		if err != nil {
			return nil, err
		}
		copyPath := filepath.Join(os.TempDir(), "not-in-exec")
		if err := os.WriteFile(copyPath, b, 0o600); err != nil {
			return nil, err
		}
		out, err := exec.Command(interp, copyPath, "ran through the loader").CombinedOutput()
		if err != nil {
			return out, err
		}
		return out, nil
	case "nproc":
		var rl syscall.Rlimit
		if err := syscall.Getrlimit(unix.RLIMIT_NPROC, &rl); err != nil {
			return nil, err
		}
		return []byte(strconv.FormatUint(rl.Cur, 10)), nil
	case "selfsignal":
		if err := unix.Kill(os.Getpid(), syscall.Signal(op.N)); err != nil {
			return nil, sysErr("kill", err)
		}
		// The signal is delivered asynchronously: answering now could beat it. Wait for it
		// (the call's deadline ends a wait the signal does not).
		time.Sleep(time.Minute)
		return nil, errors.New("the signal did not end the process")
	case "read":
		return os.ReadFile(op.A)
	case "exec":
		out, err := exec.Command(op.A).CombinedOutput()
		return out, err
	}
	return nil, fmt.Errorf("unknown op %q", op.Op)
}

// retryEINTR calls f again for as long as a signal interrupts it.
func retryEINTR(f func() error) error {
	for {
		err := f()
		if err != unix.EINTR {
			return err
		}
	}
}

// control runs handler unconfined, in this process, and records the row: the attack must work.
// A control whose failure the kernel decides (an errno in na) makes the attack not applicable
// here; the returned reason says why ("" when the control ran).
func control(t *testing.T, attack, handler string, req []byte, na ...syscall.Errno) (resp []byte, notApplicable string) {
	t.Helper()
	resp, err := lookup(handler)(ctxTimeout(t, 30*time.Second), req)
	name := attack + " [unconfined control]"
	for _, e := range na {
		if errors.Is(err, e) {
			why := fmt.Sprintf("the kernel refuses it without confinement (%v)", err)
			record(name, "ok", "not applicable: "+why, true)
			return nil, why
		}
	}
	got := "ok: " + string(resp)
	if err != nil {
		got = "error: " + err.Error()
	}
	record(name, "ok", got, err == nil)
	if err != nil {
		t.Errorf("%s: the attack does not work even unconfined (%v): it proves nothing", name, err)
	}
	return resp, ""
}

// reportOnly records what a case does with Landlock alone, without judging it: the gap the
// seccomp filter closes.
func reportOnly(t *testing.T, attack, handler string, p Profile, req []byte) {
	t.Helper()
	p.Env = append(p.Env, envTestLayers)
	resp, err := Run(ctxTimeout(t, 30*time.Second), handler, p, req)
	record(attack+" [landlock only]", "(report only)", outcome(resp, err), true)
}

func TestFastOpenConnect(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	allowed := helloServer(t, false)
	forbidden := helloServer(t, true)
	p := Profile{ConnectTCP: []uint16{uint16(allowed.Port)}}
	req := kernelReq("tfo", forbidden.String(), 0)
	const attack = "TCP Fast Open to a port not allowed"
	if why := fastOpenClient(); why != "" {
		record(attack+" [full]", "denied", "not applicable: "+why, true)
		t.Skip("not applicable: " + why)
	}
	call(t, attack, full, Denied, "test.kernel", p, req)
	reportOnly(t, attack, "test.kernel", p, req)
	if resp, _ := control(t, attack, "test.kernel", req); resp != nil && string(resp) != "hello over tcp" {
		t.Errorf("control: %q, want the server's hello", resp)
	}
	// The allowed port still works through connect.
	resp, _ := call(t, "TCP connect to an allowed port (beside Fast Open)", full, 0, "test.dial", p, []byte(allowed.String()))
	if string(resp) != "hello over tcp" {
		t.Errorf("allowed connect: %q", resp)
	}
}

func TestListenWithoutBind(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	const attack = "listen() on an unbound TCP socket (autobind)"
	req := kernelReq("listen-autobind", "", 0)
	p := Profile{ConnectTCP: []uint16{9}} // sockets allowed, no bind port
	call(t, attack, full, Denied, "test.kernel", p, req)
	reportOnly(t, attack, "test.kernel", p, req)
	control(t, attack, "test.kernel", req)
	call(t, "listen() with a bind port granted (BindTCP 0)", full, 0, "test.kernel", Profile{BindTCP: []uint16{0}}, req)
}

func TestMetadataChanges(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	childUID := os.Geteuid()
	if childUID == 0 {
		childUID = UnprivilegedID
	}
	// A file the child owns in its read grant: only confinement keeps its mode as it is.
	own := filepath.Join(f.ro, "own.txt")
	if err := os.WriteFile(own, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(own, childUID, childUID); err != nil && os.Geteuid() == 0 {
		t.Fatal(err)
	}
	mode := func(path string) os.FileMode {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode()
	}
	unchanged := func(what, path string, want os.FileMode) {
		t.Helper()
		if got := mode(path); got != want {
			t.Errorf("%s: %s is now %v, want %v", what, path, got, want)
		}
	}
	p := f.profile()
	rwFile := filepath.Join(f.rw, "acl.txt")
	if err := os.WriteFile(rwFile, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(rwFile, childUID, childUID)
	cases := []struct {
		attack  string
		p       Profile
		req     []byte
		path    string // what must keep its mode in the confined runs
		na      []syscall.Errno
		cleanup func()
		check   func() // after the confined run
	}{
		{attack: "fchmod 0666 a read-granted file it owns", p: p, req: kernelReq("fchmod", own, 0o666), path: own},
		{attack: "fchmod 04755 (setuid) a read-granted file it owns", p: p, req: kernelReq("fchmod", own, 0o4755), path: own},
		{attack: "chmod 0777 the write grant's root", p: p, req: kernelReq("chmod", f.rw, 0o777), path: f.rw},
		{attack: "fchmod 0777 the write grant's root", p: p, req: kernelReq("fchmod", f.rw, 0o777), path: f.rw},
		{attack: "create a setuid file in the write grant", p: p, req: kernelReq("create-setuid", filepath.Join(f.rw, "suid"), 0),
			cleanup: func() { os.Remove(filepath.Join(f.rw, "suid")) }},
		{attack: "POSIX ACL (setxattr) on a write-granted file", p: p, req: kernelReq("acl", rwFile, 0), path: rwFile,
			na: []syscall.Errno{unix.EOPNOTSUPP}},
		{attack: "utimensat on a file with no grant at all", p: Profile{}, req: kernelReq("utimes", f.outFile, 0), path: f.outFile,
			check: func() {
				if st, err := os.Stat(f.outFile); err != nil || st.ModTime().Year() == 1970 {
					t.Errorf("utimensat: %s got the child's time (%v)", f.outFile, err)
				}
			}},
	}
	for _, c := range cases {
		var before os.FileMode
		if c.path != "" {
			before = mode(c.path)
		}
		call(t, c.attack, full, Denied, "test.kernel", c.p, c.req)
		if c.path != "" {
			unchanged(c.attack, c.path, before)
		}
		if c.check != nil {
			c.check()
		}
		if c.cleanup != nil {
			c.cleanup()
		}
		reportOnly(t, c.attack, "test.kernel", c.p, c.req)
		if c.cleanup != nil {
			c.cleanup()
		}
		control(t, c.attack, "test.kernel", c.req, c.na...)
		if c.cleanup != nil {
			c.cleanup()
		}
		if c.path != "" {
			os.Chmod(c.path, before.Perm())
		}
	}
}

func TestFileWatch(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	for _, dir := range []string{f.out, "/etc"} {
		attack := "inotify watch on an ungranted directory " + dir
		req := kernelReq("inotify", dir, 0)
		call(t, attack, full, Denied, "test.kernel", Profile{}, req)
		reportOnly(t, attack, "test.kernel", Profile{}, req)
		control(t, attack, "test.kernel", req)
	}
}

func TestSchedulingOthers(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	v := victim(t)
	pid := v.Process.Pid
	for _, op := range []string{"setpriority", "sched-setaffinity", "ioprio-set"} {
		attack := op + " on another process of the child's uid"
		req := kernelReq(op, "", pid)
		call(t, attack, full, Denied, "test.kernel", Profile{}, req)
		reportOnly(t, attack, "test.kernel", Profile{}, req)
		control(t, attack, "test.kernel", req)
		call(t, op+" on itself (pid 0)", full, 0, "test.kernel", Profile{}, kernelReq(op, "", 0))
	}
}

func TestThreadBomb(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	const attack = "thread bomb: 600 threads at once, no Exec"
	req := kernelReq("threads", "", 600)
	_, e := call(t, attack, full, Limit, "test.kernel", Profile{}, req)
	if e != nil && e.Kind == Limit && e.What != "processes" {
		t.Errorf("limit %q, want processes", e.What)
	}
	control(t, attack, "test.kernel", req)
	call(t, "100 threads at once, under the thread cap", full, 0, "test.kernel", Profile{}, kernelReq("threads", "", 100))
	// The same limit reached through RLIMIT_NPROC rather than the runtime's cap: the runtime
	// then dies where it creates a thread, with cgo in pthread_create (SIGABRT), without cgo
	// in clone (exit 2). Either is the process limit.
	_, e = call(t, "threads past RLIMIT_NPROC (cgo: "+strconv.FormatBool(!allThreadsSyscallWorks())+")", full, Limit, "test.kernel", Profile{}, kernelReq("threads-past-nproc", "", 64))
	if e != nil && e.Kind == Limit && e.What != "processes" {
		t.Errorf("limit %q, want processes", e.What)
	}
}

// TestProcessBound: a child that may start programs gets a process limit on a root host (uid
// 65534's RLIMIT_NPROC, shared by the children) as on an ordinary one, where it is the user's
// count at the child's start plus the default, so that a fork bomb cannot take every process
// the user may have. (The bomb itself is not run here: on a loaded machine 600 forks outlast any
// sensible deadline.)
func TestProcessBound(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep program")
	}
	sleep, _ = filepath.EvalSymlinks(sleep)
	resp, _ := call(t, "RLIMIT_NPROC of a child with Exec, no process limit set", full, 0, "test.kernel", Profile{Exec: []string{sleep}}, kernelReq("nproc", "", 0))
	n, err := strconv.ParseUint(string(resp), 10, 64)
	switch {
	case err != nil:
		t.Fatalf("nproc: %q", resp)
	case os.Geteuid() == 0 && n != DefaultProcesses:
		t.Errorf("RLIMIT_NPROC %d on a root host, want %d", n, DefaultProcesses)
	case os.Geteuid() != 0:
		// The user's count plus the default, and always hostThreads below the host's own
		// soft limit (TestHostForkBomb runs the bomb).
		var own syscall.Rlimit
		syscall.Getrlimit(unix.RLIMIT_NPROC, &own)
		tasks, _ := userTasks(os.Getuid())
		if own.Cur != unix.RLIM_INFINITY && n > own.Cur-min(hostThreads, own.Cur/2) ||
			own.Cur > tasks+2*DefaultProcesses+hostThreads && n < DefaultProcesses {
			t.Errorf("RLIMIT_NPROC %d on an ordinary host (its own %d, %d tasks of the user now), want the user's count plus %d, %d below the host's", n, own.Cur, tasks, DefaultProcesses, hostThreads)
		}
	}
	resp, _ = call(t, "RLIMIT_NPROC of a child without Exec on an ordinary host (the host's, less its headroom)", full, 0, "test.kernel", Profile{}, kernelReq("nproc", "", 0))
	if os.Geteuid() != 0 {
		var own syscall.Rlimit
		syscall.Getrlimit(unix.RLIMIT_NPROC, &own)
		want := own.Cur
		if want != unix.RLIM_INFINITY {
			want -= min(hostThreads, own.Cur/2)
		}
		if string(resp) != strconv.FormatUint(want, 10) {
			t.Errorf("RLIMIT_NPROC without Exec: %s, want %d (the host's %d)", resp, want, own.Cur)
		}
	}
}

// TestProcessLimit: the child's RLIMIT_NPROC for each kind of host and its limits.
func TestProcessLimit(t *testing.T) {
	inf := uint64(unix.RLIM_INFINITY)
	cases := []struct {
		name          string
		limit         uint64
		dropped, exec bool
		cur, max      uint64
		want          uint64
	}{
		{"root host, default", 0, true, true, inf, inf, DefaultProcesses},
		{"root host, the profile's", 40, true, false, inf, inf, 40},
		{"root host, hard limit below the default", 0, true, true, 100, 100, 100},
		{"ordinary host, no limit, Exec", 0, false, true, inf, inf, 30 + DefaultProcesses},
		{"ordinary host, no limit, no Exec", 0, false, false, inf, inf, 0},
		{"ordinary host, prlimit 300:1000, Exec", 0, false, true, 300, 1000, 300 - hostThreads},
		{"ordinary host, prlimit 300:300, Exec", 0, false, true, 300, 300, 300 - hostThreads},
		{"ordinary host, prlimit 300:1000, no Exec", 0, false, false, 300, 1000, 300 - hostThreads},
		{"ordinary host, the profile's under the host's", 100, false, false, 300, 1000, 100},
		{"ordinary host, the profile's over the host's", 1000, false, false, 300, 1000, 300 - hostThreads},
		{"ordinary host, a small limit keeps half", 0, false, true, 40, 40, 20},
		{"ordinary host, a high limit", 0, false, true, 100000, inf, 30 + DefaultProcesses},
	}
	for _, c := range cases {
		got, err := processLimit(c.limit, c.dropped, c.exec, syscall.Rlimit{Cur: c.cur, Max: c.max}, func() (uint64, error) { return 30, nil })
		if err != nil || got != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, got, err, c.want)
		}
		if got != 0 && (got > c.max || !c.dropped && got > c.cur) {
			t.Errorf("%s: %d is over the host's limits %d:%d", c.name, got, c.cur, c.max)
		}
	}
}

// BenchmarkUserTasks is what a child with Exec on an ordinary host spends counting the user's
// processes at its start.
func BenchmarkUserTasks(b *testing.B) {
	for b.Loop() {
		if _, err := userTasks(os.Getuid()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestUserTasks(t *testing.T) {
	n, err := userTasks(os.Getuid())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "\nThreads:\t")
	own, _ := strconv.ParseUint(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]), 10, 64)
	if own == 0 || n < own {
		t.Errorf("userTasks(%d) = %d, below this process's own %d threads", os.Getuid(), n, own)
	}
	if other, err := userTasks(1 << 30); err != nil || other != 0 {
		t.Errorf("userTasks of a uid nobody has = %d, %v", other, err)
	}
}

func TestExecGrants(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	script := filepath.Join(f.ro, "script")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho from the script\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := Profile{ReadPaths: []string{f.ro}, Exec: []string{script}}
	call(t, "Exec lists a shell script, not its shell", full, Unavailable, "test.kernel", p, kernelReq("exec", script, 0))
	control(t, "Exec lists a shell script, not its shell", "test.kernel", kernelReq("exec", script, 0))
	p.Exec = append(p.Exec, "/bin/sh")
	resp, _ := call(t, "Exec lists a shell script and its shell", full, 0, "test.kernel", p, kernelReq("exec", script, 0))
	if !strings.Contains(string(resp), "from the script") {
		t.Errorf("script: %q", resp)
	}
	// The ELF interpreter runs any ELF file the child can read: a documented limit of Exec,
	// not of the confinement (what runs is confined as the child is).
	echo, err := exec.LookPath("echo")
	if err != nil || elfInterp(echo) == "" {
		record("a program outside Exec through the ELF interpreter [full]", "ok (documented limit)", "not applicable: no dynamically linked echo", true)
		return
	}
	resp, _ = call(t, "a program outside Exec through the ELF interpreter (documented limit)", full, 0, "test.kernel", Profile{Exec: []string{echo}}, kernelReq("loader", echo, 0))
	if !strings.Contains(string(resp), "ran through the loader") {
		t.Errorf("loader: %q", resp)
	}
}

// TestDenialKinds: a refusal by the file's own permissions is the tool's failure, not the
// sandbox's; a crash names its signal.
func TestDenialKinds(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	f := newFixture(t)
	locked := filepath.Join(f.ro, "locked.txt")
	if err := os.WriteFile(locked, []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	_, e := call(t, "read a granted file its mode refuses", full, Failed, "test.kernel", f.profile(), kernelReq("read", locked, 0))
	if e != nil && !strings.Contains(e.What, "file's own permissions") {
		t.Errorf("What = %q, want it to name the file's permissions", e.What)
	}
	call(t, "write a read-granted 0666 file (Landlock)", full, Denied, "test.fs", f.profile(), fsReq("append", f.roFile, ""))
	_, e = call(t, "the child kills itself with SIGTERM", full, Crashed, "test.kernel", Profile{}, kernelReq("selfsignal", "", int(syscall.SIGTERM)))
	if e != nil && e.What != "killed by SIGTERM" {
		t.Errorf("What = %q, want killed by SIGTERM", e.What)
	}
}

// helloServer serves "hello over tcp" on a loopback port until the test ends; with readFirst it
// reads the client's first byte before it answers.
func helloServer(t *testing.T, readFirst bool) *net.TCPAddr {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
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
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				if readFirst {
					io.ReadFull(c, make([]byte, 1)) // the Fast Open byte
				}
				c.Write([]byte("hello over tcp"))
			}()
		}
	}()
	return l.Addr().(*net.TCPAddr)
}

// fastOpenClient says why TCP Fast Open cannot be tried here ("" when it can): the kernel sends
// Fast Open data as a client only with bit 1 of net.ipv4.tcp_fastopen.
func fastOpenClient() string {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_fastopen")
	if err != nil {
		return "no /proc/sys/net/ipv4/tcp_fastopen: " + err.Error()
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || v&1 == 0 {
		return "net.ipv4.tcp_fastopen is " + strings.TrimSpace(string(b)) + ": no Fast Open as a client"
	}
	return ""
}

// TestFastOpenControlInterrupted: the Fast Open attack reads its reply on a socket with a receive
// timeout, a read the kernel does not restart after a signal. The Go runtime signals its own
// threads (preemption) whenever it likes: here a server interrupts the reader on purpose before it
// replies, and the attack must still read the reply rather than conclude from EINTR.
func TestFastOpenControlInterrupted(t *testing.T) {
	if why := fastOpenClient(); why != "" {
		t.Skip("not applicable: " + why)
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	served := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			served <- err
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.ReadFull(c, make([]byte, 1)); err != nil {
			served <- err
			return
		}
		n, err := interruptReaders(30 * time.Second)
		if err == nil && n == 0 {
			err = errors.New("no thread was found blocked in read(2)")
		}
		c.Write([]byte("hello over tcp"))
		served <- err
	}()
	resp, err := runKernelOp(kernelOp{Op: "tfo", A: l.Addr().String()})
	if serr := <-served; serr != nil {
		t.Fatalf("the server could not interrupt the reader: %v", serr)
	}
	if err != nil || string(resp) != "hello over tcp" {
		t.Fatalf("interrupted Fast Open read: %q, %v; want the server's hello", resp, err)
	}
}

// interruptReaders waits (up to limit) until a thread of this process sleeps in read(2) on a
// socket, sends it SIGURG (the Go runtime's preemption signal), and waits until it has gone to
// sleep again: the signal woke it with nothing to read, so its read ended with EINTR before the
// caller sends anything. It returns how many threads it interrupted.
func interruptReaders(limit time.Duration) (int, error) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		tids, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return 0, err
		}
		var readers []int
		for _, d := range tids {
			tid, _ := strconv.Atoi(d.Name())
			if socketReader(tid) {
				readers = append(readers, tid)
			}
		}
		if len(readers) == 0 {
			time.Sleep(time.Millisecond)
			continue
		}
		for _, tid := range readers {
			before := sleeps(tid)
			if err := unix.Tgkill(os.Getpid(), tid, unix.SIGURG); err != nil {
				return 0, err
			}
			for sleeps(tid) == before && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
		}
		return len(readers), nil
	}
	return 0, nil
}

// socketReader reports whether thread tid sleeps in read(2) on a socket ("nr fd ..." in its
// syscall file; the Go runtime's own sockets never block in read).
func socketReader(tid int) bool {
	dir := "/proc/self/task/" + strconv.Itoa(tid) + "/"
	b, err := os.ReadFile(dir + "syscall")
	if err != nil {
		return false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 || f[0] != strconv.Itoa(unix.SYS_READ) {
		return false
	}
	fd, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 32)
	if err != nil {
		return false
	}
	if link, err := os.Readlink("/proc/self/fd/" + strconv.FormatUint(fd, 10)); err != nil || !strings.HasPrefix(link, "socket:") {
		return false
	}
	status, err := os.ReadFile(dir + "status")
	return err == nil && strings.Contains(string(status), "\nState:\tS")
}

// sleeps is the number of times thread tid went to sleep (voluntary_ctxt_switches), -1 when
// it is gone.
func sleeps(tid int) int {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return -1
	}
	_, rest, ok := strings.Cut(string(b), "\nvoluntary_ctxt_switches:\t")
	if !ok {
		return -1
	}
	n, _ := strconv.Atoi(strings.TrimSpace(strings.SplitN(rest, "\n", 2)[0]))
	return n
}
