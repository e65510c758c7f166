//go:build linux && amd64

package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

// result is the one line the helper prints.
type result struct {
	Attack  string `json:"attack"`
	Blocked bool   `json:"blocked"`
	Errno   string `json:"errno"`
	// Fault is set when the attempt itself faulted (the kernel sent SIGSEGV or SIGBUS for the
	// instruction) and the helper recovered to report it.
	Fault  bool   `json:"fault,omitempty"`
	Detail string `json:"detail"`
}

// env is what an attack may use.
type env struct {
	name    string
	policy  confine.SeccompPolicy
	filter  bool
	victim  int
	scratch string
	addr    string
}

// attack is one attempt. An attack with installs set installs the filter itself (it needs to do
// something first); the others run after the filter is in place.
type attack struct {
	run      func(e *env) result
	installs bool
}

// nobody is the uid and gid the helper runs as when started as root.
const nobody = 65534

// int80 enters the kernel through the i386 system call gate (int80_amd64.s).
func int80(nr, a1, a2, a3 uintptr) uintptr

// int81 executes int $0x81, a vector no kernel opens to user space: it faults everywhere
// (int80_amd64.s).
func int81()

var attacks = map[string]attack{
	// Other processes: the victim is a process the test started for the purpose.
	"ptrace-attach":    {run: ptraceAttach},
	"process-vm-readv": {run: processVMReadv},
	"pidfd-getfd":      {run: pidfdGetfd},
	"prlimit-other":    {run: prlimitOther},

	// Namespaces, mounts, the root.
	"mount":         {run: mount},
	"unshare-user":  {run: func(*env) result { return outcome(unix.Unshare(unix.CLONE_NEWUSER), "unshare(CLONE_NEWUSER)") }},
	"clone-newuser": {run: func(*env) result { return rawFork(unix.SYS_CLONE, unix.CLONE_NEWUSER|uintptr(unix.SIGCHLD)) }},
	"setns":         {run: setns},
	"chroot":        {run: func(e *env) result { return outcome(unix.Chroot(e.scratch), "chroot(scratch)") }},

	// Leaving the process group.
	"setsid":  {run: func(*env) result { _, err := unix.Setsid(); return outcome(err, "setsid()") }},
	"setpgid": {run: func(*env) result { return outcome(unix.Setpgid(0, 0), "setpgid(0, 0)") }},

	// Kernel interfaces.
	"bpf":             {run: bpfMapCreate},
	"perf-event-open": {run: perfEventOpen},
	"io-uring-setup":  {run: ioUringSetup},
	"keyctl":          {run: keyctl},
	"userfaultfd":     {run: userfaultfd},
	"personality":     {run: func(*env) result { return rawCall("personality(0xffffffff)", unix.SYS_PERSONALITY, 0xffffffff) }},
	"tiocsti-high":    {run: tiocsti},
	"tioclinux-high":  {run: tioclinux},
	"x32-getpid":      {run: func(*env) result { return rawCall("getpid|0x40000000", unix.SYS_GETPID|0x40000000) }},
	"int80-getpid":    {run: int80Getpid},
	"int81-fault":     {run: int81Fault},
	"clone3":          {run: func(*env) result { return rawCall("clone3(NULL, 0)", unix.SYS_CLONE3, 0, 0) }},
	"setuid0":         {run: func(*env) result { return rawCall("setuid(0)", unix.SYS_SETUID, 0) }},

	// Processes and exec.
	"clone-fork":             {run: func(*env) result { return rawFork(unix.SYS_CLONE, uintptr(unix.SIGCHLD)) }},
	"fork":                   {run: func(*env) result { return rawFork(unix.SYS_FORK, 0) }},
	"exec-true":              {run: execTrue},
	"execve":                 {run: execveSelf},
	"memfd-execveat":         {run: func(e *env) result { return memfdExec(e, unix.MFD_CLOEXEC) }},
	"memfd-noexec-execveat":  {run: func(e *env) result { return memfdExec(e, unix.MFD_CLOEXEC|unix.MFD_NOEXEC_SEAL) }},
	"memfd-create-noexec-ok": {run: memfdNoexecOK},

	// Sockets.
	"inet-tcp":          {run: sock(unix.AF_INET, unix.SOCK_STREAM, 0)},
	"udp":               {run: sock(unix.AF_INET, unix.SOCK_DGRAM, 0)},
	"udp6":              {run: sock(unix.AF_INET6, unix.SOCK_DGRAM, 0)},
	"raw-icmp":          {run: sock(unix.AF_INET, unix.SOCK_RAW, unix.IPPROTO_ICMP)},
	"ping-icmp":         {run: sock(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_ICMP)},
	"mptcp":             {run: sock(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP)},
	"mptcp6":            {run: sock(unix.AF_INET6, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, unix.IPPROTO_MPTCP)},
	"sctp-stream":       {run: sock(unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_SCTP)},
	"netlink":           {run: sock(unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE)},
	"packet":            {run: sock(unix.AF_PACKET, unix.SOCK_RAW, 0x0300)}, // htons(ETH_P_ALL)
	"vsock":             {run: sock(unix.AF_VSOCK, unix.SOCK_STREAM, 0)},
	"alg":               {run: sock(unix.AF_ALG, unix.SOCK_SEQPACKET, 0)},
	"unix-socket":       {run: sock(unix.AF_UNIX, unix.SOCK_STREAM, 0)},
	"unix-socketpair":   {run: socketpair(unix.AF_UNIX)},
	"inet-socketpair":   {run: socketpair(unix.AF_INET)},
	"tcp-connect":       {run: tcpConnect},
	"tcp-listen":        {run: tcpListen},
	"unix-listen":       {run: unixListen},
	"name-to-handle-at": {run: nameToHandle},

	// Files and permissions in the scratch directory.
	"chmod": {run: func(e *env) result { return outcome(unix.Chmod(scratchFile(e), 0o777), "chmod(scratch file, 0777)") }},
	"chown": {run: func(e *env) result {
		return outcome(unix.Chown(scratchFile(e), os.Getuid(), os.Getgid()), "chown(scratch file, self)")
	}},
	"setxattr": {run: setxattr},
	"fchmod": {run: func(e *env) result {
		return withFile(e, unix.O_RDONLY, func(fd int) error { return unix.Fchmod(fd, 0o666) }, "fchmod(scratch file opened for reading, 0666)")
	}},
	"fchmod-setuid": {run: func(e *env) result {
		return withFile(e, unix.O_RDWR, func(fd int) error { return unix.Fchmod(fd, 0o4755) }, "fchmod(scratch file, 04755)")
	}},
	"fchmodat2-opath": {run: func(e *env) result {
		return withFile(e, unix.O_PATH, func(fd int) error {
			_, _, errno := unix.Syscall6(unix.SYS_FCHMODAT2, uintptr(fd), uintptr(unsafe.Pointer(emptyPath())), 0o666, unix.AT_EMPTY_PATH, 0, 0)
			return errnoErr(errno)
		}, `fchmodat2(O_PATH descriptor, "", 0666, AT_EMPTY_PATH)`)
	}},
	"fchown": {run: func(e *env) result {
		return withFile(e, unix.O_RDONLY, func(fd int) error { return unix.Fchown(fd, os.Getuid(), os.Getgid()) }, "fchown(scratch file, self)")
	}},
	"fsetxattr": {run: func(e *env) result {
		return withFile(e, unix.O_RDWR, func(fd int) error { return unix.Fsetxattr(fd, "user.attack", []byte("1"), 0) }, "fsetxattr(scratch file, user.attack)")
	}},
	"create-setuid": {run: createSetuid},
	"mkdir-setgid":  {run: mkdirSetgid},
	"utimensat-path": {run: func(e *env) result {
		return outcome(unix.UtimesNano(scratchFile(e), []unix.Timespec{{Sec: 1}, {Sec: 1}}), "utimensat(AT_FDCWD, scratch file, 1970)")
	}},
	"futimens": {run: func(e *env) result {
		return withFile(e, unix.O_RDWR, func(fd int) error {
			ts := [2]unix.Timespec{{Sec: 1}, {Sec: 1}}
			_, _, errno := unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
			return errnoErr(errno)
		}, "utimensat(scratch fd, NULL, 1970) = futimens")
	}},
	"chattr": {run: func(e *env) result {
		return withFile(e, unix.O_RDONLY, func(fd int) error {
			flags, err := unix.IoctlGetInt(fd, unix.FS_IOC_GETFLAGS)
			if err != nil {
				fatalf("FS_IOC_GETFLAGS: %v", err)
			}
			return unix.IoctlSetPointerInt(fd, unix.FS_IOC_SETFLAGS, flags|0x40) // FS_NODUMP_FL
		}, "ioctl(scratch file, FS_IOC_SETFLAGS, +FS_NODUMP_FL)")
	}},
	"inotify-watch": {run: inotifyWatch},
	"openat2":       {run: openat2},

	// Other processes' scheduling (the victim runs as the helper's uid).
	"setpriority-other":       {run: setpriorityOther},
	"sched-setaffinity-other": {run: schedSetaffinityOther},
	"ioprio-set-other":        {run: ioprioSetOther},
	"nice-self":               {run: niceSelf},

	// TCP Fast Open and listening without bind.
	"tfo-sendto":          {run: func(e *env) result { return fastOpen(e, "sendto") }},
	"tfo-sendmsg":         {run: func(e *env) result { return fastOpen(e, "sendmsg") }},
	"tfo-connect-sockopt": {run: fastOpenConnectOpt},
	"listen-autobind":     {run: listenAutobind},
	"mknod":               {run: mknod},
	"shmget":              {run: shmget},
	"msgget":              {run: msgget},
	"semget":              {run: semget},

	// The process still works after confinement.
	"runtime-threads":    {run: runtimeThreads},
	"gc":                 {run: gc},
	"json":               {run: jsonRoundTrip},
	"time":               {run: timeWorks},
	"read-file":          {run: readFile},
	"getpid":             {run: getpid},
	"prlimit-self":       {run: prlimitSelf},
	"ioctl-fionread":     {run: ioctlFionread},
	"tsync-older-thread": {run: tsyncOlderThread, installs: true},
	"tsync-conflict":     {run: tsyncConflict, installs: true},
}

func main() {
	if len(os.Args) == 3 && os.Args[1] == "--exec-probe" {
		emit(result{Attack: os.Args[2], Detail: "a new program image ran: exec was not refused"})
		return
	}
	if len(os.Args) < 2 || strings.HasPrefix(os.Args[1], "-") {
		fatalf("usage: attack NAME --policy JSON [--no-filter] [--victim PID] [--scratch DIR] [--addr HOST:PORT]")
	}
	name := os.Args[1]
	fs := flag.NewFlagSet("attack "+name, flag.ContinueOnError)
	policy := fs.String("policy", "{}", "the confine.SeccompPolicy, as JSON")
	noFilter := fs.Bool("no-filter", false, "control run: do not install the filter")
	victim := fs.Int("victim", 0, "pid of the sacrificial process")
	scratch := fs.String("scratch", "", "a directory the helper may write to")
	addr := fs.String("addr", "", "a loopback TCP address that answers")
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(3)
	}
	a, ok := attacks[name]
	if !ok {
		fatalf("unknown attack %q", name)
	}
	e := &env{name: name, filter: !*noFilter, victim: *victim, scratch: *scratch, addr: *addr}
	dec := json.NewDecoder(strings.NewReader(*policy))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e.policy); err != nil {
		fatalf("--policy: %v", err)
	}
	if err := dropPrivileges(); err != nil {
		fatalf("drop privileges: %v", err)
	}
	if e.filter && !a.installs {
		if err := confine.InstallSeccomp(e.policy); err != nil {
			fatalf("install the filter: %v", err)
		}
	}
	r := a.run(e)
	r.Attack = name
	emit(r)
}

func emit(r result) {
	b, err := json.Marshal(r)
	if err != nil {
		fatalf("encode result: %v", err)
	}
	os.Stdout.Write(append(b, '\n'))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "attack: "+format+"\n", args...)
	os.Exit(3)
}

// dropPrivileges makes a root helper nobody, as the confined child is before its filter.
func dropPrivileges() error {
	if os.Getuid() != 0 {
		return nil
	}
	if err := syscall.Setgroups(nil); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setgid(nobody); err != nil {
		return fmt.Errorf("setgid: %w", err)
	}
	if err := syscall.Setuid(nobody); err != nil {
		return fmt.Errorf("setuid: %w", err)
	}
	if os.Getuid() != nobody || os.Geteuid() != nobody || os.Getgid() != nobody {
		return errors.New("still privileged after setuid")
	}
	return nil
}

// outcome turns the error of an attempt into a result.
func outcome(err error, what string) result {
	if err == nil {
		return result{Detail: what + ": succeeded"}
	}
	r := result{Blocked: true, Detail: what + ": " + err.Error()}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		r.Errno = errnoName(errno)
	}
	return r
}

func errnoName(e syscall.Errno) string {
	if n := unix.ErrnoName(e); n != "" {
		return n
	}
	return "errno " + strconv.Itoa(int(e))
}

// failed is the result of a check that did not hold.
func failed(format string, args ...any) result {
	return result{Blocked: true, Detail: fmt.Sprintf(format, args...)}
}

func passed(format string, args ...any) result {
	return result{Detail: fmt.Sprintf(format, args...)}
}

func errnoErr(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// rawCall makes one system call on the current thread.
func rawCall(what string, trap uintptr, args ...uintptr) result {
	var a [6]uintptr
	copy(a[:], args)
	r1, _, e := unix.Syscall6(trap, a[0], a[1], a[2], a[3], a[4], a[5])
	r := outcome(errnoErr(e), what)
	if e == 0 {
		r.Detail += fmt.Sprintf(" (returned %d)", r1)
	}
	return r
}

func needVictim(e *env) {
	if e.victim <= 0 {
		fatalf("%s needs --victim", e.name)
	}
}

func needScratch(e *env) {
	if e.scratch == "" {
		fatalf("%s needs --scratch", e.name)
	}
}

func scratchFile(e *env) string {
	needScratch(e)
	return filepath.Join(e.scratch, "file")
}

// --- other processes ---

func ptraceAttach(e *env) result {
	needVictim(e)
	// The tracer is a thread: the detach must come from the one that attached.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	what := fmt.Sprintf("ptrace(PTRACE_ATTACH, victim %d)", e.victim)
	if err := unix.PtraceAttach(e.victim); err != nil {
		return outcome(err, what)
	}
	var ws unix.WaitStatus
	_, werr := unix.Wait4(e.victim, &ws, unix.WALL, nil)
	derr := unix.PtraceDetach(e.victim)
	return passed("%s: attached (wait: %v, stopped: %v); detached (%v)", what, werr, ws.Stopped(), derr)
}

// victimAddress returns the start of the victim's first mapping, or a usual text address.
func victimAddress(pid int) uintptr {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err == nil {
		first, _, _ := strings.Cut(string(b), "-")
		if v, err := strconv.ParseUint(first, 16, 64); err == nil {
			return uintptr(v)
		}
	}
	return 0x400000
}

func processVMReadv(e *env) result {
	needVictim(e)
	addr := victimAddress(e.victim)
	buf := make([]byte, 16)
	local := []unix.Iovec{{Base: &buf[0]}}
	local[0].SetLen(len(buf))
	remote := []unix.RemoteIovec{{Base: addr, Len: len(buf)}}
	n, err := unix.ProcessVMReadv(e.victim, local, remote, 0)
	what := fmt.Sprintf("process_vm_readv(victim %d, %#x)", e.victim, addr)
	if err != nil {
		return outcome(err, what)
	}
	return passed("%s: read %d bytes %x", what, n, buf[:n])
}

func pidfdGetfd(e *env) result {
	needVictim(e)
	pidfd, err := unix.PidfdOpen(e.victim, 0)
	if err != nil {
		return outcome(err, "pidfd_open(victim)")
	}
	defer unix.Close(pidfd)
	fd, err := unix.PidfdGetfd(pidfd, 0, 0)
	if err != nil {
		return outcome(err, "pidfd_getfd(victim, 0)")
	}
	unix.Close(fd)
	return passed("pidfd_getfd(victim, 0): took a copy of the victim's fd 0")
}

func prlimitOther(e *env) result {
	needVictim(e)
	var old unix.Rlimit
	err := unix.Prlimit(e.victim, unix.RLIMIT_NOFILE, nil, &old)
	r := outcome(err, fmt.Sprintf("prlimit64(victim %d, RLIMIT_NOFILE)", e.victim))
	if err == nil {
		r.Detail += fmt.Sprintf(": %d/%d", old.Cur, old.Max)
	}
	return r
}

// --- namespaces and mounts ---

func mount(e *env) result {
	needScratch(e)
	target := filepath.Join(e.scratch, "mnt")
	if err := os.Mkdir(target, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		fatalf("mkdir: %v", err)
	}
	err := unix.Mount("none", target, "tmpfs", 0, "size=64k")
	if err == nil {
		unix.Unmount(target, unix.MNT_DETACH)
	}
	return outcome(err, "mount(tmpfs, scratch/mnt)")
}

// rawFork makes a process with a raw clone or fork; the child leaves at once.
func rawFork(trap, flags uintptr) result {
	what := fmt.Sprintf("%s(%#x)", map[uintptr]string{unix.SYS_CLONE: "clone", unix.SYS_FORK: "fork"}[trap], flags)
	pid, errno := forkExit(trap, flags)
	if errno != 0 {
		return outcome(errno, what)
	}
	var ws unix.WaitStatus
	_, werr := unix.Wait4(int(pid), &ws, unix.WALL, nil)
	return passed("%s: child %d ran (wait: %v, exit %d)", what, pid, werr, ws.ExitStatus())
}

// forkExit is the raw call: in the child it exits without returning to the runtime.
//
//go:nosplit
//go:norace
func forkExit(trap, flags uintptr) (uintptr, syscall.Errno) {
	pid, _, errno := syscall.RawSyscall6(trap, flags, 0, 0, 0, 0, 0)
	if errno == 0 && pid == 0 {
		syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0)
	}
	return pid, errno
}

func setns(*env) result {
	f, err := os.Open("/proc/self/ns/net")
	if err != nil {
		fatalf("open /proc/self/ns/net: %v", err)
	}
	defer f.Close()
	return outcome(unix.Setns(int(f.Fd()), unix.CLONE_NEWNET), "setns(own netns, CLONE_NEWNET)")
}

// --- kernel interfaces ---

func bpfMapCreate(*env) result {
	// union bpf_attr for BPF_MAP_CREATE: map_type, key_size, value_size, max_entries, then zeros.
	var attr [128]byte
	put := func(off int, v uint32) { *(*uint32)(unsafe.Pointer(&attr[off])) = v }
	put(0, 2) // BPF_MAP_TYPE_ARRAY
	put(4, 4)
	put(8, 4)
	put(12, 1)
	fd, _, e := unix.Syscall(unix.SYS_BPF, 0 /* BPF_MAP_CREATE */, uintptr(unsafe.Pointer(&attr[0])), uintptr(len(attr)))
	if e == 0 {
		unix.Close(int(fd))
	}
	return outcome(errnoErr(e), "bpf(BPF_MAP_CREATE, array)")
}

func perfEventOpen(*env) result {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_CPU_CLOCK,
		Bits:   unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err == nil {
		unix.Close(fd)
	}
	return outcome(err, "perf_event_open(software cpu clock, self)")
}

func ioUringSetup(*env) result {
	var params [120]byte // struct io_uring_params, zeroed
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, 1, uintptr(unsafe.Pointer(&params[0])), 0)
	if e == 0 {
		unix.Close(int(fd))
	}
	return outcome(errnoErr(e), "io_uring_setup(1)")
}

func keyctl(*env) result {
	id, err := unix.KeyctlGetKeyringID(unix.KEY_SPEC_SESSION_KEYRING, false)
	r := outcome(err, "keyctl(KEYCTL_GET_KEYRING_ID, session)")
	if err == nil {
		r.Detail += fmt.Sprintf(": %d", id)
	}
	return r
}

func userfaultfd(*env) result {
	const uffdUserModeOnly = 1
	fd, _, e := unix.Syscall(unix.SYS_USERFAULTFD, unix.O_CLOEXEC|uffdUserModeOnly, 0, 0)
	if e == 0 {
		unix.Close(int(fd))
	}
	return outcome(errnoErr(e), "userfaultfd(UFFD_USER_MODE_ONLY)")
}

func tiocsti(*env) result {
	c := byte('x')
	// The kernel reads the request as an unsigned int: this is TIOCSTI.
	return rawCall("ioctl(0, 0xdead00005412 = TIOCSTI with high bits)", unix.SYS_IOCTL, 0, 0xdead00005412, uintptr(unsafe.Pointer(&c)))
}

func tioclinux(*env) result {
	sub := byte(6) // TIOCL_GETSHIFTSTATE
	return rawCall("ioctl(0, 0xbeef0000541c = TIOCLINUX with high bits)", unix.SYS_IOCTL, 0, 0xbeef0000541c, uintptr(unsafe.Pointer(&sub)))
}

// int80Getpid calls getpid through the i386 entry. Where the kernel has that entry turned off
// the instruction faults, filter or not: the result says so (Fault) instead of the helper dying.
func int80Getpid(*env) result {
	const (
		what       = "int $0x80 getpid (i386 entry)"
		i386Getpid = 20
	)
	var r uintptr
	if f := catchFault(func() { r = int80(i386Getpid, 0, 0, 0) }); f != nil {
		return *f
	}
	if int(r) < 0 && int(r) > -4096 {
		e := syscall.Errno(-int(r))
		return outcome(e, what)
	}
	return passed("%s: returned %d", what, int(r))
}

// int81Fault is an attempt no kernel carries out: the tests use it to show that a row whose
// unconfined control cannot succeed is reported as not applicable.
func int81Fault(*env) result {
	if f := catchFault(int81); f != nil {
		return *f
	}
	return passed("int $0x81: returned")
}

// catchFault runs f and, if it faults (SIGSEGV or SIGBUS for the instruction), returns the
// fault as a result; nil when f returned.
func catchFault(f func()) (res *result) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if v := recover(); v != nil {
			res = &result{Blocked: true, Fault: true, Detail: fmt.Sprintf("the instruction faulted: %v", v)}
		}
	}()
	f()
	return nil
}

// --- processes and exec ---

func execTrue(*env) result {
	return outcome(exec.Command("/bin/true").Run(), `exec.Command("/bin/true").Run()`)
}

func execveSelf(e *env) result {
	self, err := os.Executable()
	if err != nil {
		fatalf("executable: %v", err)
	}
	err = syscall.Exec(self, []string{self, "--exec-probe", e.name}, nil)
	return outcome(err, "execve(self)")
}

// memfdExec copies the helper into a memfd and runs it with execveat(fd, "", AT_EMPTY_PATH): a
// program that exists in no directory. The new image prints the result if it runs.
func memfdExec(e *env, flags int) result {
	fd, err := unix.MemfdCreate("attack", flags)
	if err != nil {
		return outcome(err, fmt.Sprintf("memfd_create(%#x)", flags))
	}
	if err := copySelf(fd); err != nil {
		fatalf("copy into the memfd: %v", err)
	}
	argv, err := syscall.SlicePtrFromStrings([]string{"attack", "--exec-probe", e.name})
	if err != nil {
		fatalf("argv: %v", err)
	}
	envv, _ := syscall.SlicePtrFromStrings(nil)
	empty, _ := syscall.BytePtrFromString("")
	_, _, errno := unix.Syscall6(unix.SYS_EXECVEAT, uintptr(fd), uintptr(unsafe.Pointer(empty)),
		uintptr(unsafe.Pointer(&argv[0])), uintptr(unsafe.Pointer(&envv[0])), unix.AT_EMPTY_PATH, 0)
	return outcome(errnoErr(errno), fmt.Sprintf("memfd_create(%#x) succeeded; execveat(memfd, AT_EMPTY_PATH)", flags))
}

func copySelf(fd int) error {
	src, err := os.Open("/proc/self/exe")
	if err != nil {
		return err
	}
	defer src.Close()
	b, err := io.ReadAll(src)
	if err != nil {
		return err
	}
	for len(b) > 0 {
		n, err := unix.Write(fd, b)
		if err != nil {
			return err
		}
		b = b[n:]
	}
	return nil
}

func memfdNoexecOK(*env) result {
	fd, err := unix.MemfdCreate("data", unix.MFD_CLOEXEC|unix.MFD_NOEXEC_SEAL)
	if err != nil {
		return outcome(err, "memfd_create(MFD_NOEXEC_SEAL)")
	}
	unix.Close(fd)
	return passed("memfd_create(MFD_NOEXEC_SEAL): allowed")
}

// --- sockets ---

func sock(family, typ, proto int) func(*env) result {
	return func(*env) result {
		fd, err := unix.Socket(family, typ, proto)
		if err == nil {
			unix.Close(fd)
		}
		return outcome(err, fmt.Sprintf("socket(%d, %#x, %d)", family, typ, proto))
	}
}

func socketpair(family int) func(*env) result {
	return func(*env) result {
		fds, err := unix.Socketpair(family, unix.SOCK_STREAM, 0)
		if err == nil {
			unix.Close(fds[0])
			unix.Close(fds[1])
		}
		return outcome(err, fmt.Sprintf("socketpair(%d, SOCK_STREAM)", family))
	}
}

func tcpConnect(e *env) result {
	if e.addr == "" {
		fatalf("tcp-connect needs --addr")
	}
	c, err := net.DialTimeout("tcp", e.addr, 10*time.Second)
	if err != nil {
		return outcome(err, "dial "+e.addr)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return failed("dial %s: read: %v", e.addr, err)
	}
	return passed("dial %s: connected, read %q", e.addr, strings.TrimSpace(line))
}

// socketProtocol returns SO_PROTOCOL of a connection or listener.
func socketProtocol(sc syscall.Conn) (int, error) {
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var proto int
	var serr error
	if err := raw.Control(func(fd uintptr) { proto, serr = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PROTOCOL) }); err != nil {
		return 0, err
	}
	return proto, serr
}

// tcpListen checks that net.Listen("tcp") works and ends up plain TCP: Go tries MPTCP first on
// listeners, the filter refuses it, Go falls back. A dialer that asks for MPTCP falls back too.
func tcpListen(*env) result {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return outcome(err, `net.Listen("tcp")`)
	}
	defer ln.Close()
	lproto, err := socketProtocol(ln.(*net.TCPListener))
	if err != nil {
		return failed("SO_PROTOCOL of the listener: %v", err)
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			_, err = c.Write([]byte("pong\n"))
			c.Close()
		}
		accepted <- err
	}()
	var d net.Dialer
	d.SetMultipathTCP(true)
	c, err := d.Dial("tcp", ln.Addr().String())
	if err != nil {
		return failed("dial own listener: %v", err)
	}
	defer c.Close()
	mptcp, _ := c.(*net.TCPConn).MultipathTCP()
	cproto, _ := socketProtocol(c.(*net.TCPConn))
	line, _ := bufio.NewReader(c).ReadString('\n')
	if err := <-accepted; err != nil {
		return failed("accept: %v", err)
	}
	if lproto != unix.IPPROTO_TCP || cproto != unix.IPPROTO_TCP || mptcp {
		return failed("listener protocol %d, dialer protocol %d, MultipathTCP %v: want plain TCP (%d)", lproto, cproto, mptcp, unix.IPPROTO_TCP)
	}
	return passed("listener and dialer are plain TCP (protocol %d, MultipathTCP %v); exchanged %q", lproto, mptcp, strings.TrimSpace(line))
}

func unixListen(e *env) result {
	needScratch(e)
	path := filepath.Join(e.scratch, "sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		return outcome(err, `net.Listen("unix")`)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("pong\n"))
			c.Close()
		}
	}()
	c, err := net.Dial("unix", path)
	if err != nil {
		return outcome(err, `net.Dial("unix")`)
	}
	defer c.Close()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return failed("read: %v", err)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return outcome(err, "socketpair(AF_UNIX)")
	}
	unix.Close(fds[0])
	unix.Close(fds[1])
	return passed("unix listener, dial and socketpair work; read %q", strings.TrimSpace(line))
}

func nameToHandle(e *env) result {
	_, _, err := unix.NameToHandleAt(unix.AT_FDCWD, scratchFile(e), 0)
	return outcome(err, "name_to_handle_at(scratch file)")
}

// --- files and IPC ---

func setxattr(e *env) result {
	return outcome(unix.Setxattr(scratchFile(e), "user.attack", []byte("1"), 0), "setxattr(scratch file, user.attack)")
}

func mknod(e *env) result {
	needScratch(e)
	path := filepath.Join(e.scratch, "fifo")
	err := unix.Mknod(path, unix.S_IFIFO|0o600, 0)
	if err == nil {
		os.Remove(path)
	}
	return outcome(err, "mknod(scratch/fifo, S_IFIFO)")
}

func shmget(*env) result {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
	if err == nil {
		unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	}
	return outcome(err, "shmget(IPC_PRIVATE, 4096)")
}

func msgget(*env) result {
	id, _, e := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
	if e == 0 {
		unix.Syscall(unix.SYS_MSGCTL, id, unix.IPC_RMID, 0)
	}
	return outcome(errnoErr(e), "msgget(IPC_PRIVATE)")
}

func semget(*env) result {
	id, _, e := unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
	if e == 0 {
		unix.Syscall6(unix.SYS_SEMCTL, id, 0, unix.IPC_RMID, 0, 0, 0)
	}
	return outcome(errnoErr(e), "semget(IPC_PRIVATE, 1)")
}

// withFile opens the scratch file with flags and applies f to the descriptor.
func withFile(e *env, flags int, f func(fd int) error, what string) result {
	fd, err := unix.Open(scratchFile(e), flags|unix.O_CLOEXEC, 0)
	if err != nil {
		fatalf("open the scratch file: %v", err)
	}
	defer unix.Close(fd)
	return outcome(f(fd), what)
}

func emptyPath() *byte {
	b, _ := unix.BytePtrFromString("")
	return b
}

// createSetuid creates a file with the set-user-ID bit in its mode, and reports the mode it got.
func createSetuid(e *env) result {
	needScratch(e)
	path := filepath.Join(e.scratch, "suid")
	unix.Umask(0o022)
	fd, err := unix.Open(path, unix.O_CREAT|unix.O_EXCL|unix.O_WRONLY|unix.O_CLOEXEC, 0o4755)
	if err != nil {
		return outcome(err, "open(scratch/suid, O_CREAT, 04755)")
	}
	unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		fatalf("stat: %v", err)
	}
	if st.Mode&unix.S_ISUID == 0 {
		return failed("open(O_CREAT, 04755) made mode %#o, without the set-user-ID bit", st.Mode&0o7777)
	}
	return passed("open(scratch/suid, O_CREAT, 04755): created with mode %#o", st.Mode&0o7777)
}

func mkdirSetgid(e *env) result {
	needScratch(e)
	path := filepath.Join(e.scratch, "sgid")
	unix.Umask(0o022)
	if err := unix.Mkdir(path, 0o2755); err != nil {
		return outcome(err, "mkdir(scratch/sgid, 02755)")
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		fatalf("stat: %v", err)
	}
	return passed("mkdir(scratch/sgid, 02755): created with mode %#o", st.Mode&0o7777)
}

func inotifyWatch(e *env) result {
	needScratch(e)
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	if err != nil {
		return outcome(err, "inotify_init1")
	}
	defer unix.Close(fd)
	wd, err := unix.InotifyAddWatch(fd, e.scratch, unix.IN_CREATE)
	if err != nil {
		return outcome(err, "inotify_add_watch(scratch, IN_CREATE)")
	}
	return passed("inotify_add_watch(scratch, IN_CREATE): watch %d", wd)
}

func openat2(e *env) result {
	how := unix.OpenHow{Flags: unix.O_RDONLY | unix.O_CLOEXEC}
	fd, err := unix.Openat2(unix.AT_FDCWD, scratchFile(e), &how)
	if err == nil {
		unix.Close(fd)
	}
	return outcome(err, "openat2(scratch file)")
}

func setpriorityOther(e *env) result {
	needVictim(e)
	return outcome(unix.Setpriority(unix.PRIO_PROCESS, e.victim, 19), fmt.Sprintf("setpriority(PRIO_PROCESS, victim %d, 19)", e.victim))
}

func schedSetaffinityOther(e *env) result {
	needVictim(e)
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(e.victim, &set); err != nil {
		fatalf("sched_getaffinity(victim): %v", err)
	}
	// The victim's own mask: a change in name only, for which the kernel checks the rights all the same.
	return outcome(unix.SchedSetaffinity(e.victim, &set), fmt.Sprintf("sched_setaffinity(victim %d, its mask)", e.victim))
}

func ioprioSetOther(e *env) result {
	needVictim(e)
	const ioprioWhoProcess, idleClass = 1, 3 << 13
	return rawCall(fmt.Sprintf("ioprio_set(IOPRIO_WHO_PROCESS, victim %d, IDLE)", e.victim), unix.SYS_IOPRIO_SET, ioprioWhoProcess, uintptr(e.victim), idleClass)
}

func niceSelf(*env) result {
	// One step nicer than now: lowering one's own priority is always
	// allowed, also when the suite itself runs niced.
	prio, err := unix.Getpriority(unix.PRIO_PROCESS, 0)
	if err != nil {
		return outcome(err, "getpriority(PRIO_PROCESS, 0)")
	}
	nice := min(20-prio+1, 19) // the raw value is 20 - nice
	if err := unix.Setpriority(unix.PRIO_PROCESS, 0, nice); err != nil {
		return outcome(err, fmt.Sprintf("setpriority(PRIO_PROCESS, 0, %d)", nice))
	}
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return outcome(err, "sched_getaffinity(0)")
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return outcome(err, "sched_setaffinity(0)")
	}
	return passed("setpriority and sched_setaffinity on itself (pid 0) work")
}

// fastOpen sends data with MSG_FASTOPEN on an unconnected TCP socket: the kernel connects to the
// address on the way, without connect(2), and the reply shows the connection was made.
func fastOpen(e *env, how string) result {
	if e.addr == "" {
		fatalf("%s needs --addr", e.name)
	}
	ap, err := netipAddr(e.addr)
	if err != nil {
		fatalf("--addr: %v", err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fatalf("socket: %v", err)
	}
	defer unix.Close(fd)
	what := fmt.Sprintf("%s(unconnected TCP socket, MSG_FASTOPEN, %s)", how, e.addr)
	if how == "sendto" {
		err = unix.Sendto(fd, []byte("x"), unix.MSG_FASTOPEN, ap)
	} else {
		err = unix.Sendmsg(fd, []byte("x"), nil, ap, unix.MSG_FASTOPEN)
	}
	if err != nil {
		return outcome(err, what)
	}
	return readReply(fd, what)
}

// fastOpenConnectOpt sets TCP_FASTOPEN_CONNECT, then connects.
func fastOpenConnectOpt(e *env) result {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fatalf("socket: %v", err)
	}
	defer unix.Close(fd)
	return outcome(unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_FASTOPEN_CONNECT, 1), "setsockopt(IPPROTO_TCP, TCP_FASTOPEN_CONNECT, 1)")
}

func readReply(fd int, what string) result {
	tv := unix.Timeval{Sec: 10}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	buf := make([]byte, 64)
	// A read with a receive timeout is not restarted after a signal (signal(7)): the Go
	// runtime's own (preemption) would make it fail with EINTR, which is no outcome.
	n, err := unix.Read(fd, buf)
	for err == unix.EINTR {
		n, err = unix.Read(fd, buf)
	}
	if err != nil {
		return failed("%s: sent, but read: %v", what, err)
	}
	return passed("%s: connected, read %q", what, strings.TrimSpace(string(buf[:max(n, 0)])))
}

func netipAddr(s string) (*unix.SockaddrInet4, error) {
	a, err := net.ResolveTCPAddr("tcp4", s)
	if err != nil {
		return nil, err
	}
	sa := &unix.SockaddrInet4{Port: a.Port}
	copy(sa.Addr[:], a.IP.To4())
	return sa, nil
}

// listenAutobind calls listen on a TCP socket that was never bound: the kernel binds an
// ephemeral port, and a connection to it gets through.
func listenAutobind(*env) result {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fatalf("socket: %v", err)
	}
	defer unix.Close(fd)
	if err := unix.Listen(fd, 8); err != nil {
		return outcome(err, "listen(unbound TCP socket)")
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		fatalf("getsockname: %v", err)
	}
	port := sa.(*unix.SockaddrInet4).Port
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 10*time.Second)
	if err != nil {
		return failed("listen(unbound TCP socket) bound port %d, but a dial failed: %v", port, err)
	}
	c.Close()
	return passed("listen(unbound TCP socket): listening on port %d, a dial got through", port)
}

// --- the process still works ---

// threadStatus reads a field of /proc/self/task/*/status for every thread, by tid.
func threadStatus(field string) (map[int]string, error) {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, err
	}
	out := make(map[int]string, len(tasks))
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/status")
		if err != nil {
			continue // the thread ended meanwhile
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, field+":"); ok {
				out[tid] = strings.TrimSpace(v)
			}
		}
	}
	return out, nil
}

// allFiltered reports whether every thread is in seccomp filter mode with NO_NEW_PRIVS.
func allFiltered() (n int, bad []string, err error) {
	mode, err := threadStatus("Seccomp")
	if err != nil {
		return 0, nil, err
	}
	nnp, err := threadStatus("NoNewPrivs")
	if err != nil {
		return 0, nil, err
	}
	for tid, m := range mode {
		if m != "2" || nnp[tid] != "1" {
			bad = append(bad, fmt.Sprintf("tid %d Seccomp %s NoNewPrivs %s", tid, m, nnp[tid]))
		}
	}
	sort.Strings(bad)
	return len(mode), bad, nil
}

func runtimeThreads(e *env) result {
	const workers = 50
	before, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return failed("read /proc/self/task: %v", err)
	}
	// Each locked goroutine holds a thread and the main goroutine needs one more: that is more
	// threads than there were.
	locked := max(8, len(before)+2)
	var wg sync.WaitGroup
	var lockedReady sync.WaitGroup
	release := make(chan struct{})
	sums := make([][32]byte, workers)
	lockedReady.Add(locked)
	for i := range workers {
		wg.Go(func() {
			if i < locked {
				// A goroutine locked to its thread keeps it: the others need new threads (clone
				// with CLONE_THREAD after the filter).
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				lockedReady.Done()
				<-release
			}
			buf := make([]byte, 1<<16)
			for j := range 200 {
				buf[j%len(buf)] = byte(i + j)
				sums[i] = sha256.Sum256(buf)
			}
		})
	}
	lockedReady.Wait()
	during, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return failed("read /proc/self/task: %v", err)
	}
	n, bad, err := allFiltered()
	close(release)
	wg.Wait()
	if err != nil {
		return failed("thread status: %v", err)
	}
	if len(during) <= len(before) || len(during) < locked+1 {
		return failed("threads before %d, with %d locked goroutines %d: no new thread was started", len(before), locked, len(during))
	}
	if e.filter && len(bad) > 0 {
		return failed("threads without the filter: %s", strings.Join(bad, "; "))
	}
	return passed("%d goroutines done; threads %d before, %d with %d locked (%d in filter mode)", workers, len(before), len(during), locked, n-len(bad))
}

var sink [][]byte

func gc(*env) result {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 20 {
		sink = make([][]byte, 0, 4096)
		for range 4096 {
			sink = append(sink, make([]byte, 1024))
		}
	}
	sink = nil
	runtime.GC()
	debug.FreeOSMemory()
	runtime.ReadMemStats(&after)
	if after.NumGC <= before.NumGC {
		return failed("no GC cycle ran (%d before, %d after)", before.NumGC, after.NumGC)
	}
	return passed("%d GC cycles, %d MiB allocated", after.NumGC-before.NumGC, (after.TotalAlloc-before.TotalAlloc)>>20)
}

func jsonRoundTrip(*env) result {
	type doc struct {
		Name  string            `json:"name"`
		Tags  []string          `json:"tags"`
		Attrs map[string]string `json:"attrs"`
		N     float64           `json:"n"`
	}
	in := doc{Name: "confined", Tags: []string{"a", "b"}, Attrs: map[string]string{"k": "v"}, N: 3.25}
	b, err := json.Marshal(in)
	if err != nil {
		return failed("marshal: %v", err)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil {
		return failed("unmarshal: %v", err)
	}
	if out.Name != in.Name || len(out.Tags) != 2 || out.Attrs["k"] != "v" || out.N != in.N {
		return failed("round trip changed the value: %s", b)
	}
	return passed("round trip of %s", b)
}

func timeWorks(*env) result {
	start := time.Now()
	time.Sleep(20 * time.Millisecond)
	<-time.After(5 * time.Millisecond)
	tk := time.NewTicker(time.Millisecond)
	<-tk.C
	tk.Stop()
	el := time.Since(start)
	if el < 25*time.Millisecond {
		return failed("slept 25ms, monotonic clock says %v", el)
	}
	return passed("sleep, timer and ticker: %v elapsed; wall clock %s", el.Round(time.Millisecond), time.Now().UTC().Format(time.RFC3339))
}

func readFile(e *env) result {
	b, err := os.ReadFile(scratchFile(e))
	if err != nil {
		return outcome(err, "read scratch file")
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return outcome(err, "read /proc/self/status")
	}
	mode := "?"
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp:"); ok {
			mode = strings.TrimSpace(v)
		}
	}
	if e.filter && mode != "2" {
		return failed("read the files, but /proc/self/status says Seccomp: %s", mode)
	}
	return passed("read %q from the scratch file; Seccomp mode %s", strings.TrimSpace(string(b)), mode)
}

func getpid(*env) result {
	pid, tid := os.Getpid(), unix.Gettid()
	if pid <= 1 || pid != unix.Getpid() || os.Getppid() <= 0 || tid <= 0 {
		return failed("getpid %d, gettid %d, getppid %d", pid, tid, os.Getppid())
	}
	return passed("pid %d, tid %d, ppid %d", pid, tid, os.Getppid())
}

func prlimitSelf(*env) result {
	var old unix.Rlimit
	if err := unix.Prlimit(0, unix.RLIMIT_NOFILE, nil, &old); err != nil {
		return outcome(err, "prlimit64(0, RLIMIT_NOFILE) get")
	}
	lower := old
	if lower.Cur > 512 {
		lower.Cur = 512
	}
	if err := unix.Prlimit(0, unix.RLIMIT_NOFILE, &lower, nil); err != nil {
		return outcome(err, "prlimit64(0, RLIMIT_NOFILE) set")
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return outcome(err, "getrlimit(RLIMIT_NOFILE)")
	}
	if rl.Cur != lower.Cur {
		return failed("set RLIMIT_NOFILE to %d, read back %d", lower.Cur, rl.Cur)
	}
	return passed("prlimit64(0): RLIMIT_NOFILE %d/%d, lowered to %d", old.Cur, old.Max, rl.Cur)
}

func ioctlFionread(*env) result {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return outcome(err, "pipe2")
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	if _, err := unix.Write(p[1], []byte("abc")); err != nil {
		return outcome(err, "write")
	}
	n, err := unix.IoctlGetInt(p[0], unix.TIOCINQ) // FIONREAD
	if err != nil {
		return outcome(err, "ioctl(FIONREAD)")
	}
	if n != 3 {
		return failed("ioctl(FIONREAD) = %d, want 3", n)
	}
	return passed("ioctl(pipe, FIONREAD) = %d", n)
}

// tsyncOlderThread starts a thread before the filter exists, installs the filter from another
// thread, and makes the older thread attack: TSYNC must have filtered it too.
func tsyncOlderThread(e *env) result {
	needVictim(e)
	type attempt struct {
		tid                int
		ptrace, persona    error
		seccompMode, nnp   string
		sameThreadAsBefore bool
	}
	ready := make(chan int)
	start := make(chan struct{})
	done := make(chan attempt)
	go func() {
		runtime.LockOSThread() // this goroutine keeps this thread from now on
		tid := unix.Gettid()
		ready <- tid
		<-start
		var a attempt
		a.tid = unix.Gettid()
		a.sameThreadAsBefore = a.tid == tid
		a.ptrace = unix.PtraceAttach(e.victim)
		if a.ptrace == nil {
			var ws unix.WaitStatus
			unix.Wait4(e.victim, &ws, unix.WALL, nil)
			unix.PtraceDetach(e.victim)
		}
		_, _, errno := unix.Syscall(unix.SYS_PERSONALITY, 0xffffffff, 0, 0)
		a.persona = errnoErr(errno)
		mode, _ := threadStatus("Seccomp")
		nnp, _ := threadStatus("NoNewPrivs")
		a.seccompMode, a.nnp = mode[a.tid], nnp[a.tid]
		done <- a
	}()
	older := <-ready

	runtime.LockOSThread()
	installer := unix.Gettid()
	if installer == older {
		fatalf("the installing thread is the older thread")
	}
	if e.filter {
		if err := confine.InstallSeccomp(e.policy); err != nil {
			fatalf("install the filter: %v", err)
		}
	}
	close(start)
	a := <-done
	n, bad, err := allFiltered()
	if err != nil {
		return failed("thread status: %v", err)
	}
	detail := fmt.Sprintf("thread %d started before the filter, installed from thread %d: ptrace(PTRACE_ATTACH, victim): %v; personality: %v; its Seccomp %s, NoNewPrivs %s; %d threads, %d not filtered",
		a.tid, installer, errText(a.ptrace), errText(a.persona), a.seccompMode, a.nnp, n, len(bad))
	if !a.sameThreadAsBefore {
		fatalf("the older goroutine moved threads: %s", detail)
	}
	var errno syscall.Errno
	if a.ptrace == nil || a.persona == nil || !errors.As(a.ptrace, &errno) || len(bad) > 0 {
		// Not blocked: the older thread got through, or some thread is unfiltered.
		return result{Detail: strings.Join(append([]string{detail}, bad...), "; ")}
	}
	return result{Blocked: true, Errno: errnoName(errno), Detail: detail}
}

func errText(err error) string {
	if err == nil {
		return "succeeded"
	}
	return err.Error()
}

// tsyncConflict gives one thread a filter of its own, then installs from another thread: TSYNC
// cannot synchronise that thread and InstallSeccomp must say which one.
func tsyncConflict(e *env) result {
	ready := make(chan int)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread keeps its own filter until exit
		prog, err := bpf.Assemble([]bpf.Instruction{bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}})
		if err != nil {
			fatalf("assemble: %v", err)
		}
		f := []unix.SockFilter{{Code: prog[0].Op, K: prog[0].K}}
		fprog := unix.SockFprog{Len: 1, Filter: &f[0]}
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			fatalf("prctl: %v", err)
		}
		if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fprog))); e != 0 {
			fatalf("seccomp on one thread: %v", e)
		}
		ready <- unix.Gettid()
		select {}
	}()
	tid := <-ready
	err := confine.InstallSeccomp(e.policy)
	if err == nil {
		return result{Detail: fmt.Sprintf("thread %d had a filter of its own, yet InstallSeccomp reported success", tid)}
	}
	if !strings.Contains(err.Error(), "thread "+strconv.Itoa(tid)) {
		return result{Detail: fmt.Sprintf("thread %d had a filter of its own; the error does not name it: %v", tid, err)}
	}
	mode, _ := threadStatus("Seccomp")
	var filtered []string
	for t, m := range mode {
		if t != tid && m != "0" {
			filtered = append(filtered, strconv.Itoa(t))
		}
	}
	if len(filtered) > 0 {
		return result{Detail: fmt.Sprintf("refused, but threads %v got a filter anyway: %v", filtered, err)}
	}
	return result{Blocked: true, Detail: "refused: " + err.Error()}
}
