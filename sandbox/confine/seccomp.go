//go:build linux

package confine

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter
//
// Landlock decides which files and TCP ports a child reaches; the filter removes the kernel
// interfaces that landlock does not cover or that would let a child step around it (namespaces,
// mounts, ptrace, io_uring, raw and non-TCP sockets, leaving the process group, ...). It is a
// deny list with ALLOW as the default action: a Go program needs a large and changing set of
// system calls, and an allow list would break with every runtime release while adding little
// once the dangerous interfaces are gone.
//
// Decisions, so that they are not made again by accident:
//
//   - Architecture. The filter is built for x86_64 only (the table lives in seccomp_amd64.go). The
//     first check compares seccomp_data.arch with AUDIT_ARCH_X86_64 and kills the whole process on a
//     mismatch: a 64-bit process entering through int $0x80 (i386 numbers) is never legitimate. On
//     other architectures BuildSeccomp returns an error, so that confinement fails closed.
//   - x32. Numbers with the x32 bit (0x40000000) are refused with EPERM rather than killed: an x32
//     number must never be compared with the x86_64 table (x32 numbers differ: its execve is
//     520|0x40000000), and EPERM keeps the child alive to report the denial as sandbox_denied, like
//     every other refused call. A legitimate x86_64 program never makes an x32 call.
//   - Errno. Every refusal is EPERM, including socket families, so a denied call is always told
//     apart by one errno; the only exception is clone3, which gets ENOSYS so that libc falls back to
//     clone (Go itself uses clone), whose flags the filter can read: clone3 passes them in memory,
//     out of the filter's reach.
//   - 64-bit arguments. seccomp_data holds every argument as 64 bits; the filter loads the low 32
//     bits (offset 16+8*i on a little-endian machine) because every argument it inspects is an int
//     or unsigned int in the kernel (socket family, type and protocol, the ioctl request, the
//     prlimit64 pid, memfd_create flags) or only honours its low 32 bits (the legacy clone flags).
//     Comparing 64 bits would let a caller set high bits the kernel ignores to slip past a check:
//     ioctl(fd, 0xdead00005412) is TIOCSTI to the kernel and is refused here.
//   - The setuid family is allowed. The child drops to an unprivileged uid and gid before it
//     installs the filter, and NO_NEW_PRIVS is set with it, so setuid(0) fails in the kernel with
//     EPERM anyway; refusing the family would only break programs that drop further.
//   - prlimit64 is allowed only with pid 0 (the caller). Go, glibc and musl always pass 0 for
//     their own limits; accepting the caller's own pid would need the pid at build time and would
//     tie a program to one process, while a pure builder lets a pool build once for every worker.
//   - Processes. clone with any namespace flag is refused under every policy; without AllowExec a
//     clone without CLONE_THREAD (a fork) is refused too, so threads keep working and nothing else
//     is created. fork, vfork, execve and execveat are refused without AllowExec.
//   - Fileless exec. With AllowExec, landlock decides which executables run, but a memfd lives on an
//     internal mount that landlock does not govern, so memfd_create + execveat(AT_EMPTY_PATH) (or
//     execve of /proc/self/fd/N) would run any code. With AllowExec, memfd_create is therefore
//     allowed only with MFD_NOEXEC_SEAL (such a memfd can never become executable) and never with
//     MFD_EXEC. Without AllowExec nothing can be executed at all and memfd_create is allowed.
//   - File metadata. Landlock does not govern changes of mode, owner, extended attributes or
//     times, so the filter does: the chmod family (fchmod included: a descriptor the child may
//     read is enough to call it on, so a read grant would become a mode grant, and the root of a
//     write grant is such a descriptor), the chown family, every extended attribute setter and
//     remover (POSIX ACLs are extended attributes) and the path-based time setters (utime,
//     utimes, futimesat, utimensat with a path) and the inode flag setters (the ioctls
//     FS_IOC_SETFLAGS, FS_IOC32_SETFLAGS, FS_IOC_FSSETXATTR: chattr) are refused under every policy. A child sets a
//     mode only when it creates a file or directory, and never with S_ISUID or S_ISGID: open,
//     creat, openat, mkdir and mkdirat are refused with either bit in their mode, and openat2,
//     whose mode lies in memory out of the filter's reach, gets ENOSYS (callers fall back to
//     openat). With AllowTimes, utimensat with no path (futimens: a descriptor the child opened)
//     is allowed. fchmod, fchown and the f*xattr calls on a descriptor are refused rather than
//     allowed "on descriptors Landlock opened": the filter cannot tell a descriptor opened for
//     reading from one opened for writing.
//   - Watching files. inotify_add_watch, fanotify_init and fanotify_mark are refused: Landlock
//     does not govern them, and a watch sees files come and go in directories no rule grants.
//   - Other processes' scheduling. setpriority and ioprio_set only for the calling process
//     (PRIO_PROCESS or IOPRIO_WHO_PROCESS with who 0), sched_setaffinity, sched_setscheduler,
//     sched_setparam and sched_setattr only with pid 0, like prlimit64: the kernel lets a
//     process change these for every process of its uid, which on a root host is every other
//     child and on an ordinary host the host itself.
//   - Sockets. AF_UNIX only with AllowUnix; AF_INET and AF_INET6 only with AllowInet and only
//     SOCK_STREAM (with SOCK_NONBLOCK and SOCK_CLOEXEC or not, no other bit) with protocol 0 or
//     IPPROTO_TCP; everything else is refused: UDP (and with it DNS over UDP: resolve through
//     /etc/hosts or use addresses), raw and ICMP sockets, SCTP, MPTCP (landlock's TCP port rules do
//     not apply to it), netlink, packet, vsock, bluetooth, AF_ALG and the rest. socketpair is
//     allowed only for AF_UNIX with AllowUnix. Go's net.Listen tries MPTCP first and falls back to
//     plain TCP on any error, so listeners keep working as plain TCP.
//   - TCP Fast Open. sendto, sendmsg and sendmmsg with MSG_FASTOPEN connect without connect(2),
//     and so without Landlock's connect check: the flag is refused under every policy, and so is
//     setsockopt(IPPROTO_TCP, TCP_FASTOPEN_CONNECT).
//   - Listening. listen() on an unbound TCP socket binds an ephemeral port without bind(2), and
//     so without Landlock's bind check: listen, accept and accept4 are refused without
//     AllowListen (a profile that grants a bind port).

// SeccompPolicy says what the filter allows beyond the defaults. The zero value is the narrowest
// filter: no exec, no sockets, no listening, no metadata changes.
type SeccompPolicy struct {
	// AllowExec allows execve, execveat, fork, vfork and clone without CLONE_THREAD (the profile
	// names executables; landlock decides which). memfd_create then needs MFD_NOEXEC_SEAL.
	AllowExec bool
	// AllowUnix allows AF_UNIX sockets and socketpair.
	AllowUnix bool
	// AllowInet allows AF_INET and AF_INET6 SOCK_STREAM sockets with protocol 0 or IPPROTO_TCP
	// only: UDP, raw, SCTP and MPTCP (262) stay refused.
	AllowInet bool
	// AllowListen allows listen, accept and accept4 (a profile that grants a bind port).
	AllowListen bool
	// AllowTimes allows utimensat on a descriptor (no path): setting the times of a file the
	// child opened. Every other metadata change is refused under every policy.
	AllowTimes bool
}

// seccompArch describes the system calls of one architecture. Numbers are those of
// seccomp_data.nr; seccomp_$GOARCH.go sets nativeSeccomp.
type seccompArch struct {
	name   string // as uname -m prints it
	audit  uint32 // AUDIT_ARCH_* of seccomp_data.arch
	x32Bit uint32 // numbers with this bit set are refused (0: none)

	deny   []sysno // always EPERM
	exec   []sysno // EPERM without AllowExec
	listen []sysno // EPERM without AllowListen
	pid0   []sysno // allowed only with 0 (the caller) as the first argument
	// modeAt lists the calls that take a file mode, with the index of the mode argument.
	modeAt []modeArg

	// create are the calls that make a name, which ModeSupervised's filter always sends to the
	// supervisor; createFlags those it sends when their flags argument holds O_CREAT;
	// createCalls describes their arguments.
	create      []sysno
	createFlags []modeArg
	noted       map[int32]sysno // calls the supervisor only notes: chdir, fchdir, umask
	createCalls []struct {
		nr uint32
		createCall
	}

	clone, clone3, ioctl, socket, socketpair, memfdCreate, openat2           uint32
	sendto, sendmsg, sendmmsg, setsockopt, utimensat, setpriority, ioprioSet uint32
}

// modeArg names a call whose argument arg is a file mode.
type modeArg struct {
	sysno
	arg int
}

// sysno is a system call number and its name.
type sysno struct {
	name string
	nr   uint32
}

// nativeSeccomp is the table of the running architecture, nil where the filter is not built.
var nativeSeccomp *seccompArch

// Offsets in struct seccomp_data.
const (
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// argLow is the offset of the low 32 bits of system call argument i (little endian).
func argLow(i int) uint32 { return seccompDataArgs + 8*uint32(i) }

// Flag and request values the filter inspects (golang.org/x/sys/unix has each architecture's).
const (
	cloneNamespaces = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
		unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME
	sockFlags = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC // the only flags socket(2) takes in its type
	setIDBits = unix.S_ISUID | unix.S_ISGID            // never in a mode a child sets

	ioprioWhoProcess = 1          // IOPRIO_WHO_PROCESS
	fsIoc32Setflags  = 0x40046602 // FS_IOC32_SETFLAGS: _IOW('f', 2, int)
	fsIocFssetxattr  = 0x401c5820 // FS_IOC_FSSETXATTR: _IOW('X', 32, struct fsxattr)

	retAllow       = unix.SECCOMP_RET_ALLOW
	retKillProcess = unix.SECCOMP_RET_KILL_PROCESS
	retEPERM       = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)&unix.SECCOMP_RET_DATA
	retENOSYS      = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)&unix.SECCOMP_RET_DATA

	// bpfMaxInsns is BPF_MAXINSNS, the kernel's limit for a classic BPF program.
	bpfMaxInsns = 4096
)

// BuildSeccomp builds the filter program for policy p on the running architecture. It is pure: the
// same policy always gives the same program, which any process of the architecture can install.
// What the program refuses, and why, is described at the top of this file and on [SeccompPolicy].
func BuildSeccomp(p SeccompPolicy) ([]bpf.RawInstruction, error) {
	return buildSeccomp(nativeSeccomp, p)
}

// Labels of the program.
const (
	lAllow       = "allow"
	lDeny        = "deny"
	lENOSYS      = "enosys"
	lKill        = "kill"
	lClone       = "clone"
	lIoctl       = "ioctl"
	lPid0        = "pid0"
	lSetpriority = "setpriority"
	lIoprio      = "ioprio_set"
	lFlags2      = "msg_flags2"
	lFlags3      = "msg_flags3"
	lSetsockopt  = "setsockopt"
	lUtimensat   = "utimensat"
	lSocket      = "socket"
	lInet        = "inet"
	lSocketpair  = "socketpair"
	lMemfd       = "memfd_create"
)

// buildSeccomp builds the program for the table a (nil: an architecture without one).
func buildSeccomp(a *seccompArch, p SeccompPolicy) ([]bpf.RawInstruction, error) {
	if a == nil {
		return nil, fmt.Errorf("seccomp: no filter for %s/%s: confinement is built for linux/amd64", runtime.GOOS, runtime.GOARCH)
	}
	var b progBuilder

	// Architecture first: the numbers below mean nothing for another one.
	b.load(seccompDataArch)
	b.jumpIf(bpf.JumpEqual, a.audit, "", lKill)
	b.load(seccompDataNr)
	if a.x32Bit != 0 {
		b.jumpIf(bpf.JumpBitsSet, a.x32Bit, lDeny, "")
	}

	// Dispatch on the number through a balanced tree of comparisons, so that any call is decided
	// after about log2(n) of them instead of a chain of n: this matters at install time too, as
	// the kernel runs the program for every system call number to cache the ones it always
	// allows (a chain made installing the filter cost a quarter of a millisecond).
	var cases []sysCase
	cases = append(cases, sysCase{a.ioctl, lIoctl}, sysCase{a.clone, lClone}, sysCase{a.socket, lSocket},
		sysCase{a.socketpair, lSocketpair}, sysCase{a.clone3, lENOSYS}, sysCase{a.openat2, lENOSYS},
		sysCase{a.sendto, lFlags3}, sysCase{a.sendmmsg, lFlags3}, sysCase{a.sendmsg, lFlags2},
		sysCase{a.setsockopt, lSetsockopt}, sysCase{a.setpriority, lSetpriority}, sysCase{a.ioprioSet, lIoprio})
	if p.AllowExec {
		cases = append(cases, sysCase{a.memfdCreate, lMemfd})
	}
	if p.AllowTimes {
		cases = append(cases, sysCase{a.utimensat, lUtimensat})
	} else {
		cases = append(cases, sysCase{a.utimensat, lDeny})
	}
	for _, s := range a.deny {
		cases = append(cases, sysCase{s.nr, lDeny})
	}
	if !p.AllowExec {
		for _, s := range a.exec {
			cases = append(cases, sysCase{s.nr, lDeny})
		}
	}
	if !p.AllowListen {
		for _, s := range a.listen {
			cases = append(cases, sysCase{s.nr, lDeny})
		}
	}
	for _, s := range a.pid0 {
		cases = append(cases, sysCase{s.nr, lPid0})
	}
	for _, m := range a.modeAt {
		cases = append(cases, sysCase{m.nr, modeLabel(m.arg)})
	}
	slices.SortFunc(cases, func(x, y sysCase) int { return cmp.Compare(x.nr, y.nr) })
	for i := 1; i < len(cases); i++ {
		if cases[i].nr == cases[i-1].nr {
			return nil, fmt.Errorf("seccomp: system call %d is in the table twice", cases[i].nr)
		}
	}
	b.dispatch(cases)

	// The common endings come right after the dispatch, which jumps to them the most; the blocks
	// below end in returns of their own, as classic BPF only jumps forward, at most 255 steps.
	b.label(lKill)
	b.ret(retKillProcess)
	b.label(lENOSYS)
	b.ret(retENOSYS)
	b.label(lDeny)
	b.ret(retEPERM)
	b.label(lAllow)
	b.ret(retAllow)

	// ioctl(fd, request, ...): TIOCSTI pushes input into a terminal, TIOCLINUX reaches the console;
	// the inode flag setters (chattr) change metadata Landlock does not govern.
	b.label(lIoctl)
	b.load(argLow(1))
	for _, req := range []uint32{unix.TIOCSTI, unix.TIOCLINUX, unix.FS_IOC_SETFLAGS, fsIoc32Setflags, fsIocFssetxattr} {
		b.jumpIf(bpf.JumpEqual, req, lIoctl+".deny", "")
	}
	b.ret(retAllow)
	b.label(lIoctl + ".deny")
	b.ret(retEPERM)

	// clone(flags, ...): never a namespace; a new process only when exec is allowed.
	b.label(lClone)
	b.load(argLow(0))
	if p.AllowExec {
		b.refuseIf(bpf.JumpBitsSet, cloneNamespaces)
	} else {
		b.jumpIf(bpf.JumpBitsSet, cloneNamespaces, lClone+".deny", "")
		b.jumpIf(bpf.JumpBitsSet, unix.CLONE_THREAD, "", lClone+".deny")
		b.ret(retAllow)
		b.label(lClone + ".deny")
		b.ret(retEPERM)
	}

	// socket(family, type, protocol).
	b.label(lSocket)
	b.load(argLow(0))
	if p.AllowUnix {
		b.jumpIf(bpf.JumpEqual, unix.AF_UNIX, lSocket+".allow", "")
	}
	if p.AllowInet {
		b.jumpIf(bpf.JumpEqual, unix.AF_INET, lInet, "")
		b.jumpIf(bpf.JumpEqual, unix.AF_INET6, lInet, "")
	}
	b.ret(retEPERM)
	if p.AllowUnix {
		b.label(lSocket + ".allow")
		b.ret(retAllow)
	}
	if p.AllowInet {
		b.label(lInet)
		b.load(argLow(1))
		b.and(^uint32(sockFlags))
		b.jumpIf(bpf.JumpEqual, unix.SOCK_STREAM, "", lInet+".deny")
		b.load(argLow(2))
		b.jumpIf(bpf.JumpEqual, 0, lInet+".allow", "")
		b.jumpIf(bpf.JumpEqual, unix.IPPROTO_TCP, lInet+".allow", "")
		b.label(lInet + ".deny")
		b.ret(retEPERM)
		b.label(lInet + ".allow")
		b.ret(retAllow)
	}

	// socketpair(family, ...): only AF_UNIX makes pairs, and only with AllowUnix.
	b.label(lSocketpair)
	if p.AllowUnix {
		b.load(argLow(0))
		b.allowIf(bpf.JumpEqual, unix.AF_UNIX)
	} else {
		b.ret(retEPERM)
	}

	// prlimit64, sched_setaffinity, ...(pid, ...): only the caller, named by pid 0.
	b.label(lPid0)
	b.load(argLow(0))
	b.allowIf(bpf.JumpEqual, 0)

	// setpriority(which, who, prio) and ioprio_set(which, who, ioprio): only the caller. A who
	// of 0 with another which names the caller's process group or every process of its uid.
	b.label(lSetpriority)
	b.load(argLow(0))
	b.jumpIf(bpf.JumpEqual, unix.PRIO_PROCESS, "", lSetpriority+".deny")
	b.load(argLow(1))
	b.allowIf(bpf.JumpEqual, 0)
	b.label(lSetpriority + ".deny")
	b.ret(retEPERM)
	b.label(lIoprio)
	b.load(argLow(0))
	b.jumpIf(bpf.JumpEqual, ioprioWhoProcess, "", lIoprio+".deny")
	b.load(argLow(1))
	b.allowIf(bpf.JumpEqual, 0)
	b.label(lIoprio + ".deny")
	b.ret(retEPERM)

	// sendto(fd, buf, len, flags, ...), sendmmsg(fd, vec, n, flags) and sendmsg(fd, msg, flags):
	// never MSG_FASTOPEN.
	b.label(lFlags3)
	b.load(argLow(3))
	b.refuseIf(bpf.JumpBitsSet, unix.MSG_FASTOPEN)
	b.label(lFlags2)
	b.load(argLow(2))
	b.refuseIf(bpf.JumpBitsSet, unix.MSG_FASTOPEN)

	// setsockopt(fd, level, name, ...): never TCP_FASTOPEN_CONNECT.
	b.label(lSetsockopt)
	b.load(argLow(1))
	b.jumpIf(bpf.JumpEqual, unix.IPPROTO_TCP, "", lSetsockopt+".allow")
	b.load(argLow(2))
	b.refuseIf(bpf.JumpEqual, unix.TCP_FASTOPEN_CONNECT)
	b.label(lSetsockopt + ".allow")
	b.ret(retAllow)

	// open, creat, openat, mkdir, mkdirat: never a set-user-ID or set-group-ID mode.
	for _, i := range modeArgs(a) {
		b.label(modeLabel(i))
		b.load(argLow(i))
		b.refuseIf(bpf.JumpBitsSet, setIDBits)
	}

	// utimensat(dirfd, path, times, flags) with AllowTimes: only without a path (futimens). The
	// path is a pointer: both halves must be zero.
	if p.AllowTimes {
		b.label(lUtimensat)
		b.load(argLow(1))
		b.jumpIf(bpf.JumpEqual, 0, "", lUtimensat+".deny")
		b.load(argLow(1) + 4)
		b.allowIf(bpf.JumpEqual, 0)
		b.label(lUtimensat + ".deny")
		b.ret(retEPERM)
	}

	// memfd_create(name, flags) with AllowExec: only memfds sealed against exec.
	if p.AllowExec {
		b.label(lMemfd)
		b.load(argLow(1))
		b.jumpIf(bpf.JumpBitsSet, unix.MFD_EXEC, lMemfd+".deny", "")
		b.allowIf(bpf.JumpBitsSet, unix.MFD_NOEXEC_SEAL)
		b.label(lMemfd + ".deny")
		b.ret(retEPERM)
	}

	prog, err := b.resolve()
	if err != nil {
		return nil, err
	}
	if len(prog) > bpfMaxInsns {
		return nil, fmt.Errorf("seccomp: program has %d instructions, the kernel takes at most %d", len(prog), bpfMaxInsns)
	}
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("seccomp: assemble: %w", err)
	}
	return raw, nil
}

// InstallSeccomp builds the filter for p and installs it on every thread of the process: it sets
// PR_SET_NO_NEW_PRIVS, then calls seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC). The
// filter cannot be removed; the caller runs it in the confined child, after dropping privileges.
//
// With TSYNC the kernel reports a thread it could not synchronise (one with an unrelated filter) as
// a positive thread id instead of an errno; InstallSeccomp turns it into an error naming the thread,
// and in that case no thread got the filter.
func InstallSeccomp(p SeccompPolicy) error {
	raw, err := BuildSeccomp(p)
	if err != nil {
		return err
	}
	return installFilter(raw)
}

// allowAllFilter allows every system call: the child installs it with TSYNC first, for the
// no_new_privs flag the kernel then sets on every thread.
var allowAllFilter = []bpf.RawInstruction{{Op: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}}

// seccompPrograms caches BuildSeccomp by policy: a parent builds each program once and sends it
// with every child's setup.
var seccompPrograms sync.Map // SeccompPolicy -> []bpf.RawInstruction

func seccompProgram(p SeccompPolicy) ([]bpf.RawInstruction, error) {
	if v, ok := seccompPrograms.Load(p); ok {
		return v.([]bpf.RawInstruction), nil
	}
	raw, err := BuildSeccomp(p)
	if err != nil {
		return nil, err
	}
	seccompPrograms.Store(p, raw)
	return raw, nil
}

// installFilter installs a built program as InstallSeccomp describes.
func installFilter(raw []bpf.RawInstruction) error {
	if len(raw) == 0 || len(raw) > bpfMaxInsns {
		return fmt.Errorf("seccomp: a program of %d instructions", len(raw))
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, ins := range raw {
		filter[i] = unix.SockFilter{Code: ins.Op, Jt: ins.Jt, Jf: ins.Jf, K: ins.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}

	// NO_NEW_PRIVS is a per-thread flag and seccomp requires it on the calling thread; TSYNC then
	// copies the flag and the filter to every other thread. Both are raw system calls, between
	// which the goroutine stays on its thread unless it is preempted right there; if it moved, the
	// filter call fails with EACCES having changed nothing, and the pair is tried again. (Locking
	// the goroutine to its thread instead would start the runtime's template thread on first use:
	// a thread creation, and one more thread for Landlock's all-threads call to stop.)
	var r uintptr
	var errno unix.Errno
	for try := 1; ; try++ {
		if _, _, e := unix.RawSyscall6(unix.SYS_PRCTL, unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0); e != 0 {
			return fmt.Errorf("seccomp: prctl(PR_SET_NO_NEW_PRIVS): %w", e)
		}
		r, _, errno = unix.RawSyscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
			uintptr(unsafe.Pointer(&prog)))
		if errno != unix.EACCES || try == 10 {
			break
		}
	}
	runtime.KeepAlive(filter)
	if errno != 0 {
		// EINVAL: a kernel without seccomp filters (or a program it refuses); ENOSYS: no seccomp(2).
		return fmt.Errorf("seccomp: seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC): %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("seccomp: thread %d could not be synchronised (TSYNC): it has a filter of its own; no thread was filtered", r)
	}
	return nil
}

// progBuilder assembles a classic BPF program with forward jumps to named labels.
type progBuilder struct {
	ins    []bpf.Instruction
	labels map[string]int
	jumps  []labelRef
	err    error // the first label defined twice
}

// labelRef records the labels of the conditional jump at index at ("" is the next instruction).
type labelRef struct {
	at              int
	onTrue, onFalse string
}

func (b *progBuilder) load(off uint32) {
	b.ins = append(b.ins, bpf.LoadAbsolute{Off: off, Size: 4})
}

func (b *progBuilder) and(v uint32) {
	b.ins = append(b.ins, bpf.ALUOpConstant{Op: bpf.ALUOpAnd, Val: v})
}

func (b *progBuilder) ret(v uint32) {
	b.ins = append(b.ins, bpf.RetConstant{Val: v})
}

func (b *progBuilder) jumpIf(cond bpf.JumpTest, v uint32, onTrue, onFalse string) {
	b.jumps = append(b.jumps, labelRef{at: len(b.ins), onTrue: onTrue, onFalse: onFalse})
	b.ins = append(b.ins, bpf.JumpIf{Cond: cond, Val: v})
}

// allowIf ends a block: ALLOW when the accumulator passes cond against v, else EPERM.
func (b *progBuilder) allowIf(cond bpf.JumpTest, v uint32) {
	b.ins = append(b.ins, bpf.JumpIf{Cond: cond, Val: v, SkipTrue: 1}, bpf.RetConstant{Val: retEPERM}, bpf.RetConstant{Val: retAllow})
}

// refuseIf ends a block: EPERM when the accumulator passes cond against v, else ALLOW.
func (b *progBuilder) refuseIf(cond bpf.JumpTest, v uint32) {
	b.ins = append(b.ins, bpf.JumpIf{Cond: cond, Val: v, SkipTrue: 1}, bpf.RetConstant{Val: retAllow}, bpf.RetConstant{Val: retEPERM})
}

func (b *progBuilder) label(name string) {
	if b.labels == nil {
		b.labels = make(map[string]int)
	}
	if _, dup := b.labels[name]; dup && b.err == nil {
		b.err = fmt.Errorf("seccomp: label %q defined twice", name)
	}
	b.labels[name] = len(b.ins)
}

// modeLabel is the label of the check of a mode in argument i.
func modeLabel(i int) string { return fmt.Sprintf("mode@%d", i) }

// modeArgs lists the distinct mode argument indexes of a's calls, in order.
func modeArgs(a *seccompArch) []int {
	var out []int
	for _, m := range a.modeAt {
		out = append(out, m.arg)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// sysCase sends system call number nr to label.
type sysCase struct {
	nr    uint32
	label string
}

// dispatch jumps to the label of the accumulator's number among cases (sorted, distinct) and
// allows every other number.
func (b *progBuilder) dispatch(cases []sysCase) {
	if len(cases) <= 6 {
		for _, c := range cases {
			b.jumpIf(bpf.JumpEqual, c.nr, c.label, "")
		}
		b.ret(retAllow)
		return
	}
	mid := len(cases) / 2
	upper := fmt.Sprintf("nr>=%d", cases[mid].nr)
	b.jumpIf(bpf.JumpGreaterOrEqual, cases[mid].nr, upper, "")
	b.dispatch(cases[:mid])
	b.label(upper)
	b.dispatch(cases[mid:])
}

// resolve fills in the jump offsets. Classic BPF only jumps forward, by at most 255 instructions.
func (b *progBuilder) resolve() ([]bpf.Instruction, error) {
	if b.err != nil {
		return nil, b.err
	}
	skip := func(at int, label string) (uint8, error) {
		if label == "" {
			return 0, nil
		}
		to, ok := b.labels[label]
		if !ok {
			return 0, fmt.Errorf("seccomp: jump to undefined label %q", label)
		}
		d := to - at - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: jump from %d to %q (%d) out of range", at, label, to)
		}
		return uint8(d), nil
	}
	for _, j := range b.jumps {
		ins := b.ins[j.at].(bpf.JumpIf)
		var err error
		if ins.SkipTrue, err = skip(j.at, j.onTrue); err != nil {
			return nil, err
		}
		if ins.SkipFalse, err = skip(j.at, j.onFalse); err != nil {
			return nil, err
		}
		b.ins[j.at] = ins
	}
	return b.ins, nil
}
