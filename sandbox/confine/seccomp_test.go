//go:build linux && amd64

package confine

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"text/tabwriter"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// ---------------------------------------------------------------------------------------------
// The program, run in golang.org/x/net/bpf's VM on synthetic seccomp_data.

// seccompInput lays out struct seccomp_data {int nr; u32 arch; u64 instruction_pointer; u64
// args[6]} for bpf.VM. The kernel loads 32-bit words in the machine's byte order (little endian
// on x86_64: the low half of argument i at 16+8*i, the high half at 20+8*i); the VM loads them big
// endian. Writing every 32-bit word big endian makes the VM see the words the kernel sees.
func seccompInput(arch, nr uint32, args ...uint64) []byte {
	b := make([]byte, 64)
	be := binary.BigEndian
	be.PutUint32(b[0:], nr)
	be.PutUint32(b[4:], arch)
	for i, a := range args {
		be.PutUint32(b[16+8*i:], uint32(a))
		be.PutUint32(b[20+8*i:], uint32(a>>32))
	}
	return b
}

// seccompVM is a built program loaded into the VM.
type seccompVM struct {
	policy SeccompPolicy
	vm     *bpf.VM
}

func newSeccompVM(t *testing.T, p SeccompPolicy) *seccompVM {
	t.Helper()
	raw, err := BuildSeccomp(p)
	if err != nil {
		t.Fatalf("BuildSeccomp(%+v): %v", p, err)
	}
	ins, ok := bpf.Disassemble(raw)
	if !ok {
		t.Fatalf("BuildSeccomp(%+v): the program does not disassemble", p)
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("BuildSeccomp(%+v): the VM refuses the program: %v", p, err)
	}
	return &seccompVM{policy: p, vm: vm}
}

// action runs the program for one x86_64 system call.
func (v *seccompVM) action(t *testing.T, nr uint32, args ...uint64) uint32 {
	t.Helper()
	return v.actionArch(t, unix.AUDIT_ARCH_X86_64, nr, args...)
}

func (v *seccompVM) actionArch(t *testing.T, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	r, err := v.vm.Run(seccompInput(arch, nr, args...))
	if err != nil {
		t.Fatalf("VM run: %v", err)
	}
	return uint32(r)
}

// expect checks the action of one call.
func (v *seccompVM) expect(t *testing.T, want uint32, what string, nr uint32, args ...uint64) {
	t.Helper()
	if got := v.action(t, nr, args...); got != want {
		t.Errorf("%s %s (nr %d, args %#x): got %s, want %s", seccompPolicyName(v.policy), what, nr, args, seccompActionName(got), seccompActionName(want))
	}
}

func seccompActionName(a uint32) string {
	switch {
	case a == unix.SECCOMP_RET_ALLOW:
		return "ALLOW"
	case a == unix.SECCOMP_RET_KILL_PROCESS:
		return "KILL_PROCESS"
	case a&unix.SECCOMP_RET_ACTION_FULL == unix.SECCOMP_RET_ERRNO:
		return "ERRNO(" + unix.ErrnoName(syscall.Errno(a&unix.SECCOMP_RET_DATA)) + ")"
	}
	return fmt.Sprintf("%#x", a)
}

// seccompPolicies is every combination of the five switches.
func seccompPolicies() []SeccompPolicy {
	var ps []SeccompPolicy
	for i := range 32 {
		ps = append(ps, SeccompPolicy{AllowExec: i&1 != 0, AllowUnix: i&2 != 0, AllowInet: i&4 != 0, AllowListen: i&8 != 0, AllowTimes: i&16 != 0})
	}
	return ps
}

func seccompPolicyName(p SeccompPolicy) string {
	var on []string
	if p.AllowExec {
		on = append(on, "exec")
	}
	if p.AllowUnix {
		on = append(on, "unix")
	}
	if p.AllowInet {
		on = append(on, "inet")
	}
	if p.AllowListen {
		on = append(on, "listen")
	}
	if p.AllowTimes {
		on = append(on, "times")
	}
	if len(on) == 0 {
		return "defaults"
	}
	return strings.Join(on, "+")
}

var (
	seccompAll        = SeccompPolicy{AllowExec: true, AllowUnix: true, AllowInet: true, AllowListen: true, AllowTimes: true}
	seccompNone       = SeccompPolicy{}
	seccompExec       = SeccompPolicy{AllowExec: true}
	seccompUnixListen = SeccompPolicy{AllowUnix: true, AllowListen: true}
	seccompInet       = SeccompPolicy{AllowInet: true}
	seccompInetListen = SeccompPolicy{AllowInet: true, AllowListen: true}
	seccompTimes      = SeccompPolicy{AllowTimes: true}
)

const (
	seccompEPERM  uint32 = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	seccompENOSYS uint32 = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	seccompAllow  uint32 = unix.SECCOMP_RET_ALLOW
	seccompKill   uint32 = unix.SECCOMP_RET_KILL_PROCESS
)

func TestSeccompBuildEveryPolicy(t *testing.T) {
	for _, p := range seccompPolicies() {
		raw, err := BuildSeccomp(p)
		if err != nil {
			t.Fatalf("%s: %v", seccompPolicyName(p), err)
		}
		if len(raw) == 0 || len(raw) > bpfMaxInsns {
			t.Errorf("%s: %d instructions", seccompPolicyName(p), len(raw))
		}
		again, err := BuildSeccomp(p)
		if err != nil || !slices.Equal(raw, again) {
			t.Errorf("%s: BuildSeccomp is not deterministic (%v)", seccompPolicyName(p), err)
		}
		newSeccompVM(t, p)
		t.Logf("%-22s %3d instructions", seccompPolicyName(p), len(raw))
	}
}

func TestSeccompArchitecture(t *testing.T) {
	for _, p := range []SeccompPolicy{seccompNone, seccompAll} {
		v := newSeccompVM(t, p)
		for _, arch := range []uint32{unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_AARCH64, 0, 0xffffffff} {
			// getpid is 39 on x86_64 and 20 on i386: whatever the number, another architecture dies.
			for _, nr := range []uint32{20, 39, unix.SYS_READ} {
				if got := v.actionArch(t, arch, nr); got != seccompKill {
					t.Errorf("%s: arch %#x nr %d: got %s, want KILL_PROCESS", seccompPolicyName(p), arch, nr, seccompActionName(got))
				}
			}
		}
		if got := v.action(t, unix.SYS_GETPID); got != seccompAllow {
			t.Errorf("%s: x86_64 getpid: got %s", seccompPolicyName(p), seccompActionName(got))
		}
	}
}

func TestSeccompX32Refused(t *testing.T) {
	const x32 = 0x40000000
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, nr := range []uint32{
			unix.SYS_READ, unix.SYS_GETPID, unix.SYS_WRITE, unix.SYS_CLONE, unix.SYS_SOCKET, unix.SYS_PTRACE,
			521, // x32 ptrace
			545, // x32 execve
			0x3fffffff,
		} {
			v.expect(t, seccompEPERM, "x32 number", nr|x32)
		}
		v.expect(t, seccompEPERM, "number with every bit", 0xffffffff)
	}
}

// seccompAlwaysDenied is the list of calls the design names as always denied, and a few more: every one
// is EPERM under every policy.
var seccompAlwaysDenied = map[string]uint32{
	"ptrace": unix.SYS_PTRACE, "process_vm_readv": unix.SYS_PROCESS_VM_READV, "process_vm_writev": unix.SYS_PROCESS_VM_WRITEV,
	"mount": unix.SYS_MOUNT, "umount2": unix.SYS_UMOUNT2, "pivot_root": unix.SYS_PIVOT_ROOT, "move_mount": unix.SYS_MOVE_MOUNT,
	"open_tree": unix.SYS_OPEN_TREE, "fsopen": unix.SYS_FSOPEN, "fsmount": unix.SYS_FSMOUNT, "fsconfig": unix.SYS_FSCONFIG,
	"fspick": unix.SYS_FSPICK, "mount_setattr": unix.SYS_MOUNT_SETATTR, "unshare": unix.SYS_UNSHARE, "setns": unix.SYS_SETNS,
	"setsid": unix.SYS_SETSID, "setpgid": unix.SYS_SETPGID,
	"bpf": unix.SYS_BPF, "perf_event_open": unix.SYS_PERF_EVENT_OPEN, "userfaultfd": unix.SYS_USERFAULTFD,
	"keyctl": unix.SYS_KEYCTL, "add_key": unix.SYS_ADD_KEY, "request_key": unix.SYS_REQUEST_KEY,
	"io_uring_setup": unix.SYS_IO_URING_SETUP, "io_uring_enter": unix.SYS_IO_URING_ENTER, "io_uring_register": unix.SYS_IO_URING_REGISTER,
	"kexec_load": unix.SYS_KEXEC_LOAD, "kexec_file_load": unix.SYS_KEXEC_FILE_LOAD, "init_module": unix.SYS_INIT_MODULE,
	"finit_module": unix.SYS_FINIT_MODULE, "delete_module": unix.SYS_DELETE_MODULE,
	"open_by_handle_at": unix.SYS_OPEN_BY_HANDLE_AT, "name_to_handle_at": unix.SYS_NAME_TO_HANDLE_AT,
	"mknod": unix.SYS_MKNOD, "mknodat": unix.SYS_MKNODAT, "personality": unix.SYS_PERSONALITY,
	"shmget": unix.SYS_SHMGET, "shmat": unix.SYS_SHMAT, "shmctl": unix.SYS_SHMCTL, "shmdt": unix.SYS_SHMDT,
	"msgget": unix.SYS_MSGGET, "msgsnd": unix.SYS_MSGSND, "msgrcv": unix.SYS_MSGRCV, "msgctl": unix.SYS_MSGCTL,
	"semget": unix.SYS_SEMGET, "semop": unix.SYS_SEMOP, "semtimedop": unix.SYS_SEMTIMEDOP, "semctl": unix.SYS_SEMCTL,
	"swapon": unix.SYS_SWAPON, "swapoff": unix.SYS_SWAPOFF, "reboot": unix.SYS_REBOOT, "acct": unix.SYS_ACCT,
	"quotactl": unix.SYS_QUOTACTL, "syslog": unix.SYS_SYSLOG, "chroot": unix.SYS_CHROOT,
	// Beyond the list, for the same reasons.
	"pidfd_getfd": unix.SYS_PIDFD_GETFD, "process_madvise": unix.SYS_PROCESS_MADVISE, "kcmp": unix.SYS_KCMP,
	"open_tree_attr": unix.SYS_OPEN_TREE_ATTR, "quotactl_fd": unix.SYS_QUOTACTL_FD, "iopl": unix.SYS_IOPL, "ioperm": unix.SYS_IOPERM,
}

func TestSeccompDenyList(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for name, nr := range seccompAlwaysDenied {
			v.expect(t, seccompEPERM, name, nr)
			v.expect(t, seccompEPERM, name+" with arguments", nr, 0, 1, 2, 3, 4, 5)
		}
	}
	// The table and the list agree.
	inTable := map[uint32]string{}
	for _, s := range seccompAMD64.deny {
		inTable[s.nr] = s.name
	}
	for name, nr := range seccompAlwaysDenied {
		if inTable[nr] != name {
			t.Errorf("%s (%d) is not in the deny table under its name (%q)", name, nr, inTable[nr])
		}
	}
}

func TestSeccompRuntimeCallsAllowed(t *testing.T) {
	calls := map[string]uint32{
		"read": unix.SYS_READ, "write": unix.SYS_WRITE, "openat": unix.SYS_OPENAT, "close": unix.SYS_CLOSE,
		"mmap": unix.SYS_MMAP, "munmap": unix.SYS_MUNMAP, "mprotect": unix.SYS_MPROTECT, "madvise": unix.SYS_MADVISE,
		"futex": unix.SYS_FUTEX, "rt_sigaction": unix.SYS_RT_SIGACTION, "rt_sigprocmask": unix.SYS_RT_SIGPROCMASK,
		"rt_sigreturn": unix.SYS_RT_SIGRETURN, "sigaltstack": unix.SYS_SIGALTSTACK, "gettid": unix.SYS_GETTID,
		"getpid": unix.SYS_GETPID, "tgkill": unix.SYS_TGKILL, "sched_yield": unix.SYS_SCHED_YIELD,
		"nanosleep": unix.SYS_NANOSLEEP, "clock_gettime": unix.SYS_CLOCK_GETTIME, "epoll_pwait": unix.SYS_EPOLL_PWAIT,
		"epoll_ctl": unix.SYS_EPOLL_CTL, "epoll_create1": unix.SYS_EPOLL_CREATE1, "eventfd2": unix.SYS_EVENTFD2,
		"pipe2": unix.SYS_PIPE2, "fcntl": unix.SYS_FCNTL, "exit": unix.SYS_EXIT, "exit_group": unix.SYS_EXIT_GROUP,
		"getrandom": unix.SYS_GETRANDOM, "prctl": unix.SYS_PRCTL, "sched_getaffinity": unix.SYS_SCHED_GETAFFINITY,
		"setuid": unix.SYS_SETUID, "setgid": unix.SYS_SETGID, "setgroups": unix.SYS_SETGROUPS, "setresuid": unix.SYS_SETRESUID,
		"seccomp": unix.SYS_SECCOMP, "landlock_restrict_self": unix.SYS_LANDLOCK_RESTRICT_SELF,
		"connect": unix.SYS_CONNECT, "bind": unix.SYS_BIND, "wait4": unix.SYS_WAIT4,
		"pidfd_open": unix.SYS_PIDFD_OPEN, "getrlimit": unix.SYS_GETRLIMIT, "setrlimit": unix.SYS_SETRLIMIT,
		"memfd_create": unix.SYS_MEMFD_CREATE, "kill": unix.SYS_KILL,
	}
	v := newSeccompVM(t, seccompNone)
	for name, nr := range calls {
		v.expect(t, seccompAllow, name, nr, 0, 0, 0, 0, 0, 0)
	}
}

func TestSeccompClone(t *testing.T) {
	const (
		thread = unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_SYSVSEM |
			unix.CLONE_THREAD | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID // the Go runtime's new M
		fork   = uint64(unix.SIGCHLD)
		goExec = unix.CLONE_VFORK | unix.CLONE_VM | unix.CLONE_PIDFD | uint64(unix.SIGCHLD) // os/exec
	)
	namespaces := map[string]uint64{
		"CLONE_NEWNS": unix.CLONE_NEWNS, "CLONE_NEWUTS": unix.CLONE_NEWUTS, "CLONE_NEWIPC": unix.CLONE_NEWIPC,
		"CLONE_NEWUSER": unix.CLONE_NEWUSER, "CLONE_NEWPID": unix.CLONE_NEWPID, "CLONE_NEWNET": unix.CLONE_NEWNET,
		"CLONE_NEWCGROUP": unix.CLONE_NEWCGROUP, "CLONE_NEWTIME": unix.CLONE_NEWTIME,
	}
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		v.expect(t, seccompAllow, "clone(thread)", unix.SYS_CLONE, thread)
		// The kernel reads only the low 32 bits of the legacy flags.
		v.expect(t, seccompAllow, "clone(thread | high bits)", unix.SYS_CLONE, thread|0xffffffff00000000)
		for name, ns := range namespaces {
			v.expect(t, seccompEPERM, "clone(fork|"+name+")", unix.SYS_CLONE, fork|ns)
			v.expect(t, seccompEPERM, "clone(thread|"+name+")", unix.SYS_CLONE, thread|ns)
		}
		want := seccompEPERM
		if p.AllowExec {
			want = seccompAllow
		}
		v.expect(t, want, "clone(SIGCHLD) = fork", unix.SYS_CLONE, fork)
		v.expect(t, want, "clone(0)", unix.SYS_CLONE, 0)
		v.expect(t, want, "clone(os/exec flags)", unix.SYS_CLONE, goExec)
		v.expect(t, want, "clone(fork, CLONE_THREAD only in the high half)", unix.SYS_CLONE, fork|uint64(unix.CLONE_THREAD)<<32)
		v.expect(t, seccompENOSYS, "clone3", unix.SYS_CLONE3)
		v.expect(t, seccompENOSYS, "clone3(args)", unix.SYS_CLONE3, 0x7fff0000, 88)
	}
}

func TestSeccompExecFamily(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		want := seccompEPERM
		if p.AllowExec {
			want = seccompAllow
		}
		for _, s := range seccompAMD64.exec {
			v.expect(t, want, s.name, s.nr)
		}
		v.expect(t, want, "execveat(AT_EMPTY_PATH)", unix.SYS_EXECVEAT, 3, 0, 0, 0, unix.AT_EMPTY_PATH)
	}
}

func TestSeccompMemfdCreate(t *testing.T) {
	flags := []struct {
		flags    uint64
		withExec uint32 // the action with AllowExec; without it memfd_create is always allowed
	}{
		{0, seccompEPERM},
		{unix.MFD_CLOEXEC, seccompEPERM},
		{unix.MFD_CLOEXEC | unix.MFD_ALLOW_SEALING, seccompEPERM},
		{unix.MFD_EXEC, seccompEPERM},
		{unix.MFD_EXEC | unix.MFD_NOEXEC_SEAL, seccompEPERM},
		{unix.MFD_NOEXEC_SEAL, seccompAllow},
		{unix.MFD_CLOEXEC | unix.MFD_NOEXEC_SEAL, seccompAllow},
		{unix.MFD_NOEXEC_SEAL << 32, seccompEPERM}, // the kernel reads an unsigned int
	}
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, f := range flags {
			want := seccompAllow
			if p.AllowExec {
				want = f.withExec
			}
			v.expect(t, want, fmt.Sprintf("memfd_create(%#x)", f.flags), unix.SYS_MEMFD_CREATE, 0x1000, f.flags)
		}
	}
}

func TestSeccompIoctl(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, req := range []uint64{
			unix.TIOCSTI, unix.TIOCLINUX, unix.FS_IOC_SETFLAGS, 0x40046602, 0x401c5820, 0xdead000040086602,
			0xdead00005412, 0xffffffff00005412, 1<<32 | unix.TIOCSTI,
			0xbeef0000541c, 0xffffffff0000541c,
		} {
			v.expect(t, seccompEPERM, fmt.Sprintf("ioctl(0, %#x)", req), unix.SYS_IOCTL, 0, req, 0)
		}
		for _, req := range []uint64{
			unix.TCGETS, unix.TIOCGWINSZ, unix.TIOCINQ, 0x5451, // FIOCLEX
			unix.FS_IOC_GETFLAGS, 0x801c581f, // FS_IOC_FSGETXATTR
			unix.TIOCSTI << 32, // the kernel sees 0
			unix.TIOCSTI + 1,
		} {
			v.expect(t, seccompAllow, fmt.Sprintf("ioctl(0, %#x)", req), unix.SYS_IOCTL, 0, req, 0)
		}
		// TIOCSTI as the fd or the argument is not the request.
		v.expect(t, seccompAllow, "ioctl(TIOCSTI, TCGETS)", unix.SYS_IOCTL, unix.TIOCSTI, unix.TCGETS, unix.TIOCSTI)
	}
}

func TestSeccompPid0(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, s := range seccompAMD64.pid0 {
			v.expect(t, seccompAllow, s.name+"(0)", s.nr, 0, unix.RLIMIT_NOFILE, 0, 0x1000)
			// pid_t is an int: the kernel ignores the high half, so this is pid 0 too.
			v.expect(t, seccompAllow, s.name+"(1<<32)", s.nr, 1<<32, unix.RLIMIT_NOFILE)
			for _, pid := range []uint64{1, 1234, uint64(os.Getpid()), 0xffffffff, 0xffffffffffffffff, 0xdead00001234} {
				v.expect(t, seccompEPERM, fmt.Sprintf("%s(%#x)", s.name, pid), s.nr, pid, unix.RLIMIT_NOFILE, 0x1000, 0)
			}
		}
		for name, nr := range map[string]uint32{"prlimit64": unix.SYS_PRLIMIT64, "sched_setaffinity": unix.SYS_SCHED_SETAFFINITY,
			"sched_setscheduler": unix.SYS_SCHED_SETSCHEDULER, "sched_setparam": unix.SYS_SCHED_SETPARAM, "sched_setattr": unix.SYS_SCHED_SETATTR} {
			v.expect(t, seccompEPERM, name+"(other)", nr, 77)
		}
		v.expect(t, seccompAllow, "getrlimit", unix.SYS_GETRLIMIT, unix.RLIMIT_NOFILE)
		v.expect(t, seccompAllow, "setrlimit", unix.SYS_SETRLIMIT, unix.RLIMIT_NOFILE)
		v.expect(t, seccompAllow, "sched_getaffinity(other)", unix.SYS_SCHED_GETAFFINITY, 77)
		// setpriority(which, who, prio): only PRIO_PROCESS of the caller.
		v.expect(t, seccompAllow, "setpriority(PRIO_PROCESS, 0, 19)", unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, 0, 19)
		v.expect(t, seccompAllow, "setpriority(PRIO_PROCESS, 1<<32, 19)", unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, 1<<32, 19)
		v.expect(t, seccompEPERM, "setpriority(PRIO_PROCESS, 77, 19)", unix.SYS_SETPRIORITY, unix.PRIO_PROCESS, 77, 19)
		v.expect(t, seccompEPERM, "setpriority(PRIO_PGRP, 0, 19)", unix.SYS_SETPRIORITY, unix.PRIO_PGRP, 0, 19)
		v.expect(t, seccompEPERM, "setpriority(PRIO_USER, 0, 19)", unix.SYS_SETPRIORITY, unix.PRIO_USER, 0, 19)
		v.expect(t, seccompEPERM, "setpriority(PRIO_PROCESS|1<<8, 0, 19)", unix.SYS_SETPRIORITY, unix.PRIO_PROCESS|1<<8, 0, 19)
		// ioprio_set(which, who, ioprio): only IOPRIO_WHO_PROCESS (1) of the caller.
		v.expect(t, seccompAllow, "ioprio_set(PROCESS, 0)", unix.SYS_IOPRIO_SET, 1, 0, 0x6007)
		v.expect(t, seccompEPERM, "ioprio_set(PROCESS, 77)", unix.SYS_IOPRIO_SET, 1, 77, 0x6007)
		v.expect(t, seccompEPERM, "ioprio_set(PGRP, 0)", unix.SYS_IOPRIO_SET, 2, 0, 0x6007)
		v.expect(t, seccompEPERM, "ioprio_set(USER, 0)", unix.SYS_IOPRIO_SET, 3, 0, 0x6007)
	}
}

// TestSeccompFastOpen: MSG_FASTOPEN connects without connect(2), where Landlock checks ports.
func TestSeccompFastOpen(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, flags := range []uint64{unix.MSG_FASTOPEN, unix.MSG_FASTOPEN | unix.MSG_NOSIGNAL, 0xffffffff, 0xdead00000000 | unix.MSG_FASTOPEN} {
			v.expect(t, seccompEPERM, fmt.Sprintf("sendto(%#x)", flags), unix.SYS_SENDTO, 3, 0x1000, 1, flags, 0x2000, 16)
			v.expect(t, seccompEPERM, fmt.Sprintf("sendmsg(%#x)", flags), unix.SYS_SENDMSG, 3, 0x1000, flags)
			v.expect(t, seccompEPERM, fmt.Sprintf("sendmmsg(%#x)", flags), unix.SYS_SENDMMSG, 3, 0x1000, 1, flags)
		}
		for _, flags := range []uint64{0, unix.MSG_NOSIGNAL, unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL, uint64(unix.MSG_FASTOPEN) << 32} {
			v.expect(t, seccompAllow, fmt.Sprintf("sendto(%#x)", flags), unix.SYS_SENDTO, 3, 0x1000, 1, flags, 0x2000, 16)
			v.expect(t, seccompAllow, fmt.Sprintf("sendmsg(%#x)", flags), unix.SYS_SENDMSG, 3, 0x1000, flags)
			v.expect(t, seccompAllow, fmt.Sprintf("sendmmsg(%#x)", flags), unix.SYS_SENDMMSG, 3, 0x1000, 1, flags)
		}
		// MSG_FASTOPEN in another argument is not the flags.
		v.expect(t, seccompAllow, "sendto(len MSG_FASTOPEN)", unix.SYS_SENDTO, 3, 0x1000, unix.MSG_FASTOPEN, 0)
		v.expect(t, seccompAllow, "sendmsg(fd MSG_FASTOPEN)", unix.SYS_SENDMSG, unix.MSG_FASTOPEN, 0x1000, 0)
		v.expect(t, seccompEPERM, "setsockopt(TCP, TCP_FASTOPEN_CONNECT)", unix.SYS_SETSOCKOPT, 3, unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 0x1000, 4)
		v.expect(t, seccompEPERM, "setsockopt(TCP|high, TCP_FASTOPEN_CONNECT|high)", unix.SYS_SETSOCKOPT, 3, 1<<32|unix.IPPROTO_TCP, 1<<40|unix.TCP_FASTOPEN_CONNECT, 0x1000, 4)
		v.expect(t, seccompAllow, "setsockopt(TCP, TCP_NODELAY)", unix.SYS_SETSOCKOPT, 3, unix.IPPROTO_TCP, unix.TCP_NODELAY, 0x1000, 4)
		v.expect(t, seccompAllow, "setsockopt(SOL_SOCKET, 30)", unix.SYS_SETSOCKOPT, 3, unix.SOL_SOCKET, unix.TCP_FASTOPEN_CONNECT, 0x1000, 4)
		v.expect(t, seccompAllow, "setsockopt(SOL_SOCKET, SO_REUSEADDR)", unix.SYS_SETSOCKOPT, 3, unix.SOL_SOCKET, unix.SO_REUSEADDR, 0x1000, 4)
	}
}

// TestSeccompListen: listen on an unbound socket binds a port without bind(2).
func TestSeccompListen(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		want := seccompEPERM
		if p.AllowListen {
			want = seccompAllow
		}
		for _, s := range seccompAMD64.listen {
			v.expect(t, want, s.name, s.nr, 3, 128)
		}
		v.expect(t, seccompAllow, "bind", unix.SYS_BIND, 3, 0x1000, 16)
		v.expect(t, seccompAllow, "connect", unix.SYS_CONNECT, 3, 0x1000, 16)
	}
}

// atFDCWD is AT_FDCWD (-100) as a 64-bit register holds it.
const atFDCWD = ^uint64(99)

// TestSeccompModes: no mode a child sets carries S_ISUID or S_ISGID; openat2's is out of reach.
func TestSeccompModes(t *testing.T) {
	type call struct {
		name string
		nr   uint32
		arg  int
	}
	calls := []call{{"open", unix.SYS_OPEN, 2}, {"creat", unix.SYS_CREAT, 1}, {"openat", unix.SYS_OPENAT, 3},
		{"mkdir", unix.SYS_MKDIR, 1}, {"mkdirat", unix.SYS_MKDIRAT, 2}}
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, c := range calls {
			for _, mode := range []uint64{0, 0o644, 0o755, 0o777, 0o1777, 0o4000 << 32} {
				args := []uint64{0x1000, 0x1000, 0x1000, 0x1000}
				args[c.arg] = mode
				v.expect(t, seccompAllow, fmt.Sprintf("%s(mode %#o)", c.name, mode), c.nr, args...)
			}
			for _, mode := range []uint64{0o4755, 0o2755, 0o6777, unix.S_IFREG | 0o4000, 0xffffffff} {
				args := []uint64{0x1000, 0x1000, 0x1000, 0x1000}
				args[c.arg] = mode
				v.expect(t, seccompEPERM, fmt.Sprintf("%s(mode %#o)", c.name, mode), c.nr, args...)
			}
		}
		// The flags of openat are not its mode.
		v.expect(t, seccompAllow, "openat(O_RDONLY, flags with 04000 = O_NONBLOCK)", unix.SYS_OPENAT, atFDCWD, 0x1000, unix.O_NONBLOCK, 0)
		v.expect(t, seccompENOSYS, "openat2", unix.SYS_OPENAT2, atFDCWD, 0x1000, 0x2000, 24)
	}
}

func TestSeccompSockets(t *testing.T) {
	const (
		nb    = unix.SOCK_NONBLOCK | unix.SOCK_CLOEXEC
		mptcp = 262
		sctp  = unix.IPPROTO_SCTP
	)
	type sock struct {
		family, typ, proto uint64
		kind               string // "unix", "tcp" or "" (never allowed)
	}
	socks := []sock{
		{unix.AF_UNIX, unix.SOCK_STREAM, 0, "unix"},
		{unix.AF_UNIX, unix.SOCK_DGRAM | nb, 0, "unix"},
		{unix.AF_UNIX, unix.SOCK_SEQPACKET, 0, "unix"},
		{unix.AF_INET, unix.SOCK_STREAM, 0, "tcp"},
		{unix.AF_INET, unix.SOCK_STREAM | nb, 0, "tcp"},
		{unix.AF_INET, unix.SOCK_STREAM | nb, unix.IPPROTO_TCP, "tcp"},
		{unix.AF_INET6, unix.SOCK_STREAM | nb, 0, "tcp"},
		{unix.AF_INET6, unix.SOCK_STREAM, unix.IPPROTO_TCP, "tcp"},
		{unix.AF_INET | 0xffffffff00000000, unix.SOCK_STREAM, 0, "tcp"}, // high halves are ignored by the kernel
		{unix.AF_INET, unix.SOCK_STREAM, mptcp, ""},
		{unix.AF_INET6, unix.SOCK_STREAM | nb, mptcp, ""},
		{unix.AF_INET, unix.SOCK_STREAM, sctp, ""},
		{unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_TCP | 0x100, ""},
		{unix.AF_INET, unix.SOCK_DGRAM, 0, ""},
		{unix.AF_INET, unix.SOCK_DGRAM | nb, unix.IPPROTO_UDP, ""},
		{unix.AF_INET6, unix.SOCK_DGRAM, 0, ""},
		{unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP, ""},
		{unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP, ""},
		{unix.AF_INET6, unix.SOCK_RAW, unix.IPPROTO_ICMPV6, ""},
		{unix.AF_INET, unix.SOCK_SEQPACKET, sctp, ""},
		{unix.AF_INET, unix.SOCK_STREAM | 0x10, 0, ""},  // a stray type bit: not exactly a stream
		{unix.AF_INET, unix.SOCK_STREAM | 1<<20, 0, ""}, // nor is an unknown flag
		{unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE, ""},
		{unix.AF_NETLINK, unix.SOCK_DGRAM, 0, ""},
		{unix.AF_PACKET, unix.SOCK_RAW, 0x0300, ""},
		{unix.AF_VSOCK, unix.SOCK_STREAM, 0, ""},
		{unix.AF_BLUETOOTH, unix.SOCK_STREAM, 0, ""},
		{unix.AF_ALG, unix.SOCK_SEQPACKET, 0, ""},
		{unix.AF_KEY, unix.SOCK_RAW, 2, ""},
		{unix.AF_XDP, unix.SOCK_RAW, 0, ""},
		{unix.AF_CAN, unix.SOCK_RAW, 1, ""},
		{unix.AF_TIPC, unix.SOCK_STREAM, 0, ""},
		{unix.AF_RDS, unix.SOCK_SEQPACKET, 0, ""},
		{unix.AF_INET | 1<<16, unix.SOCK_STREAM, 0, ""},
		{0, unix.SOCK_STREAM, 0, ""},
	}
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for _, s := range socks {
			want := seccompEPERM
			if (s.kind == "unix" && p.AllowUnix) || (s.kind == "tcp" && p.AllowInet) {
				want = seccompAllow
			}
			v.expect(t, want, fmt.Sprintf("socket(%#x, %#x, %d)", s.family, s.typ, s.proto), unix.SYS_SOCKET, s.family, s.typ, s.proto)
		}
		want := seccompEPERM
		if p.AllowUnix {
			want = seccompAllow
		}
		v.expect(t, want, "socketpair(AF_UNIX)", unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM, 0, 0x1000)
		v.expect(t, seccompEPERM, "socketpair(AF_INET)", unix.SYS_SOCKETPAIR, unix.AF_INET, unix.SOCK_STREAM, 0, 0x1000)
		v.expect(t, seccompEPERM, "socketpair(AF_NETLINK)", unix.SYS_SOCKETPAIR, unix.AF_NETLINK, unix.SOCK_RAW, 0, 0x1000)
	}
}

// seccompMetadataSetters are refused under every policy: Landlock does not govern them.
var seccompMetadataSetters = map[string]uint32{
	"chmod": unix.SYS_CHMOD, "fchmod": unix.SYS_FCHMOD, "fchmodat": unix.SYS_FCHMODAT, "fchmodat2": unix.SYS_FCHMODAT2,
	"chown": unix.SYS_CHOWN, "fchown": unix.SYS_FCHOWN, "lchown": unix.SYS_LCHOWN, "fchownat": unix.SYS_FCHOWNAT,
	"setxattr": unix.SYS_SETXATTR, "lsetxattr": unix.SYS_LSETXATTR, "fsetxattr": unix.SYS_FSETXATTR, "setxattrat": unix.SYS_SETXATTRAT,
	"removexattr": unix.SYS_REMOVEXATTR, "lremovexattr": unix.SYS_LREMOVEXATTR, "fremovexattr": unix.SYS_FREMOVEXATTR,
	"removexattrat": unix.SYS_REMOVEXATTRAT, "utime": unix.SYS_UTIME, "utimes": unix.SYS_UTIMES, "futimesat": unix.SYS_FUTIMESAT,
	"inotify_add_watch": unix.SYS_INOTIFY_ADD_WATCH, "fanotify_init": unix.SYS_FANOTIFY_INIT, "fanotify_mark": unix.SYS_FANOTIFY_MARK,
}

func TestSeccompMetadataChanges(t *testing.T) {
	for _, p := range seccompPolicies() {
		v := newSeccompVM(t, p)
		for name, nr := range seccompMetadataSetters {
			v.expect(t, seccompEPERM, name, nr, 3, 0x1000, 0o644, 0)
			v.expect(t, seccompEPERM, name+"(mode 0)", nr, 3, 0, 0, 0)
		}
		// utimensat with a path is a path-based setter; without one (futimens) it needs AllowTimes.
		want := seccompEPERM
		if p.AllowTimes {
			want = seccompAllow
		}
		v.expect(t, want, "utimensat(fd, NULL)", unix.SYS_UTIMENSAT, 3, 0, 0x1000, 0)
		v.expect(t, seccompEPERM, "utimensat(AT_FDCWD, path)", unix.SYS_UTIMENSAT, atFDCWD, 0x7fff1000, 0x1000, 0)
		v.expect(t, seccompEPERM, "utimensat(fd, \"\", AT_EMPTY_PATH)", unix.SYS_UTIMENSAT, 3, 0x7fff1000, 0x1000, unix.AT_EMPTY_PATH)
		v.expect(t, seccompEPERM, "utimensat(fd, path in the high half)", unix.SYS_UTIMENSAT, 3, 0x7fff00000000, 0x1000, 0)
		v.expect(t, seccompAllow, "getxattr", unix.SYS_GETXATTR)
		v.expect(t, seccompAllow, "umask", unix.SYS_UMASK)
		v.expect(t, seccompAllow, "inotify_init1", unix.SYS_INOTIFY_INIT1)
	}
	inTable := map[uint32]string{}
	for _, s := range seccompAMD64.deny {
		inTable[s.nr] = s.name
	}
	for name, nr := range seccompMetadataSetters {
		if inTable[nr] != name {
			t.Errorf("%s (%d) is not in the deny table under its name (%q)", name, nr, inTable[nr])
		}
	}
}

func TestSeccompUnsupportedArchitecture(t *testing.T) {
	// Where no table exists the builder refuses, so that confinement fails closed.
	if _, err := buildSeccomp(nil, seccompNone); err == nil {
		t.Fatal("buildSeccomp without a table: no error")
	}
}

// ---------------------------------------------------------------------------------------------
// The escape suite: every attack runs in a child, the helper of internal/attack, never here.

// seccompRequireKernel skips (or, under TOOLEXPLORER_REQUIRE_LANDLOCK=1, fails) without seccomp
// filters.
func seccompRequireKernel(t *testing.T) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("%s (TOOLEXPLORER_REQUIRE_LANDLOCK=1: confinement is required)", msg)
		}
		t.Skipf("skipped: %s", msg)
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		fail("the kernel has no seccomp (prctl(PR_GET_SECCOMP): %v)", err)
	}
	action := uint32(unix.SECCOMP_RET_KILL_PROCESS)
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action))); e != 0 {
		fail("the kernel has no seccomp filters with SECCOMP_RET_KILL_PROCESS (seccomp(SECCOMP_GET_ACTION_AVAIL): %v)", e)
	}
}

// seccompResult is the line the helper prints.
type seccompResult struct {
	Attack  string `json:"attack"`
	Blocked bool   `json:"blocked"`
	Errno   string `json:"errno"`
	Fault   bool   `json:"fault"`
	Detail  string `json:"detail"`
}

// seccompRun is what one run of the helper showed.
type seccompRun struct {
	res    seccompResult
	signal syscall.Signal // the signal that killed the helper, if one did
	err    error          // the helper failed to run or to answer
}

// outcome is the run in a few words, in the terms of the expectations.
func (r seccompRun) outcome() string {
	switch {
	case r.signal != 0:
		return "killed by " + unix.SignalName(r.signal)
	case r.err != nil:
		return "error: " + r.err.Error()
	case r.res.Fault:
		return "faulted"
	case !r.res.Blocked:
		return "works"
	case r.res.Errno != "":
		return r.res.Errno
	default:
		return "refused"
	}
}

// notCarriedOut says why the kernel did not carry out the attempt of an unconfined control run
// (the attack is then not applicable on this machine), or "" when the control ran its course:
// the attempt worked, or the kernel took it in and answered on its merits (EINVAL, ENOTTY, ...).
// A helper that failed or was killed otherwise (a timeout's SIGKILL) is not a kernel reason.
func (r seccompRun) notCarriedOut() string {
	switch {
	case r.err != nil:
		return ""
	case r.res.Fault:
		return "the instruction faults without the filter (" + r.res.Detail + ")"
	case r.signal == syscall.SIGSEGV || r.signal == syscall.SIGBUS || r.signal == syscall.SIGILL || r.signal == syscall.SIGSYS:
		return "killed by " + unix.SignalName(r.signal) + " without the filter"
	case r.signal != 0 || !r.res.Blocked:
		return ""
	}
	switch r.res.Errno {
	case "ENOSYS", "EAFNOSUPPORT", "EPROTONOSUPPORT", "ESOCKTNOSUPPORT", "EOPNOTSUPP", "ENOTSUP":
		return "the kernel lacks it: " + r.res.Errno + " without the filter"
	case "EPERM", "EACCES":
		return "the kernel refuses it to the helper's uid: " + r.res.Errno + " without the filter"
	}
	return ""
}

// seccompVerdict is the judgement of one attack row: "ok", "FAIL" or "n/a", and why.
type seccompVerdict struct {
	verdict, why string
}

// judgeAttack judges an attack row from its confined run and its unconfined control. An attack
// that works under the filter fails whatever its control showed; a row the kernel refuses
// (kernel) passes when both runs end as expected; otherwise an attack whose control the kernel
// did not carry out proves nothing here and is not applicable; otherwise the confined outcome
// must be the expected one, and (differs) the control must end otherwise.
func judgeAttack(c seccompCase, confined, control seccompRun) seccompVerdict {
	want := c.expect
	if want == "SIGSYS" {
		want = "killed by SIGSYS"
	}
	got, ctl := confined.outcome(), control.outcome()
	if got == "works" {
		return seccompVerdict{"FAIL", fmt.Sprintf("the attack works under the filter (%s)", confined.res.Detail)}
	}
	if c.kernel && ctl == want {
		// The kernel refuses it without the filter, as the row says: the filter must leave it so.
		if got != want {
			return seccompVerdict{"FAIL", fmt.Sprintf("got %s, want %s as without the filter (%s)", got, want, confined.res.Detail)}
		}
		return seccompVerdict{"ok", ""}
	}
	if why := control.notCarriedOut(); why != "" {
		return seccompVerdict{"n/a", why}
	}
	if got != want {
		return seccompVerdict{"FAIL", fmt.Sprintf("got %s, want %s (%s)", got, want, confined.res.Detail)}
	}
	if control.err != nil || control.signal != 0 {
		return seccompVerdict{"FAIL", "the unconfined control did not run its course: " + ctl}
	}
	if c.differs && ctl == got {
		return seccompVerdict{"FAIL", fmt.Sprintf("the unconfined control also ends %s (%s): the attack proves nothing here", ctl, control.res.Detail)}
	}
	return seccompVerdict{"ok", ""}
}

// seccompCase is one row of the suite.
type seccompCase struct {
	attack string
	policy SeccompPolicy
	// expect is the outcome under the filter: an errno name, "SIGSYS" (killed), "works" (a check
	// that the process still works) or "refused" (InstallSeccomp said no).
	expect string
	// differs asks the unconfined control run to end otherwise, proving that the filter made the
	// difference; it is set for attempts that succeed on any ordinary Linux host.
	differs bool
	// kernel marks an attempt the kernel refuses, filter or not: the row checks that the filter
	// leaves that refusal in place, and the control ending alike is what it expects.
	kernel bool
	note   string
}

var seccompCases = []seccompCase{
	// Other processes (the victim is a sleep process the test started, running as the helper's uid).
	{attack: "ptrace-attach", policy: seccompAll, expect: "EPERM"},
	{attack: "process-vm-readv", policy: seccompAll, expect: "EPERM"},
	{attack: "pidfd-getfd", policy: seccompAll, expect: "EPERM"},
	{attack: "prlimit-other", policy: seccompAll, expect: "EPERM"},
	// Namespaces, mounts, root.
	{attack: "mount", policy: seccompAll, expect: "EPERM"},
	{attack: "unshare-user", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "clone-newuser", policy: seccompAll, expect: "EPERM", note: "raw clone(CLONE_NEWUSER|SIGCHLD), fork allowed"},
	{attack: "setns", policy: seccompAll, expect: "EPERM"},
	{attack: "chroot", policy: seccompAll, expect: "EPERM"},
	// Leaving the process group, which the deadline kill reaches.
	{attack: "setsid", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "setpgid", policy: seccompAll, expect: "EPERM", differs: true, note: "setpgid(0, 0): a group of its own"},
	// Kernel interfaces.
	{attack: "bpf", policy: seccompAll, expect: "EPERM"},
	{attack: "perf-event-open", policy: seccompAll, expect: "EPERM"},
	{attack: "io-uring-setup", policy: seccompAll, expect: "EPERM"},
	{attack: "keyctl", policy: seccompAll, expect: "EPERM"},
	{attack: "userfaultfd", policy: seccompAll, expect: "EPERM"},
	{attack: "personality", policy: seccompAll, expect: "EPERM"},
	{attack: "tiocsti-high", policy: seccompAll, expect: "EPERM", differs: true, note: "ioctl(0, 0xdead00005412)"},
	{attack: "tioclinux-high", policy: seccompAll, expect: "EPERM", differs: true, note: "ioctl(0, 0xbeef0000541c)"},
	{attack: "x32-getpid", policy: seccompAll, expect: "EPERM", note: "getpid|0x40000000"},
	{attack: "int80-getpid", policy: seccompAll, expect: "SIGSYS", note: "i386 entry: arch check"},
	{attack: "clone3", policy: seccompAll, expect: "ENOSYS", differs: true, note: "so that libc falls back to clone"},
	{attack: "setuid0", policy: seccompAll, expect: "EPERM", kernel: true, note: "kernel: uid 65534 and no_new_privs"},
	// Processes and exec.
	{attack: "clone-fork", policy: seccompNone, expect: "EPERM", differs: true, note: "raw clone(SIGCHLD)"},
	{attack: "fork", policy: seccompNone, expect: "EPERM", differs: true},
	{attack: "exec-true", policy: seccompNone, expect: "EPERM", differs: true, note: "os/exec /bin/true"},
	{attack: "execve", policy: seccompNone, expect: "EPERM", differs: true},
	{attack: "memfd-execveat", policy: seccompNone, expect: "EPERM", differs: true, note: "execveat refused"},
	{attack: "memfd-execveat", policy: seccompExec, expect: "EPERM", differs: true, note: "memfd_create refused"},
	{attack: "memfd-noexec-execveat", policy: seccompExec, expect: "EACCES", kernel: true, note: "kernel: sealed non-executable"},
	// Sockets.
	{attack: "inet-tcp", policy: seccompNone, expect: "EPERM"},
	{attack: "udp", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "udp6", policy: seccompAll, expect: "EPERM"},
	{attack: "raw-icmp", policy: seccompAll, expect: "EPERM"},
	{attack: "ping-icmp", policy: seccompAll, expect: "EPERM"},
	{attack: "mptcp", policy: seccompAll, expect: "EPERM"},
	{attack: "mptcp6", policy: seccompAll, expect: "EPERM"},
	{attack: "sctp-stream", policy: seccompAll, expect: "EPERM"},
	{attack: "netlink", policy: seccompAll, expect: "EPERM"},
	{attack: "packet", policy: seccompAll, expect: "EPERM"},
	{attack: "vsock", policy: seccompAll, expect: "EPERM"},
	{attack: "alg", policy: seccompAll, expect: "EPERM"},
	{attack: "inet-socketpair", policy: seccompAll, expect: "EPERM"},
	{attack: "unix-socket", policy: seccompNone, expect: "EPERM", differs: true},
	{attack: "unix-socketpair", policy: seccompNone, expect: "EPERM", differs: true},
	// Files and IPC.
	// Metadata, which Landlock does not govern: refused under every policy.
	{attack: "chmod", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "fchmod", policy: seccompAll, expect: "EPERM", differs: true, note: "a descriptor opened for reading"},
	{attack: "fchmod-setuid", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "fchmodat2-opath", policy: seccompAll, expect: "EPERM", differs: true, note: "O_PATH needs no Landlock right"},
	{attack: "chown", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "fchown", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "setxattr", policy: seccompAll, expect: "EPERM"},
	{attack: "fsetxattr", policy: seccompAll, expect: "EPERM"},
	{attack: "create-setuid", policy: seccompAll, expect: "EPERM", differs: true, note: "open(O_CREAT, 04755)"},
	{attack: "mkdir-setgid", policy: seccompAll, expect: "EPERM", differs: true, note: "mkdir(02755)"},
	{attack: "utimensat-path", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "chattr", policy: seccompAll, expect: "EPERM", differs: true, note: "ioctl(FS_IOC_SETFLAGS, FS_NODUMP_FL)"},
	{attack: "futimens", policy: seccompNone, expect: "EPERM", differs: true, note: "without AllowTimes"},
	{attack: "inotify-watch", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "openat2", policy: seccompAll, expect: "ENOSYS", differs: true, note: "its mode is out of the filter's reach"},
	// Scheduling of other processes of the same uid.
	{attack: "setpriority-other", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "sched-setaffinity-other", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "ioprio-set-other", policy: seccompAll, expect: "EPERM", differs: true},
	// TCP Fast Open connects without connect(2); listen binds without bind(2).
	{attack: "tfo-sendto", policy: seccompInet, expect: "EPERM", differs: true},
	{attack: "tfo-sendmsg", policy: seccompInet, expect: "EPERM", differs: true},
	{attack: "tfo-connect-sockopt", policy: seccompInet, expect: "EPERM", differs: true},
	{attack: "listen-autobind", policy: seccompInet, expect: "EPERM", differs: true, note: "without AllowListen"},
	{attack: "mknod", policy: seccompAll, expect: "EPERM", differs: true, note: "a FIFO"},
	{attack: "name-to-handle-at", policy: seccompAll, expect: "EPERM"},
	{attack: "shmget", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "msgget", policy: seccompAll, expect: "EPERM", differs: true},
	{attack: "semget", policy: seccompAll, expect: "EPERM", differs: true},
	// Threads started before the filter, and a thread TSYNC cannot synchronise.
	{attack: "tsync-older-thread", policy: seccompNone, expect: "EPERM", note: "ptrace from a thread older than the filter"},
	{attack: "tsync-conflict", policy: seccompNone, expect: "refused", note: "error names the thread"},
	// The process still works under the filter.
	{attack: "runtime-threads", policy: seccompNone, expect: "works", note: "50 goroutines, 8 locked: new threads"},
	{attack: "gc", policy: seccompNone, expect: "works"},
	{attack: "json", policy: seccompNone, expect: "works"},
	{attack: "time", policy: seccompNone, expect: "works"},
	{attack: "read-file", policy: seccompNone, expect: "works"},
	{attack: "getpid", policy: seccompNone, expect: "works"},
	{attack: "prlimit-self", policy: seccompNone, expect: "works", note: "prlimit64(0)"},
	{attack: "ioctl-fionread", policy: seccompNone, expect: "works"},
	{attack: "tcp-connect", policy: seccompInet, expect: "works", note: "to the test's loopback listener"},
	{attack: "tcp-listen", policy: seccompInetListen, expect: "works", note: "net.Listen: MPTCP refused, plain TCP"},
	{attack: "unix-listen", policy: seccompUnixListen, expect: "works"},
	{attack: "exec-true", policy: seccompExec, expect: "works"},
	{attack: "memfd-create-noexec-ok", policy: seccompExec, expect: "works", note: "MFD_NOEXEC_SEAL"},
	{attack: "futimens", policy: seccompTimes, expect: "works"},
	{attack: "nice-self", policy: seccompNone, expect: "works", note: "setpriority and sched_setaffinity with pid 0"},
}

// seccompSuite is the state of one run of the escape suite.
type seccompSuite struct {
	helper  string // the attack binary
	base    string // a directory the helper's uid can traverse
	victim  int
	addr    string
	asRoot  bool
	counter int
}

const seccompNobody = 65534

func TestSeccompEscapeSuite(t *testing.T) {
	seccompRequireKernel(t)
	s := newSeccompSuite(t)

	type row struct {
		c                       seccompCase
		want, confined, control string
		detail, controlDetail   string
		verdict                 seccompVerdict
	}
	var rows []row // the rows that ran (-run may filter some out)
	for _, c := range seccompCases {
		r := row{c: c, want: c.expect, control: "-"}
		if c.expect == "SIGSYS" {
			r.want = "killed by SIGSYS"
		}
		ran := false
		t.Run(c.attack+"/"+seccompPolicyName(c.policy), func(t *testing.T) {
			ran = true
			run := s.run(t, c.attack, c.policy, true)
			r.confined, r.detail = run.outcome(), run.res.Detail
			if c.expect == "works" || c.expect == "refused" {
				r.verdict = seccompVerdict{"ok", ""}
				if r.confined != r.want {
					r.verdict = seccompVerdict{"FAIL", ""}
					t.Errorf("%s under %s: got %s, want %s (%s)", c.attack, seccompPolicyName(c.policy), r.confined, r.want, run.res.Detail)
				}
				return
			}
			ctl := s.run(t, c.attack, c.policy, false)
			r.control, r.controlDetail = ctl.outcome(), ctl.res.Detail
			r.verdict = judgeAttack(c, run, ctl)
			switch r.verdict.verdict {
			case "n/a":
				t.Skipf("not applicable on this machine: %s (under the filter: %s)", r.verdict.why, r.confined)
			case "FAIL":
				t.Errorf("%s under %s: %s", c.attack, seccompPolicyName(c.policy), r.verdict.why)
			}
		})
		if ran {
			rows = append(rows, r)
		}
	}
	// A row whose control cannot succeed on any kernel (int $0x81 faults everywhere, as int $0x80
	// does where the i386 entry is off) is not applicable, not a failure.
	t.Run("control-faults/not-applicable", func(t *testing.T) {
		c := seccompCase{attack: "int81-fault", policy: seccompAll, expect: "SIGSYS"}
		run, ctl := s.run(t, c.attack, c.policy, true), s.run(t, c.attack, c.policy, false)
		if !run.res.Fault || !ctl.res.Fault {
			t.Fatalf("int $0x81: confined %s, unconfined %s; want both faulted (%s | %s)", run.outcome(), ctl.outcome(), run.res.Detail, ctl.res.Detail)
		}
		if v := judgeAttack(c, run, ctl); v.verdict != "n/a" || !strings.Contains(v.why, "faults") {
			t.Errorf("a control that faults: %+v, want n/a naming the fault", v)
		}
	})

	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "attack\tpolicy\texpected\toutcome\tunconfined\tnote")
	for _, r := range rows {
		outcome, note := r.confined, r.c.note
		switch r.verdict.verdict {
		case "FAIL":
			outcome += "  <-- FAIL"
		case "n/a":
			outcome += "  (n/a)"
			note = strings.TrimPrefix(note+"; ", "; ") + "not applicable: " + r.verdict.why
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.c.attack, seccompPolicyName(r.c.policy), r.c.expect, outcome, r.control, note)
	}
	tw.Flush()
	uid := fmt.Sprint(os.Getuid())
	if s.asRoot {
		uid = fmt.Sprint(seccompNobody)
	}
	t.Logf("seccomp escape suite (helper as uid %s; unconfined: the same attempt without the filter):\n%s", uid, b.String())
	if testing.Verbose() {
		var d strings.Builder
		for _, r := range rows {
			fmt.Fprintf(&d, "%s/%s: %s", r.c.attack, seccompPolicyName(r.c.policy), r.detail)
			if r.controlDetail != "" {
				fmt.Fprintf(&d, " | unconfined: %s", r.controlDetail)
			}
			d.WriteByte('\n')
		}
		t.Logf("details:\n%s", d.String())
	}
}

// TestSeccompJudgeAttack: how a row is judged from its two runs.
func TestSeccompJudgeAttack(t *testing.T) {
	errno := func(name string) seccompRun {
		return seccompRun{res: seccompResult{Blocked: true, Errno: name, Detail: "attempt: " + name}}
	}
	var (
		works   = seccompRun{res: seccompResult{Detail: "attempt: succeeded"}}
		faulted = seccompRun{res: seccompResult{Blocked: true, Fault: true, Detail: "the instruction faulted"}}
		sigsys  = seccompRun{signal: syscall.SIGSYS}
		segv    = seccompRun{signal: syscall.SIGSEGV}
		killed  = seccompRun{signal: syscall.SIGKILL} // a timeout, not the kernel
		broken  = seccompRun{err: errors.New("exit status 3: drop privileges")}
	)
	int80 := seccompCase{attack: "int80-getpid", expect: "SIGSYS"}
	setsid := seccompCase{attack: "setsid", expect: "EPERM", differs: true}
	clone3 := seccompCase{attack: "clone3", expect: "ENOSYS", differs: true}
	mount := seccompCase{attack: "mount", expect: "EPERM"}
	setuid := seccompCase{attack: "setuid0", expect: "EPERM", kernel: true}
	cases := []struct {
		name              string
		c                 seccompCase
		confined, control seccompRun
		want              string
	}{
		{"blocked, control works", setsid, errno("EPERM"), works, "ok"},
		{"killed by the filter, control works", int80, sigsys, works, "ok"},
		{"the attack works under the filter", setsid, works, works, "FAIL"},
		{"the attack works under the filter, control refused", mount, works, errno("EPERM"), "FAIL"},
		{"wrong errno under the filter", setsid, errno("EINVAL"), works, "FAIL"},
		{"the control also ends so (differs)", setsid, errno("EINVAL"), errno("EINVAL"), "FAIL"},
		{"control answered on its merits (differs)", clone3, errno("ENOSYS"), errno("EINVAL"), "ok"},
		{"the helper failed in the control", setsid, errno("EPERM"), broken, "FAIL"},
		{"the helper failed under the filter", setsid, broken, works, "FAIL"},
		{"the control timed out", setsid, errno("EPERM"), killed, "FAIL"},
		{"the i386 entry is off: both fault", int80, faulted, faulted, "n/a"},
		{"the control killed by SIGSEGV", int80, segv, segv, "n/a"},
		{"the control killed by an outer filter", setsid, errno("EPERM"), sigsys, "n/a"},
		{"the kernel lacks the call", clone3, errno("ENOSYS"), errno("ENOSYS"), "n/a"},
		{"the kernel lacks the family", mount, errno("EPERM"), errno("EAFNOSUPPORT"), "n/a"},
		{"the kernel refuses the uid", setsid, errno("EPERM"), errno("EPERM"), "n/a"},
		{"the kernel refuses the uid, EACCES", mount, errno("EPERM"), errno("EACCES"), "n/a"},
		{"a kernel row, refused both ways", setuid, errno("EPERM"), errno("EPERM"), "ok"},
		{"a kernel row, another errno under the filter", setuid, errno("EINVAL"), errno("EPERM"), "FAIL"},
	}
	for _, tc := range cases {
		v := judgeAttack(tc.c, tc.confined, tc.control)
		if v.verdict != tc.want {
			t.Errorf("%s: %+v, want %s", tc.name, v, tc.want)
		}
		if v.verdict != "ok" && v.why == "" {
			t.Errorf("%s: %s without a reason", tc.name, v.verdict)
		}
	}
}

func newSeccompSuite(t *testing.T) *seccompSuite {
	t.Helper()
	s := &seccompSuite{asRoot: os.Getuid() == 0}

	// A base directory the helper can reach after dropping to nobody (t.TempDir's parent is 0700).
	base, err := os.MkdirTemp("", "confine-seccomp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	s.base = base

	// The helper, pure Go: no race detector, no cgo.
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the attack helper: %v", err)
	}
	s.helper = filepath.Join(base, "attack")
	build := exec.Command(gotool, "build", "-o", s.helper, "./internal/attack")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the attack helper: %v\n%s", err, out)
	}

	// The victim: a sacrificial process with the helper's uid, so that only the filter stands
	// between them.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatalf("a sleep command is needed as the victim: %v", err)
	}
	victim := exec.Command(sleep, "3600")
	if s.asRoot {
		victim.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: seccompNobody, Gid: seccompNobody}}
	}
	if err := victim.Start(); err != nil {
		t.Fatalf("start the victim: %v", err)
	}
	t.Cleanup(func() {
		victim.Process.Kill()
		victim.Wait()
	})
	s.victim = victim.Process.Pid

	// A loopback listener the helper may connect to.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("pong\n"))
			c.Close()
		}
	}()
	s.addr = ln.Addr().String()
	return s
}

// scratch makes a fresh directory with a file in it, owned by the helper's uid.
func (s *seccompSuite) scratch(t *testing.T) string {
	t.Helper()
	s.counter++
	dir := filepath.Join(s.base, fmt.Sprintf("scratch-%d", s.counter))
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("scratch\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s.asRoot {
		for _, p := range []string{dir, file} {
			if err := os.Chown(p, seccompNobody, seccompNobody); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

// run starts the helper for one attack, confined by the filter of p or (filter false) not.
func (s *seccompSuite) run(t *testing.T, attack string, p SeccompPolicy, filter bool) seccompRun {
	t.Helper()
	pj, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{attack, "--policy", string(pj), "--victim", fmt.Sprint(s.victim), "--scratch", s.scratch(t), "--addr", s.addr}
	if !filter {
		args = append(args, "--no-filter")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.helper, args...)
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	cmd.Dir = s.base
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()

	var run seccompRun
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			run.signal = ws.Signal()
			return run
		}
	}
	if err != nil {
		run.err = fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		return run
	}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	var last string
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			last = l
		}
	}
	if err := json.Unmarshal([]byte(last), &run.res); err != nil {
		run.err = fmt.Errorf("no result line (%v): %q %s", err, out, stderr.String())
		return run
	}
	if run.res.Attack != attack {
		run.err = fmt.Errorf("result for %q, want %q", run.res.Attack, attack)
	}
	return run
}

// TestSeccompDispatchEveryNumber runs the program for every system call number below 1024 under
// every policy and checks the decision of the number dispatch against the table read plainly:
// refused numbers get EPERM, clone3 ENOSYS, every other number is allowed (the numbers decided by
// their arguments have tests of their own).
func TestSeccompDispatchEveryNumber(t *testing.T) {
	a := &seccompAMD64
	special := map[uint32]bool{a.ioctl: true, a.clone: true, a.socket: true, a.socketpair: true, a.memfdCreate: true,
		a.sendto: true, a.sendmsg: true, a.sendmmsg: true, a.setsockopt: true, a.utimensat: true, a.setpriority: true, a.ioprioSet: true}
	for _, s := range a.pid0 {
		special[s.nr] = true
	}
	for _, m := range a.modeAt {
		special[m.nr] = true
	}
	for _, p := range seccompPolicies() {
		refused := map[uint32]bool{}
		for _, s := range a.deny {
			refused[s.nr] = true
		}
		for _, s := range a.exec {
			refused[s.nr] = refused[s.nr] || !p.AllowExec
		}
		for _, s := range a.listen {
			refused[s.nr] = refused[s.nr] || !p.AllowListen
		}
		v := newSeccompVM(t, p)
		for nr := uint32(0); nr < 1024; nr++ {
			want := uint32(seccompAllow)
			switch {
			case special[nr]:
				continue
			case nr == a.clone3 || nr == a.openat2:
				want = seccompENOSYS
			case refused[nr]:
				want = seccompEPERM
			}
			v.expect(t, want, fmt.Sprintf("system call %d", nr), nr)
		}
	}
}
