//go:build linux

package prestart

import (
	"os"
	"runtime"
	"slices"
	"syscall"
	"unsafe"

	"github.com/toolexplorer/toolexplorer/internal/childmark"
)

// EnvRole is set by the parent of a confined child (to RoleSupervised) and by the child for its
// supervisor (to RoleSupervisor).
const (
	EnvRole        = "TOOLEXPLORER_CONFINE_ROLE"
	RoleSupervised = "supervised"
	RoleSupervisor = "supervisor"
)

// Supervisor is a started supervisor, seen from the child that started it.
type Supervisor struct {
	// Sock is the child's end of the socket pair (close-on-exec), the supervisor's being its
	// descriptor 3.
	Sock int
	// Pid is the supervisor's pid. The child never reaps it, so the pid names it for as long
	// as the child lives.
	Pid int
	// Cred is the credentials of the thread that started it, which the supervisor has.
	Cred Cred
}

// Cred is a thread's real, effective and saved uids and gids and its supplementary groups.
type Cred struct {
	UID, GID [3]int
	Groups   []int
}

// Equal reports whether c and d are the same credentials.
func (c Cred) Equal(d Cred) bool {
	return c.UID == d.UID && c.GID == d.GID && slices.Equal(c.Groups, d.Groups)
}

// Early is the supervisor started during package initialisation, or nil: in a child that the
// parent marked RoleSupervised and that does not run as root (a child that finds itself root
// switches to its unprivileged user first, and then starts its supervisor itself).
var Early *Supervisor

func init() {
	if !childmark.IsChild() || os.Getenv(EnvRole) != RoleSupervised {
		return
	}
	os.Unsetenv(EnvRole)
	if os.Geteuid() == 0 {
		return
	}
	// The child's two pipes (3 and 4) are close-on-exec from now on, as the child would make
	// them: the supervisor never holds them. Any other descriptor the parent leaked, the
	// supervisor closes first thing, as the child does.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	Early, _ = Start() // on failure the child starts it again once confining itself, or fails
}

// Start starts a supervisor: the program at /proc/self/exe, as a confined child with
// EnvRole=RoleSupervisor, its stdin, stdout and stderr the caller's, its descriptor 3 the other
// end of Sock, and SIGKILL when the calling thread ends (the child's threads never end before
// the child). The calling thread keeps no_new_privs and loses its inheritable and ambient
// capabilities (the child drops every capability before its handler runs).
func Start() (*Supervisor, error) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socketpair", err)
	}
	defer syscall.Close(fds[1])
	env := []string{childmark.EnvMarker + "=" + childmark.MarkerValue, EnvRole + "=" + RoleSupervisor, "GOMAXPROCS=1", "MALLOC_ARENA_MAX=2"}
	if v, ok := os.LookupEnv("GORACE"); ok {
		env = append(env, "GORACE="+v)
	}
	// fork and exec copy these per-thread attributes from the thread that forks.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := dropInheritable(); err != nil {
		syscall.Close(fds[0])
		return nil, err
	}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		syscall.Close(fds[0])
		return nil, os.NewSyscallError("prctl(PR_SET_NO_NEW_PRIVS)", errno)
	}
	cred, err := Current()
	if err != nil {
		syscall.Close(fds[0])
		return nil, err
	}
	pid, err := syscall.ForkExec("/proc/self/exe", []string{childmark.Argv0}, &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{0, 1, 2, uintptr(fds[1])},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		syscall.Close(fds[0])
		return nil, os.NewSyscallError("fork/exec", err)
	}
	return &Supervisor{Sock: fds[0], Pid: pid, Cred: cred}, nil
}

// Current returns the calling thread's credentials.
func Current() (Cred, error) {
	var c Cred
	for i, nr := range []uintptr{syscall.SYS_GETRESUID, syscall.SYS_GETRESGID} {
		ids := &c.UID
		if i == 1 {
			ids = &c.GID
		}
		var r, e, s uint32
		if _, _, errno := syscall.RawSyscall(nr, uintptr(unsafe.Pointer(&r)), uintptr(unsafe.Pointer(&e)), uintptr(unsafe.Pointer(&s))); errno != 0 {
			return c, os.NewSyscallError("getresuid", errno)
		}
		*ids = [3]int{int(r), int(e), int(s)}
	}
	groups, err := syscall.Getgroups()
	if err != nil {
		return c, os.NewSyscallError("getgroups", err)
	}
	c.Groups = groups
	return c, nil
}

// Constants of prctl(2) and capget(2) that package syscall does not name.
const (
	prSetNoNewPrivs    = 38
	capabilityVersion3 = 0x20080522
)

// capHeader and capData are the kernel's capability header and (two of its) data.
type capHeader struct {
	version uint32
	pid     int32
}

type capData struct {
	effective, permitted, inheritable uint32
}

// dropInheritable empties the calling thread's inheritable capability set, and with it its
// ambient set (which the kernel keeps a subset of the inheritable one), keeping its effective
// and permitted sets. A thread without ambient capabilities that execs a file without file
// capabilities, as a user other than root, starts with none.
func dropInheritable() error {
	hdr := capHeader{version: capabilityVersion3}
	var data [2]capData
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return os.NewSyscallError("capget", errno)
	}
	data[0].inheritable, data[1].inheritable = 0, 0
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return os.NewSyscallError("capset", errno)
	}
	return nil
}
