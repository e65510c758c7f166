//go:build linux

package confine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"maps"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/toolexplorer/toolexplorer/internal/childmark"
	"github.com/toolexplorer/toolexplorer/sandbox/confine/internal/prestart"
)

// The supervisor (ModeSupervised)
//
// Landlock cannot refuse a name inside a grant, and the seccomp filter cannot read the name a
// call makes: it lies in the caller's memory, which another thread may change between any check
// and the kernel's own read of it (so a supervisor that checks the path and lets the call go on,
// SECCOMP_USER_NOTIF_FLAG_CONTINUE, is no check at all). In ModeSupervised the calls that make a
// name (open, openat and creat with O_CREAT; mkdir, mkdirat; symlink, symlinkat; link, linkat;
// rename, renameat, renameat2; mknod is refused outright, openat2 gets ENOSYS) stop in a second
// seccomp filter that hands them to a supervisor process (SECCOMP_RET_USER_NOTIF). The
// supervisor reads each path once into its own memory, resolves the directory the name goes in
// as the kernel would (from the caller's working directory or descriptor, following symlinks,
// and a last component that is a symlink where open follows it), makes the name itself from
// that copy, and hands the outcome back: a descriptor through SECCOMP_IOCTL_NOTIF_ADDFD, its
// number then the call's result, or the call's result or errno. The kernel never reads the caller's
// path again, so a thread that changes it after the check changes nothing. A protected last
// component (see [ProtectedNames]) is refused with EACCES (EEXIST where it exists and the call
// fails so on an existing name), anywhere but in the child's private temp dir, its own tmpfs,
// from which nothing reaches a write grant (rename and link across mounts fail with EXDEV). As
// no protected name can be made, and those that exist are read-only mounts, no name is ever
// made under one either.
//
// The supervisor has no more rights than the child. The child starts it (the same binary,
// re-executed) as early as it can, from package initialisation (package prestart), so that the
// supervisor's own start overlaps the child's: in its user and mount namespaces (one mount
// namespace, shared, so the child's later mounts are the supervisor's too), with its uid, gid
// and groups (a child that still has to switch its user starts it afterwards), from a thread with
// no_new_privs and no inheritable or ambient capability, so that it starts with no capability;
// it checks both before anything else, closes every descriptor but the socket pair, and serves
// from its package init (the host's other packages are not initialised in it, nor does its main
// run). The child gives it its rlimits (prlimit, once they are set) and, with the listener, its
// Landlock ruleset, before the child's own handler runs; the supervisor's thread that receives
// the calls and makes the names enforces that very ruleset on itself before serving any call.
// Its other thread, which only opens the /proc files of the programs the child starts (their
// memory, working directory, descriptors, umask: numbers the kernel gives, never a path a
// caller names), has no Landlock domain, as Landlock lets only an ancestor domain (or
// none) reach a confined process. Both run under the narrowest seccomp filter. The child is not
// dumpable (see [Main]): it hands its memory, working directory and umask over with the
// listener; the supervisor notes (and lets go on) chdir, fchdir and umask, after which the
// child's umask is read from /proc. A name the child's own code makes relative to another
// descriptor of its own (os.Root, openat), from an O_TMPFILE descriptor, or relative to its
// working directory once it changed it, needs that descriptor: the supervisor asks the child
// for it over the socket pair, which a goroutine of the child answers (see serveDescriptors).
// The answer is not trusted and need not be: whatever descriptor the child sends, rightly or
// not, the supervisor makes the name as the child could itself (under the child's ruleset, in
// its namespaces), and refuses a protected one wherever it would go. A child that does not
// answer stalls its own calls that make names until its call ends. The programs it starts are
// dumpable, as exec makes them: theirs are opened in /proc. A seccomp filter with a listener of
// the caller's own is refused: the kernel runs the newest filter first, so that its listener
// would get the calls before the supervisor, and could let them go on unchecked once the
// supervisor is gone (the kernel refuses a second listener only while the first is open).
// A path through /proc/self (/dev/stdout, /dev/fd/N) names the supervisor there: making a name
// through one is refused with EACCES.
//
// The actor never waits on a caller's behalf: an open with O_CREAT of an
// existing FIFO, which waits for the FIFO's other end, is opened again (without O_CREAT: it
// makes nothing) by a thread of its own that enforces the same ruleset and answers the call
// when that open returns (see supervisor.waitOpen), so that the actor goes on with the calls
// of the child and its other programs meanwhile.

// The supervisor's descriptor: its end of the socket pair (see package prestart).
const supervisorSockFD = 3

// supervisorFDs is how many descriptors the child hands the supervisor: the listener, the
// child's memory, its working directory (its private temp dir) and its Landlock ruleset.
const supervisorFDs = 4

// supervisorSupport reports why this kernel cannot run the supervisor, or nil:
// SECCOMP_RET_USER_NOTIF (5.0), SECCOMP_IOCTL_NOTIF_ADDFD (5.9) and
// SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19), without which a signal to the caller (Go sends
// them to preempt goroutines) would make it restart a call the supervisor already carried out.
func supervisorSupport() error {
	action := uint32(unix.SECCOMP_RET_USER_NOTIF)
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); errno != 0 {
		return fmt.Errorf("seccomp user notification unavailable: %w", errno)
	}
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return err
	}
	release := unix.ByteSliceToString(u.Release[:])
	var major, minor int
	if _, err := fmt.Sscanf(release, "%d.%d", &major, &minor); err != nil {
		return fmt.Errorf("kernel release %q: %w", release, err)
	}
	if major < 5 || major == 5 && minor < 19 {
		return fmt.Errorf("kernel %s is older than 5.19 (seccomp's SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)", release)
	}
	// Yama's ptrace_scope 1 or more would keep the supervisor, which is no ancestor of the
	// programs a child starts, out of their memory: every name they make would be refused.
	if b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope"); err == nil && strings.TrimSpace(string(b)) != "0" {
		return fmt.Errorf("the Yama security module's ptrace_scope is %s: the supervisor could not read the paths of the programs a child starts", strings.TrimSpace(string(b)))
	}
	return nil
}

// notifyFilter builds the second filter: the calls that make a name go to the supervisor,
// open and openat only with O_CREAT; a filter with a listener of the caller's own is refused.
// Everything else, and every other architecture (which the first filter kills), is allowed by it.
func notifyFilter(a *seccompArch) ([]bpf.RawInstruction, error) {
	const retNotify = unix.SECCOMP_RET_USER_NOTIF
	var b progBuilder
	b.load(seccompDataArch)
	b.jumpIf(bpf.JumpEqual, a.audit, "", lAllow)
	b.load(seccompDataNr)
	for _, s := range a.create {
		b.jumpIf(bpf.JumpEqual, s.nr, "notify", "")
	}
	for _, nr := range slices.Sorted(maps.Keys(a.noted)) {
		b.jumpIf(bpf.JumpEqual, uint32(nr), "notify", "")
	}
	for _, m := range a.createFlags {
		b.jumpIf(bpf.JumpEqual, m.nr, modeLabel(m.arg), "")
	}
	b.jumpIf(bpf.JumpEqual, unix.SYS_SECCOMP, "seccomp", "")
	b.label(lAllow)
	b.ret(retAllow)
	b.label("notify")
	b.ret(retNotify)
	// seccomp(SECCOMP_SET_MODE_FILTER) with a listener of the caller's own: refused. The kernel
	// runs the newest filter first, so that such a listener would get the calls that make
	// names before the supervisor and could let them go on unchecked. While the supervisor's
	// listener is open the kernel refuses a second one (EBUSY); once the supervisor is gone (it
	// dies of the CPU limit it shares with the child, say, which the child can spend on its
	// behalf), nothing else would.
	b.label("seccomp")
	b.load(argLow(0))
	b.ins = append(b.ins, bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.SECCOMP_SET_MODE_FILTER, SkipFalse: 2})
	b.load(argLow(1))
	b.refuseIf(bpf.JumpBitsSet, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER)
	for _, i := range slices.Compact(slices.Sorted(func(yield func(int) bool) {
		for _, m := range a.createFlags {
			if !yield(m.arg) {
				return
			}
		}
	})) {
		b.label(modeLabel(i))
		b.load(argLow(i))
		b.ins = append(b.ins, bpf.JumpIf{Cond: bpf.JumpBitsSet, Val: unix.O_CREAT, SkipTrue: 1}, bpf.RetConstant{Val: retAllow}, bpf.RetConstant{Val: retNotify})
	}
	prog, err := b.resolve()
	if err != nil {
		return nil, err
	}
	return bpf.Assemble(prog)
}

// supervisorLink is the child's side of a started supervisor.
type supervisorLink struct {
	sup          *prestart.Supervisor
	mem, ruleset int // the child's /proc/self/mem and Landlock ruleset, for the supervisor
	closed       bool
}

// takeSupervisor returns the child's supervisor: the one package prestart started while the
// child's packages were initialised, if it has the credentials the child has now, or one started
// now. It runs once the child's credentials are final, before its mounts.
func takeSupervisor() (*supervisorLink, error) {
	cred, err := prestart.Current()
	if err != nil {
		return nil, fmt.Errorf("supervisor: %w", err)
	}
	sup := prestart.Early
	prestart.Early = nil
	if sup != nil && !sup.Cred.Equal(cred) {
		// Started before the child switched its user: it cannot serve. It ends once its
		// end of the socket pair is gone, and with the child.
		unix.Close(sup.Sock)
		sup = nil
	}
	if sup == nil {
		if sup, err = prestart.Start(); err != nil {
			return nil, fmt.Errorf("supervisor: starting it: %w", err)
		}
	}
	return &supervisorLink{sup: sup, mem: -1, ruleset: -1}, nil
}

// limit gives the supervisor the child's resource limits, every one of them (the child's are
// set, and no higher than those the supervisor started with).
func (l *supervisorLink) limit() error {
	for res := 0; res <= unix.RLIMIT_RTTIME; res++ {
		var lim unix.Rlimit
		if err := unix.Prlimit(0, res, nil, &lim); err != nil {
			return fmt.Errorf("supervisor: getrlimit(%d): %w", res, err)
		}
		if err := unix.Prlimit(l.sup.Pid, res, &lim, nil); err != nil {
			return fmt.Errorf("supervisor: prlimit(%d): %w", res, err)
		}
	}
	return nil
}

// keepRuleset keeps a copy of the child's Landlock ruleset (not yet enforced) for the supervisor.
func (l *supervisorLink) keepRuleset(rulesetFD int) (err error) {
	if l.ruleset, err = unix.FcntlInt(uintptr(rulesetFD), unix.F_DUPFD_CLOEXEC, 0); err != nil {
		return fmt.Errorf("supervisor: ruleset: %w", err)
	}
	return nil
}

func (l *supervisorLink) close() {
	if l == nil || l.closed {
		return
	}
	l.closed = true
	for _, fd := range []int{l.sup.Sock, l.mem, l.ruleset} {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// handOver installs the filter that sends the calls that make a name to the supervisor, on
// every thread, and sends the supervisor its listener with the child's memory, working
// directory and Landlock ruleset. The child keeps no descriptor of the listener: one that could
// answer its own calls would carry them out unchecked. It keeps the socket pair, on which a
// goroutine answers the supervisor's requests for its descriptors (serveDescriptors).
func (l *supervisorLink) handOver() error {
	defer l.close()
	raw, err := notifyFilter(nativeSeccomp)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	cwd, err := unix.Open(".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("supervisor: the working directory: %w", err)
	}
	defer unix.Close(cwd)
	// The umask, read before the filter: from then on umask(2) waits for the supervisor.
	umask := unix.Umask(0)
	unix.Umask(umask)
	flags := unix.SECCOMP_FILTER_FLAG_TSYNC | unix.SECCOMP_FILTER_FLAG_TSYNC_ESRCH | unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
	listener, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, uintptr(flags), uintptr(unsafe.Pointer(&prog)))
	runtime.KeepAlive(filter)
	if errno != 0 {
		return fmt.Errorf("supervisor: seccomp(SECCOMP_FILTER_FLAG_NEW_LISTENER): %w", errno)
	}
	defer unix.Close(int(listener))
	rights := unix.UnixRights(int(listener), l.mem, cwd, l.ruleset)
	if err := unix.Sendmsg(l.sup.Sock, []byte{byte(umask), byte(umask >> 8)}, rights, nil, unix.MSG_NOSIGNAL); err != nil {
		return fmt.Errorf("supervisor: handing the listener over: %w", err)
	}
	go serveDescriptors(l.sup.Sock)
	l.sup.Sock = -1 // the goroutine's now
	return nil
}

// serveSupervisor is the supervisor's whole life: it sets itself up while the child confines
// itself, takes what the child hands over, and answers the child's calls until the child is
// gone. It returns the exit status.
func serveSupervisor() int {
	runtime.LockOSThread() // this thread reads the callers: it never gets a Landlock domain
	os.Unsetenv(envMarker)
	os.Unsetenv(prestart.EnvRole)
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "confine supervisor: %v\n", err)
		return exitUnavailable
	}
	// Only stdin, stdout, stderr and the socket pair stay: a descriptor the parent leaked to the
	// child (which closes its own copy as it starts) goes here too.
	closeInherited(supervisorSockFD+1, -1)
	child := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0, 0, 0); err != nil {
		return fail(err)
	}
	if os.Getppid() != child || child == 1 {
		return fail(errors.New("the child is gone"))
	}
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fail(err)
	}
	if err := checkUnprivileged(); err != nil {
		return fail(err)
	}
	unix.Umask(0) // modes are the caller's, its umask applied here
	act := startActor()
	raw, err := BuildSeccomp(SeccompPolicy{})
	if err != nil {
		return fail(err)
	}
	// What the child hands over once it has confined itself (its rlimits it has set on this
	// process by then).
	buf, oob := make([]byte, 2), make([]byte, unix.CmsgSpace(supervisorFDs*4))
	var oobn int
	for {
		_, oobn, _, _, err = unix.Recvmsg(supervisorSockFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return fail(fmt.Errorf("receiving the listener: %w", err))
	}
	var fds []int
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
		fds, _ = unix.ParseUnixRights(&msgs[0])
	}
	if len(fds) != supervisorFDs {
		return fail(fmt.Errorf("received %d descriptors, want %d", len(fds), supervisorFDs))
	}
	listener, mem, cwd, ruleset := fds[0], fds[1], fds[2], fds[3]
	// The child's working directory is its private temp dir: this process's too.
	var tmp unix.Statx_t
	if err := unix.Statx(cwd, "", unix.AT_EMPTY_PATH, unix.STATX_MNT_ID, &tmp); err != nil {
		return fail(fmt.Errorf("the private temp dir: %w", err))
	}
	if err := unix.Fchdir(cwd); err != nil {
		return fail(fmt.Errorf("the private temp dir: %w", err))
	}
	if err := act.restrict(ruleset); err != nil {
		return fail(err)
	}
	if err := installFilter(raw); err != nil {
		return fail(err)
	}
	s := &supervisor{listener: listener, childMem: mem, childCwd: cwd, child: child, tmpMnt: tmp.Mnt_id, sock: supervisorSockFD,
		childUmask: uint32(buf[0]) | uint32(buf[1])<<8, reader: make(chan func()), readerDone: make(chan struct{}),
		act: act, waiting: make(chan struct{}, maxWaiting)}
	// The actor serves; this thread opens what it asks for in /proc, until the child is gone.
	exit := make(chan int, 1)
	go act.do(func() { exit <- s.serve() })
	for {
		select {
		case f := <-s.reader:
			f()
			s.readerDone <- struct{}{}
		case code := <-exit:
			return code
		}
	}
}

// checkUnprivileged checks what the child's thread that started the supervisor made sure of
// (see package prestart): no_new_privs, and no capability in any set. Nothing of the child's is
// handed to a process that has more rights than the child.
func checkUnprivileged() error {
	nnp, err := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	if err != nil || nnp != 1 {
		return fmt.Errorf("no_new_privs is not set (%d, %v)", nnp, err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data != [2]unix.CapUserData{} {
		return fmt.Errorf("started with capabilities: %+v", data)
	}
	return nil
}

// onReader runs f on the thread that has no Landlock domain, which may open the /proc files of
// the child's programs, and waits for it.
func (s *supervisor) onReader(f func()) {
	s.reader <- f
	<-s.readerDone
}

// supervisor answers the calls of one child and its programs.
type supervisor struct {
	listener, childMem, childCwd int
	child                        int    // the child's pid
	childUmask                   uint32 // the child's umask when it handed the listener over
	tmpMnt                       uint64 // the mount of the child's private temp dir
	// cwdGone and umaskGone: the child changed its working directory (childCwd is stale),
	// or its umask (which is then read from /proc).
	cwdGone, umaskGone bool
	// sock is the socket pair, through which the child's own descriptors are asked for (-1
	// once the child is gone from it).
	sock int
	// reader takes functions to run on the thread without a Landlock domain.
	reader     chan func()
	readerDone chan struct{}
	// act is the thread that makes names; waiting holds a token per open that waits.
	act     *actor
	waiting chan struct{}
}

// seccompNotif is struct seccomp_notif.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// seccompNotifResp is struct seccomp_notif_resp.
type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// seccompNotifAddfd is struct seccomp_notif_addfd.
type seccompNotifAddfd struct {
	id         uint64
	flags      uint32
	srcfd      uint32
	newfd      uint32
	newfdFlags uint32
}

func (s *supervisor) ioctl(req uint, arg unsafe.Pointer) (uintptr, error) {
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(s.listener), uintptr(req), uintptr(arg))
	if errno != 0 {
		return r, errno
	}
	return r, nil
}

// serve receives and answers notifications until the listener has no caller left.
func (s *supervisor) serve() int {
	for {
		var n seccompNotif
		if _, err := s.ioctl(unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&n)); err != nil {
			switch err {
			case unix.EINTR, unix.ENOENT: // a signal here; a caller gone before it was received
				continue
			}
			return 0 // the child and its programs are gone
		}
		if nr, noted := nativeSeccomp.noted[n.nr]; noted {
			// The child's working directory and umask, handed over at the start, are no
			// longer known once they change: its relative paths are refused from then on, its
			// umask read from /proc. The call itself goes on (nothing is checked for it, so the
			// kernel may read its arguments).
			if s.isChild(int(n.pid)) {
				if nr.name == "umask" {
					s.umaskGone = true
				} else {
					s.cwdGone = true
				}
			}
			resp := seccompNotifResp{id: n.id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
			s.ioctl(unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
			continue
		}
		fd, val, errno, wait := s.handle(&n)
		if wait >= 0 {
			s.waitOpen(n.id, wait, int(val))
			continue
		}
		s.answer(n.id, fd, val, errno)
	}
}

// answer answers the call id: with the descriptor fd (fd >= 0, val the open flags), or with
// val and errno. It closes fd.
func (s *supervisor) answer(id uint64, fd int, val int64, errno unix.Errno) {
	if fd >= 0 {
		// The descriptor goes into the caller's table, then its number is the answer.
		// Not in one step (SECCOMP_ADDFD_FLAG_SEND): the kernel marks the call answered
		// before the caller takes the descriptor, and a signal that interrupts this
		// ioctl then withdraws the descriptor and leaves the caller with 0 (seen as a
		// write on descriptor 0 under load). The caller waits killably meanwhile
		// (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV): no restart of its call can leak it.
		add := seccompNotifAddfd{id: id, srcfd: uint32(fd)}
		if val&unix.O_CLOEXEC != 0 {
			add.newfdFlags = unix.O_CLOEXEC
		}
		newfd, err := s.ioctl(unix.SECCOMP_IOCTL_NOTIF_ADDFD, unsafe.Pointer(&add))
		unix.Close(fd)
		val, errno = int64(newfd), 0
		if err != nil {
			val, errno = 0, errnoOf(err) // the caller is gone, or its table is full (EMFILE)
		}
	}
	resp := seccompNotifResp{id: id, val: val, error: -int32(errno)}
	s.ioctl(unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

// maxWaiting is how many opens may wait at once (see waitOpen), each on a thread of its own.
const maxWaiting = 16

// waitOpen carries out an open that waits (an existing FIFO's, see createOp.openFile): the
// file of descriptor src is opened again with the caller's flags, on a thread of its own that
// enforces the child's Landlock ruleset, which answers the call id once that open returns. The
// open waits there as the caller's own would (for the FIFO's other end), while the actor goes
// on with the other calls; it makes nothing (O_CREAT is dropped: the file is src's). At most
// maxWaiting opens wait at once: one more is refused with EAGAIN. One whose caller is gone
// waits until the FIFO opens or the supervisor ends, with the child.
func (s *supervisor) waitOpen(id uint64, src, flags int) {
	select {
	case s.waiting <- struct{}{}:
	default:
		unix.Close(src)
		s.answer(id, -1, 0, unix.EAGAIN)
		return
	}
	s.act.goRestricted(func(err error) {
		defer func() { <-s.waiting }()
		fd := -1
		if err == nil {
			// Through /proc/self/fd: the file itself, not a name that may have changed.
			fd, err = unix.Open("/proc/self/fd/"+strconv.Itoa(src), flags&^(unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW)|unix.O_CLOEXEC, 0)
		}
		unix.Close(src)
		if err != nil {
			s.answer(id, -1, 0, errnoOf(err))
			return
		}
		s.answer(id, fd, int64(flags), 0)
	})
}

// caller is what the supervisor opened of a caller before it checked that the notification is
// still valid (the pid could otherwise name another process by then).
type caller struct {
	mem   int
	umask uint32
	bases []int // one per path argument: the directory a relative path starts from
}

func (c *caller) close() {
	for _, fd := range append([]int{c.mem}, c.bases...) {
		if fd >= 0 {
			unix.Close(fd)
		}
	}
}

// handle carries out one call. It returns a descriptor to hand over (fd >= 0, val the open
// flags), a file to open again on a thread that may wait (wait >= 0, val the open flags), or the
// call's result val and errno.
func (s *supervisor) handle(n *seccompNotif) (fd int, val int64, errno unix.Errno, wait int) {
	call, ok := nativeSeccomp.createCall(n.nr)
	if !ok {
		return -1, 0, unix.ENOSYS, -1
	}
	arg := func(i int) uint64 { return n.args[i] }
	dirfd := func(i int) int32 {
		if i < 0 {
			return unix.AT_FDCWD
		}
		return int32(arg(i))
	}
	c := &caller{mem: -1}
	defer c.close()
	var dirfds []int32
	for _, p := range call.paths {
		dirfds = append(dirfds, dirfd(p.dirfd))
	}
	if err := s.open(c, int(n.pid), dirfds); err != nil {
		return -1, 0, unix.EACCES, -1
	}
	id := n.id
	if _, err := s.ioctl(unix.SECCOMP_IOCTL_NOTIF_ID_VALID, unsafe.Pointer(&id)); err != nil {
		return -1, 0, unix.ENOENT, -1 // the caller is gone; the answer goes nowhere
	}
	// One copy of each string, read once: the call is carried out from it.
	var strs []string
	for i, p := range call.paths {
		str, err := readString(c.mem, arg(p.path))
		if err != nil {
			return -1, 0, errnoOf(err), -1
		}
		if c.bases[i] < 0 && !strings.HasPrefix(str, "/") && !(str == "" && call.atFlags >= 0) {
			return -1, 0, unix.EACCES, -1 // a directory of the caller's the supervisor cannot reach
		}
		strs = append(strs, str)
	}
	var target string
	if call.target >= 0 {
		var err error
		if target, err = readString(c.mem, arg(call.target)); err != nil {
			return -1, 0, errnoOf(err), -1
		}
	}
	op := createOp{name: call.name, bases: c.bases, paths: strs, target: target, tmpMnt: s.tmpMnt, file: -1, wait: -1}
	if call.flags >= 0 {
		op.flags = int(int32(arg(call.flags)))
	}
	if call.mode >= 0 {
		op.mode = uint32(arg(call.mode)) &^ c.umask
	}
	if call.name == "creat" {
		op.flags = unix.O_CREAT | unix.O_WRONLY | unix.O_TRUNC
	}
	if call.atFlags >= 0 {
		op.atFlags = int(int32(arg(call.atFlags)))
	}
	if call.renFlags >= 0 {
		op.renFlags = uint(uint32(arg(call.renFlags)))
	}
	if call.atFlags >= 0 && op.atFlags&unix.AT_EMPTY_PATH != 0 && len(strs) > 0 && strs[0] == "" && call.name == "linkat" {
		// linkat(fd, "", ...): the file is the descriptor itself (an O_TMPFILE file, say),
		// opened with the bases (-1: out of reach, refused once the name is checked).
		op.byFD, op.file = true, c.bases[0]
	}
	r := op.run()
	if r.err != nil {
		return -1, 0, errnoOf(r.err), -1
	}
	if r.fd >= 0 || r.wait >= 0 {
		return r.fd, int64(op.flags), 0, r.wait
	}
	return -1, 0, 0, -1
}

// open opens what the supervisor needs of the caller tid: its memory, its umask, and for each
// path the directory a relative path starts from (its working directory, AT_FDCWD, or its
// descriptor dirfd; -1 when it cannot be reached, which refuses a relative path only). The
// child's own came with the listener, or are asked of the child (it is not dumpable: its
// descriptors are out of reach in /proc); a program's are opened in /proc by the thread without
// a Landlock domain.
func (s *supervisor) open(c *caller, tid int, dirfds []int32) (err error) {
	if s.isChild(tid) {
		if c.mem, err = unix.FcntlInt(uintptr(s.childMem), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			return err
		}
		c.umask = s.childUmask
		if s.umaskGone {
			s.onReader(func() { c.umask, err = umaskOf(tid) })
		}
		for _, d := range dirfds {
			base := -1
			if d == unix.AT_FDCWD && !s.cwdGone {
				base, _ = unix.FcntlInt(uintptr(s.childCwd), unix.F_DUPFD_CLOEXEC, 0)
			} else {
				base = s.childDescriptor(d)
			}
			c.bases = append(c.bases, base)
		}
		return err
	}
	s.onReader(func() {
		if c.mem, err = unix.Open(fmt.Sprintf("/proc/%d/mem", tid), unix.O_RDONLY|unix.O_CLOEXEC, 0); err != nil {
			return
		}
		if c.umask, err = umaskOf(tid); err != nil {
			return
		}
		for _, d := range dirfds {
			what := "cwd"
			if d != unix.AT_FDCWD {
				what = "fd/" + strconv.Itoa(int(d))
			}
			base, err := unix.Open(fmt.Sprintf("/proc/%d/%s", tid, what), unix.O_PATH|unix.O_CLOEXEC, 0)
			if err != nil || d < 0 && d != unix.AT_FDCWD {
				base = -1
			}
			c.bases = append(c.bases, base)
		}
	})
	return err
}

// maxStaleAnswers is how many messages the supervisor reads for one request before it gives up
// on the answer: a child may send what was not asked for (its code may write to the socket).
const maxStaleAnswers = 16

// maxQueued is how many messages the supervisor drops, unread, before it sends a request: more
// than the socket pair holds (its send buffer bounds it to a few hundred), so that only a child
// that keeps sending as fast as they are dropped has its request refused.
const maxQueued = 1024

// childDescriptor asks the child for its descriptor d (AT_FDCWD: its working directory) and
// returns the one it sends, or -1 when it sends none (d is not open) or is gone. The child's
// answer is not trusted: see the package's notes on the supervisor. Each request carries a
// random nonce that the answer repeats, so that nothing the child sent before it was asked
// (say, in an earlier call of a reused worker) is taken for the answer; what it sent before is
// dropped first, so that it does not stand in the answer's way either.
func (s *supervisor) childDescriptor(d int32) int {
	if s.sock < 0 || d < 0 && d != unix.AT_FDCWD {
		return -1
	}
	ans, oob := make([]byte, 9), make([]byte, unix.CmsgSpace(4))
	drained := false
	for range maxQueued {
		_, fds, _, err := s.receive(ans, oob, unix.MSG_DONTWAIT)
		closeAll(fds)
		if err == unix.EAGAIN {
			drained = true
			break
		}
		if err != nil {
			s.dropSock()
			return -1
		}
	}
	if !drained {
		return -1
	}
	nonce := rand.Uint64()
	var req [12]byte
	binary.LittleEndian.PutUint64(req[:8], nonce)
	binary.LittleEndian.PutUint32(req[8:], uint32(d))
	if err := unix.Sendmsg(s.sock, req[:], nil, nil, unix.MSG_NOSIGNAL); err != nil {
		s.dropSock()
		return -1
	}
	for range maxStaleAnswers {
		n, fds, whole, err := s.receive(ans, oob, 0)
		if err != nil {
			s.dropSock()
			return -1
		}
		answer := whole && n == len(ans) && binary.LittleEndian.Uint64(ans[:8]) == nonce
		if answer && ans[8] == 0 && len(fds) == 1 {
			return fds[0]
		}
		closeAll(fds)
		if answer {
			return -1 // the child has no such descriptor
		}
	}
	return -1
}

// receive reads one message of the child's into ans (oob for its descriptors) and returns its
// length, the descriptors it carried, and whether it came whole (neither it nor its descriptors
// cut short). A message of no bytes is one the child sent, not its end closed (recvmsg returns
// 0 for both): poll tells them apart, and a closed end is io.EOF.
func (s *supervisor) receive(ans, oob []byte, flags int) (n int, fds []int, whole bool, err error) {
	for {
		var oobn, rflags int
		n, oobn, rflags, _, err = unix.Recvmsg(s.sock, ans, oob, flags|unix.MSG_CMSG_CLOEXEC)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, nil, false, err
		}
		if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
			for i := range msgs {
				f, _ := unix.ParseUnixRights(&msgs[i])
				fds = append(fds, f...)
			}
		}
		if n == 0 && s.childClosed() {
			closeAll(fds)
			return 0, nil, false, io.EOF
		}
		return n, fds, rflags&(unix.MSG_TRUNC|unix.MSG_CTRUNC) == 0, nil
	}
}

// childClosed reports whether the child's end of the socket pair is closed (or shut down for
// writing): nothing more comes from it.
func (s *supervisor) childClosed() bool {
	p := []unix.PollFd{{Fd: int32(s.sock), Events: unix.POLLRDHUP}}
	for {
		_, err := unix.Poll(p, 0)
		if err != unix.EINTR {
			return err != nil || p[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0
		}
	}
}

func closeAll(fds []int) {
	for _, f := range fds {
		unix.Close(f)
	}
}

// dropSock closes the socket pair: the child is gone from it.
func (s *supervisor) dropSock() {
	unix.Close(s.sock)
	s.sock = -1
}

// serveDescriptors, in the child, answers its supervisor's requests for the child's own
// descriptors (supervisor.childDescriptor) for as long as the child lives: each request is a
// nonce and a descriptor number (AT_FDCWD: the working directory, opened for the answer); the
// answer, the nonce and 0 with the descriptor, or an errno without one. Once the socket fails it
// returns without closing it: the tool's code may have closed it, and its number may now be a
// descriptor of the tool's.
func serveDescriptors(sock int) {
	var req [12]byte
	for {
		n, _, _, _, err := unix.Recvmsg(sock, req[:], nil, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil || n == 0 {
			return
		}
		if n != len(req) {
			continue
		}
		ans := append(req[:8:8], 0)
		d := int32(binary.LittleEndian.Uint32(req[8:]))
		fd, opened := int(d), false
		switch {
		case d == unix.AT_FDCWD:
			fd, err = unix.Open(".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
			opened = err == nil
		case d < 0:
			err = unix.EBADF
		}
		if err == nil {
			err = unix.Sendmsg(sock, ans, unix.UnixRights(fd), nil, unix.MSG_NOSIGNAL)
		}
		if opened {
			unix.Close(fd)
		}
		if err != nil { // not open, or not to be sent: the answer says so
			ans[8] = byte(errnoOf(err))
			if unix.Sendmsg(sock, ans, nil, nil, unix.MSG_NOSIGNAL) != nil {
				return
			}
		}
	}
}

// isChild reports whether tid is a thread of the child itself.
func (s *supervisor) isChild(tid int) bool {
	var st unix.Stat_t
	return unix.Stat(fmt.Sprintf("/proc/%d/task/%d", s.child, tid), &st) == nil
}

// umaskOf reads the umask of tid (/proc/PID/status, which any process may read).
func umaskOf(tid int) (uint32, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", tid))
	if err != nil {
		return 0, err
	}
	_, rest, ok := bytes.Cut(b, []byte("\nUmask:\t"))
	if !ok {
		return 0, errors.New("no umask in status")
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	m, err := strconv.ParseUint(string(line), 8, 32)
	return uint32(m), err
}

// readString reads a NUL-terminated string of at most PATH_MAX bytes at addr, page by page (a
// read across the end of a mapping fails).
func readString(mem int, addr uint64) (string, error) {
	const pathMax, page = 4096, 4096
	var out []byte
	buf := make([]byte, page)
	for len(out) < pathMax {
		n := min(page-int(addr%page), pathMax-len(out))
		if addr > 1<<62 {
			return "", unix.EFAULT
		}
		got, err := unix.Pread(mem, buf[:n], int64(addr))
		if err != nil || got <= 0 {
			return "", unix.EFAULT
		}
		if i := bytes.IndexByte(buf[:got], 0); i >= 0 {
			return string(append(out, buf[:i]...)), nil
		}
		out = append(out, buf[:got]...)
		addr += uint64(got)
	}
	return "", unix.ENAMETOOLONG
}

// errnoOf is the errno of err (EACCES when it has none).
func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if errors.As(err, &e) {
		return e
	}
	return unix.EACCES
}

// createCall describes a call that makes a name: which arguments are what (-1: none).
type createCall struct {
	name                           string
	paths                          []pathArg // the paths, the last one the name made
	target                         int       // symlink's target
	flags, mode, atFlags, renFlags int
}

// pathArg is a path argument and the dirfd argument it is relative to (-1: AT_FDCWD).
type pathArg struct{ dirfd, path int }

// createCall returns the description of system call nr.
func (a *seccompArch) createCall(nr int32) (createCall, bool) {
	for _, c := range a.createCalls {
		if c.nr == uint32(nr) {
			return c.createCall, true
		}
	}
	return createCall{}, false
}

func init() {
	// Check the layout of the kernel's structures once.
	if unsafe.Sizeof(seccompNotif{}) != 80 || unsafe.Sizeof(seccompNotifResp{}) != 24 || unsafe.Sizeof(seccompNotifAddfd{}) != 24 {
		panic("confine: seccomp notification structures have the wrong size")
	}
	// A supervisor serves from here, once this package is initialised (the packages it needs
	// are), and exits: the host's other packages are not initialised in it, nor does its main
	// run, which would only delay it.
	if childmark.IsChild() && os.Getenv(prestart.EnvRole) == prestart.RoleSupervisor {
		os.Exit(serveSupervisor())
	}
}
