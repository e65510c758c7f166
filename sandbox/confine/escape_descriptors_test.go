//go:build linux

package confine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Attacks on the channel through which the supervisor asks the child for its own descriptors
// (supervisor.childDescriptor, serveDescriptors), from the child's own code. A is a directory
// in the write grant; B is what an op needs besides (a file, a directory, a name), or the
// directory a control uses for the private temp dir.
type descriptorsReq struct {
	Op string `json:"op"`
	A  string `json:"a"`
	B  string `json:"b,omitempty"`
}

func init() {
	Handle("test.descriptors", func(ctx context.Context, req []byte) ([]byte, error) {
		var r descriptorsReq
		if err := json.Unmarshal(req, &r); err != nil {
			return nil, err
		}
		return runDescriptors(r)
	})
}

// errNoSupervisor: the process has no socket pair to a supervisor (it runs unconfined, as a
// control does).
var errNoSupervisor = errors.New("no supervisor's socket pair")

// supervisorSocket returns the child's end of the socket pair to its supervisor: its only
// SOCK_SEQPACKET socket.
func supervisorSocket() (int, error) {
	for fd := 3; fd < 1024; fd++ {
		if typ, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_TYPE); err == nil && typ == unix.SOCK_SEQPACKET {
			return fd, nil
		}
	}
	return -1, errNoSupervisor
}

// hijack takes the supervisor's requests for the child's descriptors away from the child's
// answering goroutine, without a socket of its own (the seccomp filter refuses socketpair): it
// keeps a copy of the socket pair and puts the descriptor probe (no socket) in its number. A
// directory made in probe then sends a request, which the answering goroutine reads (or, not
// yet waiting, leaves) and cannot answer on that number: it ends, either way before it reads
// another. That request,
// unanswered, is ended by messages sent until the supervisor gives up on its answer. From then on each request is answered by
// answer with the descriptor it returns (none, when it returns -1: never answered).
func hijack(probe int, answer func(d int32) int) error {
	sock, err := supervisorSocket()
	if err != nil {
		return err
	}
	real, err := unix.FcntlInt(uintptr(sock), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return err
	}
	if err := unix.Dup3(probe, sock, unix.O_CLOEXEC); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- unix.Mkdirat(probe, "probe", 0o755) }()
	// Messages the child sends before a request are dropped, those after it count against
	// it: one a millisecond until the probe is refused.
	for {
		select {
		case err := <-done:
			if err == nil {
				return errors.New("the probe was answered")
			}
		default:
			unix.Sendmsg(real, []byte("junk-junk"), nil, nil, unix.MSG_DONTWAIT)
			time.Sleep(time.Millisecond)
			continue
		}
		break
	}
	go func() {
		req := make([]byte, 12)
		for {
			n, _, _, _, err := unix.Recvmsg(real, req, nil, 0)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n == 0 {
				return
			}
			if fd := answer(int32(binary.LittleEndian.Uint32(req[8:]))); fd >= 0 {
				if unix.Sendmsg(real, append(req[:8:8], 0), unix.UnixRights(fd), nil, 0) != nil {
					unix.Sendmsg(real, append(req[:8:8], byte(unix.EBADF)), nil, nil, 0)
				}
			}
		}
	}()
	return nil
}

// ownListenerOnThread runs ownListenerMkdir on a thread of its own, which ends with its filter.
func ownListenerOnThread(path string) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		done <- ownListenerMkdir(path)
	}()
	return <-done
}

// ownListenerMkdir installs, on this thread, a seccomp filter that hands mkdirat to a listener
// of its own, which a goroutine answers with SECCOMP_USER_NOTIF_FLAG_CONTINUE, and makes path.
func ownListenerMkdir(path string) error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return os.NewSyscallError("prctl", err)
	}
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // seccomp_data.nr
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_MKDIRAT, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_USER_NOTIF},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	listener, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return os.NewSyscallError("seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER)", errno)
	}
	defer unix.Close(int(listener))
	go func() {
		var n seccompNotif
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, listener, unix.SECCOMP_IOCTL_NOTIF_RECV, uintptr(unsafe.Pointer(&n))); errno != 0 {
			return
		}
		resp := seccompNotifResp{id: n.id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
		unix.Syscall(unix.SYS_IOCTL, listener, unix.SECCOMP_IOCTL_NOTIF_SEND, uintptr(unsafe.Pointer(&resp)))
	}()
	return os.NewSyscallError("mkdirat", unix.Mkdirat(unix.AT_FDCWD, path, 0o755))
}

// made lists which of names exist in dir.
func made(dir string, names ...string) []string {
	var out []string
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// runDescriptors carries out one attack.
func runDescriptors(r descriptorsReq) ([]byte, error) {
	a, tmpDir := r.A, os.TempDir()
	if r.B != "" {
		tmpDir = r.B // the control's stand-in for the private temp dir
	}
	afd, err := unix.Open(a, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(afd)
	protected := func(dirfd int) error {
		fd, err := unix.Openat(dirfd, ".envrc", unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
		if err == nil {
			unix.Close(fd)
		}
		return errors.Join(os.NewSyscallError("mkdirat .git", unix.Mkdirat(dirfd, ".git", 0o755)),
			os.NewSyscallError("openat .envrc", err),
			os.NewSyscallError("symlinkat .vscode", unix.Symlinkat("target", dirfd, ".vscode")))
	}
	switch r.Op {
	case "forged-tmp": // every request answered with the private temp dir, then .git, .envrc, .vscode in A
		// Unconfined, there is no supervisor to answer: the names are made in A. Confined, the
		// supervisor makes them where the answer says, in the temp dir (which may hold them).
		tmp, err := unix.Open(tmpDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(tmp)
		if err := hijack(afd, func(int32) int { return tmp }); err != nil && err != errNoSupervisor {
			return nil, err
		}
		err = protected(afd)
		return []byte("made in the temp dir: " + strings.Join(made(tmpDir, ".git", ".envrc", ".vscode"), " ")), err
	case "forged-kinds": // requests answered with descriptors of every kind, then honestly
		// For each descriptor, .git, .envrc and .vscode, and an ordinary directory, are made in
		// A. Then the answers are honest again (the descriptor asked for): an ordinary
		// directory made in A shows the supervisor still serves.
		var kinds []struct {
			what string
			fd   int
		}
		add := func(what string, fd int, err error) {
			if err == nil {
				kinds = append(kinds, struct {
					what string
					fd   int
				}{what, fd})
			}
		}
		file := filepath.Join(a, "file")
		if err := os.WriteFile(file, nil, 0o644); err != nil {
			return nil, err
		}
		if err := os.Symlink(".", filepath.Join(a, "dirlink")); err != nil {
			return nil, err
		}
		fd, err := unix.Open(file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		add("a file", fd, err)
		fd, err = unix.Open(file, unix.O_PATH|unix.O_CLOEXEC, 0)
		add("an O_PATH file", fd, err)
		fd, err = unix.Open(filepath.Join(a, "dirlink"), unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		add("a symlink to a directory (O_PATH)", fd, err)
		fd, err = unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		add("a socket", fd, err)
		if sock, err := supervisorSocket(); err == nil {
			fd, err := unix.FcntlInt(uintptr(sock), unix.F_DUPFD_CLOEXEC, 0)
			add("the socket pair itself", fd, err)
		}
		fd, err = unix.PidfdOpen(os.Getpid(), 0)
		add("a pidfd", fd, err)
		fd, err = unix.MemfdCreate("x", unix.MFD_CLOEXEC)
		add("a memfd", fd, err)
		fd, err = unix.Eventfd(0, unix.EFD_CLOEXEC)
		add("an eventfd", fd, err)
		fd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC)
		add("an epoll", fd, err)
		var p [2]int
		err = unix.Pipe2(p[:], unix.O_CLOEXEC)
		add("a pipe", p[1], err)
		fd, err = unix.Open("/proc/self", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		add("/proc/self", fd, err)
		fd, err = unix.Open("/proc/self/fd", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		add("/proc/self/fd", fd, err)
		fd, err = unix.Open("/dev/null", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		add("/dev/null", fd, err)
		var mu sync.Mutex
		forged := -1
		if err := hijack(afd, func(d int32) int {
			mu.Lock()
			defer mu.Unlock()
			if forged >= 0 {
				return forged
			}
			return int(d)
		}); err != nil && err != errNoSupervisor {
			return nil, err
		}
		var out []string
		for i, k := range kinds {
			mu.Lock()
			forged = k.fd
			mu.Unlock()
			err := errors.Join(protected(afd), os.NewSyscallError("mkdirat", unix.Mkdirat(afd, "plain"+strconv.Itoa(i), 0o755)))
			out = append(out, fmt.Sprintf("%s: %v", k.what, err))
		}
		mu.Lock()
		forged = -1
		mu.Unlock()
		out = append(out, fmt.Sprintf("honest again: %v", unix.Mkdirat(afd, "after", 0o755)))
		return []byte(strings.Join(out, "; ")), nil
	case "flink": // B (a file outside the write grant) linked into A by its descriptor, written through
		// The descriptor is O_PATH, which Landlock does not check. Unconfined, the link is made
		// and the write changes B.
		fd, err := unix.Open(r.B, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(fd)
		if err := unix.Linkat(fd, "", afd, "linked", unix.AT_EMPTY_PATH); err != nil {
			return nil, &os.LinkError{Op: "linkat (AT_EMPTY_PATH)", Old: r.B, New: filepath.Join(a, "linked"), Err: err}
		}
		return nil, os.WriteFile(filepath.Join(a, "linked"), superviseCfg, 0o644)
	case "flip": // the descriptor's number flips between A and the temp dir while .envrc is made there
		// Each round points the number at A or the temp dir in turn and makes .envrc relative
		// to it, while another goroutine points it at A and at the temp dir in turn: whatever
		// the supervisor is sent, A never holds it.
		tmp, err := unix.Open(tmpDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(tmp)
		d, err := unix.FcntlInt(uintptr(afd), unix.F_DUPFD_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		defer unix.Close(d)
		stop := make(chan struct{})
		flipped := make(chan struct{})
		go func() {
			defer close(flipped)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				src := afd
				if i%2 == 1 {
					src = tmp
				}
				unix.Dup3(src, d, unix.O_CLOEXEC)
			}
		}()
		inA, inTmp := 0, 0
		for i := range 200 {
			src := afd
			if i%2 == 1 {
				src = tmp
			}
			unix.Dup3(src, d, unix.O_CLOEXEC)
			fd, err := unix.Openat(d, ".envrc", unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
			if err != nil {
				continue
			}
			unix.Close(fd)
			if unix.Unlinkat(tmp, ".envrc", 0) == nil {
				inTmp++
			} else if unix.Unlinkat(afd, ".envrc", 0) == nil {
				inA++
			}
		}
		close(stop)
		<-flipped
		if inA > 0 {
			return []byte(fmt.Sprintf("made %d times in A, %d in the temp dir", inA, inTmp)), nil
		}
		return nil, fmt.Errorf("never made in A: .envrc refused (made %d times in the temp dir)", inTmp)
	case "stall": // requests never answered, then a file made through os.Root of A
		// The child's pid goes to B first (by an absolute path: nothing asked), then a marker
		// once it is about to make the file.
		if err := os.WriteFile(filepath.Join(r.B, "pid"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
			return nil, err
		}
		if err := hijack(afd, func(int32) int { return -1 }); err != nil && err != errNoSupervisor {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(r.B, "stalling"), nil, 0o644); err != nil {
			return nil, err
		}
		root, err := os.OpenRoot(a)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return nil, root.WriteFile("stuck", nil, 0o644)
	case "junk": // an empty message and as many more as the socket pair holds, sent unasked
		sock, err := supervisorSocket()
		if err != nil {
			return nil, err
		}
		if err := unix.Sendmsg(sock, nil, nil, nil, unix.MSG_DONTWAIT); err != nil {
			return nil, err
		}
		sent := 1
		for r.B == "flood" && unix.Sendmsg(sock, []byte("junk-junk"), nil, nil, unix.MSG_DONTWAIT) == nil {
			sent++
		}
		return []byte(fmt.Sprintf("%d %d", os.Getpid(), sent)), nil
	case "own-listener": // a notify filter of its own on mkdirat, answered with CONTINUE, then A/.git
		// Filters are run newest first: were the child's own listener allowed, it would get
		// the mkdirat and let the kernel carry it out unchecked. On a thread of its own, which
		// ends with the filter.
		return nil, ownListenerOnThread(filepath.Join(a, ".git"))
	case "exhaust-supervisor": // opens until the supervisor is gone, then a listener of its own and A/.git
		// Each open follows 40 symlinks, each target 2,000 "./" deep: the supervisor walks
		// them all, the child only waits. The opens end once one fails (the supervisor gone).
		deep := strings.Repeat("./", 2000)
		for i := range 40 {
			next := "s" + strconv.Itoa(i+1)
			if i == 39 {
				next = "target"
			}
			if err := os.Symlink(deep+next, filepath.Join(a, "s"+strconv.Itoa(i))); err != nil {
				return nil, err
			}
		}
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		calls := 0
		var last error
		for {
			fd, err := unix.Open(filepath.Join(a, "s0"), unix.O_CREAT|unix.O_WRONLY|unix.O_CLOEXEC, 0o644)
			calls++
			if err != nil {
				last = err
				break
			}
			unix.Close(fd)
		}
		err := ownListenerOnThread(filepath.Join(a, ".git"))
		return nil, fmt.Errorf("%d opens, the last %v; then %w", calls, last, err)
	case "root-file": // a file made through os.Root of A, named B
		root, err := os.OpenRoot(a)
		if err != nil {
			return nil, err
		}
		defer root.Close()
		return []byte(strconv.Itoa(os.Getpid())), root.WriteFile(r.B, nil, 0o644)
	}
	return nil, fmt.Errorf("unknown op %q", r.Op)
}

// TestSupervisedDescriptorAnswers: the child's own code answers the supervisor's requests for
// its descriptors itself. Answered with its private temp dir (which may hold protected names),
// .git, .envrc and .vscode asked for in a workspace directory are made in the temp dir, never
// in the workspace; answered with descriptors of every other kind (a file, a socket, the socket
// pair itself, a symlink, a pidfd, a memfd, /proc/self, ...), nothing protected is made and
// the supervisor still serves honest answers afterwards. The number of the descriptor a name is
// made from, flipped between the workspace and the temp dir while .envrc is made from it, never
// gets .envrc into the workspace. Each has an unconfined control, where nothing is asked and the
// names are made in the workspace.
func TestSupervisedDescriptorAnswers(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("forged answers to the supervisor's requests for descriptors", "refused", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, mk := protectFixture(t)
	prof := Profile{WritePaths: []string{ws}}
	names := []string{".git", ".envrc", ".vscode"}
	run := func(op, a, b string) ([]byte, error) {
		req, _ := json.Marshal(descriptorsReq{Op: op, A: a, B: b})
		return Run(ctxTimeout(t, 20*time.Second), "test.descriptors", prof, req)
	}
	control := func(op string, want ...string) {
		t.Helper()
		dir := t.TempDir()
		_, err := runDescriptors(descriptorsReq{Op: op, A: dir, B: t.TempDir()})
		got := made(dir, want...)
		ok := len(got) == len(want)
		record(fmt.Sprintf("answers to the supervisor: %s [unconfined control]", op), "made", fmt.Sprintf("%v; made %v", err, got), ok)
		if !ok {
			t.Errorf("control %s: %v; made %v, want %v", op, err, got, want)
		}
	}

	control("forged-tmp", names...)
	dir := filepath.Dir(mk(false, "forged-tmp", "keep"))
	resp, err := run("forged-tmp", dir, "")
	left, tmp := made(dir, names...), string(resp)
	ok := len(left) == 0 && err == nil && strings.HasSuffix(tmp, strings.Join(names, " "))
	record("answers to the supervisor: the temp dir, for .git .envrc .vscode in the workspace", "made in the temp dir", fmt.Sprintf("%s; in the workspace: %v", outcome(resp, err), left), ok)
	if !ok {
		t.Errorf("forged-tmp: %s; made in the workspace: %v (want none, and all three in the temp dir)", outcome(resp, err), left)
	}

	control("forged-kinds", names...)
	dir = filepath.Dir(mk(false, "forged-kinds", "keep"))
	resp, err = run("forged-kinds", dir, "")
	left = made(dir, names...)
	after := made(dir, "after")
	ok = err == nil && len(left) == 0 && len(after) == 1
	record("answers to the supervisor: descriptors of every kind, then honest ones", "nothing protected made", fmt.Sprintf("%s; protected made %v; served after: %v", outcome(resp, err), left, after), ok)
	if !ok {
		t.Errorf("forged-kinds: %s; protected names made: %v; the honest answer after made %v", outcome(resp, err), left, after)
	}

	cdir := t.TempDir()
	_, cerr := runDescriptors(descriptorsReq{Op: "flip", A: cdir, B: t.TempDir()})
	record("the descriptor's number flipped under .envrc [unconfined control]", "made in A", outcome(nil, cerr), cerr == nil)
	if cerr != nil {
		t.Errorf("control flip: %v", cerr)
	}
	dir = filepath.Dir(mk(false, "flip", "keep"))
	resp, err = run("flip", dir, "")
	left = made(dir, ".envrc")
	ok = err != nil && strings.Contains(err.Error(), "never made in A") && len(left) == 0
	record("the descriptor's number flipped between the workspace and the temp dir under .envrc", "never in the workspace", outcome(resp, err), ok)
	if !ok {
		t.Errorf("flip: %s; left %v", outcome(resp, err), left)
	}
}

// TestSupervisedLinkByDescriptor: linkat(fd, "", dir, name, AT_EMPTY_PATH), which the supervisor
// carries out for the child's own descriptor, with a descriptor of a file the child may not
// write (O_PATH: Landlock checks no such open): the workspace's .git/config (a read-only mount),
// a file in a read grant, a file outside every grant. Linked into the workspace, each could be
// written through the new name. The controls, unconfined, link and write each; confined, no link
// is made and no file changes.
func TestSupervisedLinkByDescriptor(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("a file linked into the workspace by its descriptor", "refused", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, mk := protectFixture(t)
	base := filepath.Dir(ws)
	ro, out := filepath.Join(base, "ro", "data.txt"), filepath.Join(base, "out", "victim.txt")
	prof := Profile{ReadPaths: []string{filepath.Dir(ro)}, WritePaths: []string{ws}}
	mk(false, ".git", "config")
	if os.Geteuid() == 0 {
		os.Chown(ro, UnprivilegedID, UnprivilegedID) // only the confinement stops a write
	}
	for i, c := range []struct{ what, file string }{
		{"the workspace's .git/config", filepath.Join(ws, ".git", "config")},
		{"a file in a read grant", ro},
		{"a file outside every grant", out},
	} {
		// The control links a copy of the file, in a directory of its own.
		cdir := t.TempDir()
		cfile := filepath.Join(cdir, "victim")
		os.WriteFile(cfile, []byte("x"), 0o644)
		os.Mkdir(filepath.Join(cdir, "a"), 0o755)
		_, cerr := runDescriptors(descriptorsReq{Op: "flink", A: filepath.Join(cdir, "a"), B: cfile})
		b, _ := os.ReadFile(cfile)
		changed := string(b) == string(superviseCfg)
		record("linked by its descriptor, written through: "+c.what+" [unconfined control]", "changed", outcome(nil, cerr), cerr == nil && changed)
		if cerr != nil || !changed {
			t.Errorf("control %s: %v; changed %t", c.what, cerr, changed)
		}
		before, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(mk(false, "flink", strconv.Itoa(i), "keep"))
		req, _ := json.Marshal(descriptorsReq{Op: "flink", A: dir, B: c.file})
		resp, err := Run(ctxTimeout(t, 60*time.Second), "test.descriptors", prof, req)
		now, _ := os.ReadFile(c.file)
		linked := made(dir, "linked")
		ok := err != nil && string(now) == string(before) && len(linked) == 0
		record("linked by its descriptor, written through: "+c.what, "refused", outcome(resp, err), ok)
		if !ok {
			t.Errorf("%s: %s; changed %t; link made %v", c.what, outcome(resp, err), string(now) != string(before), linked)
		}
	}
}

// TestSupervisedDescriptorStall: the child's own code takes the supervisor's requests for its
// descriptors and never answers, then makes a file through os.Root. That call waits; another
// call, of another child, is served meanwhile, and the waiting one ends when its context does,
// leaving no process behind (neither the child nor its supervisor).
func TestSupervisedDescriptorStall(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("the supervisor's requests for descriptors never answered", "ends with its call", "not applicable: "+why, true)
		t.Skip(why)
	}
	cdir := t.TempDir()
	_, cerr := runDescriptors(descriptorsReq{Op: "stall", A: cdir, B: cdir})
	record("the supervisor's requests never answered [unconfined control]", "ok", outcome(nil, cerr), cerr == nil)
	if cerr != nil {
		t.Errorf("control: %v", cerr)
	}
	ws, mk := protectFixture(t)
	prof := Profile{WritePaths: []string{ws}}
	dir := filepath.Dir(mk(false, "stall", "keep"))
	marks := filepath.Dir(mk(false, "marks", "keep"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type result struct {
		resp []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		req, _ := json.Marshal(descriptorsReq{Op: "stall", A: dir, B: marks})
		resp, err := Run(ctx, "test.descriptors", prof, req)
		done <- result{resp, err}
	}()
	// A hang guard only: the child writes the marker as soon as it runs.
	deadline := time.Now().Add(2 * time.Minute)
	for made(marks, "stalling") == nil {
		select {
		case r := <-done:
			t.Fatalf("the stalling call ended before it stalled: %s", outcome(r.resp, r.err))
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the stalling call never reached its stall")
		}
		time.Sleep(5 * time.Millisecond)
	}
	b, _ := os.ReadFile(filepath.Join(marks, "pid"))
	pid, _ := strconv.Atoi(string(b))
	sups := childrenOf(pid)
	// Another call, with a supervisor of its own, is served while this one waits.
	other := filepath.Dir(mk(false, "other", "keep"))
	req, _ := json.Marshal(descriptorsReq{Op: "root-file", A: other, B: "served"})
	resp, err := Run(ctxTimeout(t, 60*time.Second), "test.descriptors", prof, req)
	served := err == nil && len(made(other, "served")) == 1
	record("another call while one's requests go unanswered", "served", outcome(resp, err), served)
	if !served {
		t.Errorf("the other call: %s", outcome(resp, err))
	}
	select {
	case r := <-done:
		t.Errorf("the stalling call ended by itself: %s", outcome(r.resp, r.err))
	default:
	}
	cancel()
	r := <-done
	gone, how := groupGone(pid, 30*time.Second)
	for _, s := range sups {
		if processAlive(s) {
			gone, how = false, fmt.Sprintf("supervisor %d alive", s)
		}
	}
	ok := errors.Is(r.err, context.Canceled) && gone && len(sups) > 0 && len(made(dir, "stuck")) == 0
	record("the supervisor's requests never answered, then the call canceled", "canceled, nothing left", fmt.Sprintf("%s; %d supervisors; %s", outcome(r.resp, r.err), len(sups), how), ok)
	if !ok {
		t.Errorf("stall: %s; supervisors %v; %s; stuck made: %v", outcome(r.resp, r.err), sups, how, made(dir, "stuck"))
	}
}

// TestSupervisedDescriptorJunk: messages the child's own code sends its supervisor unasked (an
// empty one, or as many as the socket pair holds) in one call of a reused worker are no answer
// to anything and do not keep a later call of that worker from making names through os.Root.
func TestSupervisedDescriptorJunk(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("junk sent to the supervisor by an earlier call of a reused worker", "no effect", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, mk := protectFixture(t)
	pool := NewPool(1)
	defer pool.Close()
	for _, how := range []string{"empty", "flood"} {
		prof := Profile{WritePaths: []string{ws}, Reuse: true, ReuseKey: how}
		dir := filepath.Dir(mk(false, "junk-"+how, "keep"))
		waitIdle(t, pool, "test.descriptors", prof, 1)
		req, _ := json.Marshal(descriptorsReq{Op: "junk", A: dir, B: how})
		resp, err := pool.Run(ctxTimeout(t, 60*time.Second), "test.descriptors", prof, req)
		if err != nil {
			t.Fatalf("junk %s: %s", how, outcome(resp, err))
		}
		pid, _, _ := strings.Cut(string(resp), " ")
		var errs []string
		for i := range 4 {
			req, _ := json.Marshal(descriptorsReq{Op: "root-file", A: dir, B: "after" + strconv.Itoa(i)})
			resp, err := pool.Run(ctxTimeout(t, 60*time.Second), "test.descriptors", prof, req)
			if err != nil {
				errs = append(errs, outcome(resp, err))
			} else if string(resp) != pid {
				t.Fatalf("junk %s: call %d served by another worker (%s, not %s)", how, i, resp, pid)
			}
		}
		ok := len(errs) == 0
		record("junk sent to the supervisor ("+how+"), then os.Root in later calls of the worker", "made", fmt.Sprintf("%d of 4 refused: %s", len(errs), strings.Join(errs, "; ")), ok)
		if !ok {
			t.Errorf("after junk (%s, %s): %d of 4 calls failed: %v", how, resp, len(errs), errs)
		}
	}
}

// TestSupervisedOwnListener: the child's own code installs a seccomp filter of its own that
// hands mkdirat to a listener it holds, and answers the call with
// SECCOMP_USER_NOTIF_FLAG_CONTINUE (the kernel runs the newest filter first: such a listener
// would get the call before the supervisor and let it through unchecked), then makes .git. The
// supervisor's filter refuses a filter with a listener (EPERM; while the supervisor's listener
// is open, the kernel would refuse a second one too: EBUSY). The control does it unconfined, on
// a thread of its own, and makes .git.
func TestSupervisedOwnListener(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("a notify filter of the child's own, answered with CONTINUE, then .git", "refused", "not applicable: "+why, true)
		t.Skip(why)
	}
	cdir := t.TempDir()
	_, cerr := runDescriptors(descriptorsReq{Op: "own-listener", A: cdir})
	cmade := made(cdir, ".git")
	record("a notify filter of its own, answered with CONTINUE, then .git [unconfined control]", "made", fmt.Sprintf("%v; made %v", cerr, cmade), cerr == nil && len(cmade) == 1)
	if cerr != nil || len(cmade) != 1 {
		t.Errorf("control: %v; made %v", cerr, cmade)
	}
	ws, mk := protectFixture(t)
	dir := filepath.Dir(mk(false, "own-listener", "keep"))
	req, _ := json.Marshal(descriptorsReq{Op: "own-listener", A: dir})
	resp, err := Run(ctxTimeout(t, 60*time.Second), "test.descriptors", Profile{WritePaths: []string{ws}}, req)
	left := made(dir, ".git")
	ok := err != nil && strings.Contains(err.Error(), "NEW_LISTENER") && len(left) == 0
	record("a notify filter of the child's own, answered with CONTINUE, then .git", "refused", outcome(resp, err), ok)
	if !ok {
		t.Errorf("own-listener: %s; made %v", outcome(resp, err), left)
	}
}

// TestSupervisorWornOut: the child's own code spends the supervisor's CPU limit (the child's
// own, which the supervisor gets): each open it makes follows 40 symlinks whose targets are
// 2,000 "./" deep, which the supervisor walks while the child waits. The supervisor dies of it
// (SIGKILL at the hard limit) before the child; its listener goes, and with it the kernel's
// refusal of a second one. The child then installs a notify filter of its own on mkdirat,
// answers with SECCOMP_USER_NOTIF_FLAG_CONTINUE, and makes .git (the control of
// TestSupervisedOwnListener does so unconfined). The filter is refused: nothing is made, nor
// moved aside after the call.
func TestSupervisorWornOut(t *testing.T) {
	requireConfinement(t)
	t.Parallel()
	if m, why := ProtectionMode(); m != ModeSupervised {
		record("the supervisor worn out, then a notify filter of the child's own and .git", "refused", "not applicable: "+why, true)
		t.Skip(why)
	}
	ws, mk := protectFixture(t)
	dir := filepath.Dir(mk(false, "worn-out", "keep"))
	req, _ := json.Marshal(descriptorsReq{Op: "exhaust-supervisor", A: dir})
	prof := Profile{WritePaths: []string{ws}, Limits: Limits{CPUSeconds: 2}}
	resp, err := Run(ctxTimeout(t, 3*time.Minute), "test.descriptors", prof, req)
	left := leftBehind(filepath.Join(dir, ".git"))
	ok := err != nil && left == ""
	record("the supervisor worn out, then a notify filter of the child's own and .git", "refused", outcome(resp, err), ok)
	if !ok {
		t.Errorf("worn out: %s; left behind: %q", outcome(resp, err), left)
	}
}
