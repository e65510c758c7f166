//go:build linux

package confine

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// setRlimits applies the limits (defaults already filled in by the parent) in the child. Soft
// and hard limits are equal except for RLIMIT_CPU: its soft limit sends SIGXCPU, which the Go
// runtime would ignore, so the signal's default action is restored first and the child dies of
// it (reported as the cpu limit); the hard limit, a second later, is SIGKILL. Core dumps are
// always off. It returns notes on limits it could not apply.
//
// RLIMIT_NPROC counts every process and thread of the real uid; see processLimit.
func setRlimits(l Limits, dropped, exec bool) (notes []string, err error) {
	set := func(name string, res int, soft, hard uint64) error {
		if err := syscall.Setrlimit(res, &syscall.Rlimit{Cur: soft, Max: hard}); err != nil {
			return fmt.Errorf("setrlimit(%s, %d): %w", name, soft, err)
		}
		return nil
	}
	if err := set("core", syscall.RLIMIT_CORE, 0, 0); err != nil {
		return nil, err
	}
	if err := defaultAction(syscall.SIGXCPU); err != nil {
		return nil, err
	}
	if err := set("cpu", syscall.RLIMIT_CPU, l.CPUSeconds, l.CPUSeconds+1); err != nil {
		return nil, err
	}
	if raceEnabled {
		notes = append(notes, "memory limit not applied: race detector build")
	} else {
		base, err := addressSpace()
		if err != nil {
			return nil, err
		}
		if err := set("as", syscall.RLIMIT_AS, base+l.MemoryBytes, base+l.MemoryBytes); err != nil {
			return nil, err
		}
	}
	if err := set("nofile", syscall.RLIMIT_NOFILE, l.OpenFiles, l.OpenFiles); err != nil {
		return nil, err
	}
	if err := set("fsize", syscall.RLIMIT_FSIZE, l.FileSizeBytes, l.FileSizeBytes); err != nil {
		return nil, err
	}
	var host syscall.Rlimit
	if err := syscall.Getrlimit(unix.RLIMIT_NPROC, &host); err != nil {
		return nil, fmt.Errorf("getrlimit(nproc): %w", err)
	}
	nproc, err := processLimit(l.Processes, dropped, exec, host, func() (uint64, error) { return userTasks(os.Getuid()) })
	if err != nil {
		return notes, fmt.Errorf("counting the processes of uid %d: %w", os.Getuid(), err)
	}
	if nproc != 0 {
		if err := set("nproc", unix.RLIMIT_NPROC, nproc, nproc); err != nil {
			return nil, err
		}
	}
	return notes, nil
}

// hostThreads is how many tasks (processes and threads) of its uid an ordinary host keeps for
// itself below its own RLIMIT_NPROC: no child may take them (at most half of that limit).
const hostThreads = 64

// processLimit is the RLIMIT_NPROC of a child (0: leave it as it is), from the profile's limit
// (0 for the default), whether the child runs as another user than the host (dropped), whether
// it may start programs, the limit it inherited from the host, and a count of the tasks of its
// uid (called only when needed).
//
// On a root host (dropped) all children share uid 65534 and get the limit, 512 by default;
// the host itself, root, is not bound by it. It is lowered to the hard limit the child
// inherited when that is below, as the child can no longer raise it.
//
// On an ordinary host a child keeps the host's uid, and the kernel counts every task of that
// uid against the limit of the one that forks, so that a child's limit above the host's own
// would let the child take every task the host may have (and a host that needs one more thread
// then dies). There the limit always stays hostThreads below the host's soft limit, which is
// also below the hard one (setrlimit cannot raise it). Under that: a profile's own limit; for a
// child that may start programs, the uid's count at the child's start plus the default (an
// absolute default would count every process of the user); for another, the runtime's thread
// cap bounds what it starts, and only the host's headroom is kept.
func processLimit(limit uint64, dropped, exec bool, host syscall.Rlimit, tasks func() (uint64, error)) (uint64, error) {
	if dropped {
		if limit == 0 {
			limit = DefaultProcesses
		}
		return min(limit, host.Max), nil
	}
	if limit == 0 && exec {
		n, err := tasks()
		if err != nil {
			return 0, err
		}
		limit = n + DefaultProcesses
	}
	if host.Cur == unix.RLIM_INFINITY {
		return limit, nil
	}
	ceiling := host.Cur - min(hostThreads, host.Cur/2)
	if limit == 0 {
		return max(ceiling, 1), nil // 0 would leave the host's own
	}
	return max(min(limit, ceiling), 1), nil
}

// addressSpace returns the bytes of address space the process has mapped now (/proc/self/statm,
// first field, in pages).
func addressSpace() (uint64, error) {
	fd, err := unix.Open("/proc/self/statm", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("reading the address space size: %w", err)
	}
	var buf [128]byte
	n, err := unix.Read(fd, buf[:])
	unix.Close(fd)
	if err != nil {
		return 0, fmt.Errorf("reading the address space size: %w", err)
	}
	f := bytes.Fields(buf[:max(n, 0)])
	if len(f) == 0 {
		return 0, fmt.Errorf("reading the address space size: empty /proc/self/statm")
	}
	pages, err := strconv.ParseUint(string(f[0]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reading the address space size: %w", err)
	}
	return pages * uint64(os.Getpagesize()), nil
}

// defaultAction gives sig its default action (SIG_DFL), which the Go runtime's own handler
// replaced. os/signal has no way to do this: its Reset goes back to the runtime's handler.
func defaultAction(sig syscall.Signal) error {
	var act struct { // struct sigaction of the kernel, on every 64-bit architecture Go supports here
		handler  uintptr
		flags    uint64
		restorer uintptr
		mask     uint64
	}
	if _, _, errno := unix.RawSyscall6(unix.SYS_RT_SIGACTION, uintptr(sig), uintptr(unsafe.Pointer(&act)), 0, 8, 0, 0); errno != 0 {
		return fmt.Errorf("rt_sigaction(%v, SIG_DFL): %w", sig, errno)
	}
	return nil
}

// userTasks counts the tasks (threads of every process) whose real uid is uid, as RLIMIT_NPROC
// counts them, from /proc/PID/status. Processes that end while it reads are skipped.
func userTasks(uid int) (uint64, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return 0, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return 0, err
	}
	want := []byte("Uid:\t" + strconv.Itoa(uid) + "\t")
	buf := make([]byte, 4096)
	var n uint64
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		fd, err := unix.Open("/proc/"+name+"/status", unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		m, _ := unix.Read(fd, buf)
		unix.Close(fd)
		status := buf[:max(m, 0)]
		if !bytes.Contains(status, want) {
			continue
		}
		if i := bytes.Index(status, []byte("\nThreads:\t")); i >= 0 {
			rest := status[i+len("\nThreads:\t"):]
			if j := bytes.IndexByte(rest, '\n'); j >= 0 {
				if t, err := strconv.ParseUint(string(rest[:j]), 10, 64); err == nil {
					n += t
					continue
				}
			}
		}
		n++
	}
	return n, nil
}
