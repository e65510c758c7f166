//go:build linux

package confine

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// actor is the supervisor's thread that receives the calls and makes names: it enforces the
// child's own Landlock ruleset on itself (on this one thread), so that it makes only what the
// child may. It keeps the ruleset, which the threads that wait on an open for it enforce too.
type actor struct {
	work    chan func()
	done    chan struct{}
	ruleset int
}

// startActor starts the actor's thread, which takes no call before restrict.
func startActor() *actor {
	a := &actor{work: make(chan func()), done: make(chan struct{}), ruleset: -1}
	go func() {
		// Never unlocked: the thread keeps its domain, and ends with the process.
		runtime.LockOSThread()
		for f := range a.work {
			f()
			a.done <- struct{}{}
		}
	}()
	return a
}

// restrict enforces the ruleset rulesetFD on the actor's thread, and keeps it for the threads
// goRestricted starts.
func (a *actor) restrict(rulesetFD int) (err error) {
	a.ruleset = rulesetFD
	a.do(func() {
		if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(rulesetFD), 0, 0); errno != 0 {
			err = fmt.Errorf("landlock_restrict_self: %w", errno)
		}
	})
	return err
}

// do runs f on the actor's thread and waits for it.
func (a *actor) do(f func()) {
	a.work <- f
	<-a.done
}

// goRestricted runs f on a thread of its own that enforces the actor's ruleset first (f gets
// the error when it could not). The thread is never unlocked: it keeps its domain and ends with f.
// No thread with a domain starts threads: Go starts them from another thread for a locked one.
func (a *actor) goRestricted(f func(error)) {
	go func() {
		runtime.LockOSThread()
		if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(a.ruleset), 0, 0); errno != 0 {
			f(fmt.Errorf("landlock_restrict_self: %w", errno))
			return
		}
		f(nil)
	}()
}

// createOp is one call to carry out, from the supervisor's own copy of its strings.
type createOp struct {
	name     string
	bases    []int    // per path: the directory a relative path starts from
	paths    []string // the paths; the last one is the name made
	target   string   // symlink's target
	flags    int      // open's flags
	mode     uint32   // the mode, the caller's umask applied
	atFlags  int      // linkat's flags
	renFlags uint     // renameat2's flags
	byFD     bool     // linkat with AT_EMPTY_PATH: the file is the caller's descriptor file
	file     int      // that descriptor, reopened (-1: out of reach; one of bases)
	tmpMnt   uint64   // the child's private temp dir's mount
	opened   []int    // descriptors to close once done
	wait     int      // an open that must wait: the file to open again (see openFile), or -1
}

// opResult is the outcome of a createOp: a descriptor to hand over (fd >= 0), a file to open
// again on a thread that may wait (wait >= 0, see openFile), or an error.
type opResult struct {
	fd   int
	err  error
	wait int
}

// errProtectedName refuses a protected name.
const errProtectedName = unix.EACCES

// run carries out the call on the actor's thread.
func (o *createOp) run() (r opResult) {
	defer func() {
		for _, fd := range o.opened {
			unix.Close(fd)
		}
	}()
	switch o.name {
	case "open", "openat", "creat":
		fd, err := o.open(o.bases[0], o.paths[0])
		return opResult{fd: fd, err: err, wait: o.wait}
	case "mkdir", "mkdirat":
		dir, name, arg, err := o.parent(o.bases[0], o.paths[0])
		if err == nil {
			err = o.refuse(dir, name, unix.EEXIST)
		}
		if err == nil {
			err = unix.Mkdirat(dir, arg, o.mode)
		}
		return opResult{fd: -1, err: err, wait: -1}
	case "symlink", "symlinkat":
		dir, name, arg, err := o.parent(o.bases[0], o.paths[0])
		if err == nil {
			err = o.refuse(dir, name, unix.EEXIST)
		}
		if err == nil {
			err = unix.Symlinkat(o.target, dir, arg)
		}
		return opResult{fd: -1, err: err, wait: -1}
	case "link", "linkat":
		newDir, newName, newArg, err := o.parent(o.bases[1], o.paths[1])
		if err == nil {
			err = o.refuse(newDir, newName, 0)
		}
		if err != nil {
			return opResult{fd: -1, err: err, wait: -1}
		}
		if o.byFD {
			if o.file < 0 {
				return opResult{fd: -1, err: unix.EACCES, wait: -1} // the child's own descriptor, out of reach
			}
			// The caller's descriptor itself, reached as the classic way of linking an
			// O_TMPFILE file does (the file keeps its own rule on being linked).
			err := unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(o.file), newDir, newArg, unix.AT_SYMLINK_FOLLOW)
			return opResult{fd: -1, err: err, wait: -1}
		}
		oldDir, _, oldArg, err := o.parent(o.bases[0], o.paths[0])
		if err == nil {
			err = unix.Linkat(oldDir, oldArg, newDir, newArg, o.atFlags&unix.AT_SYMLINK_FOLLOW)
		}
		return opResult{fd: -1, err: err, wait: -1}
	case "rename", "renameat", "renameat2":
		oldDir, oldName, oldArg, err := o.parent(o.bases[0], o.paths[0])
		if err != nil {
			return opResult{fd: -1, err: err, wait: -1}
		}
		newDir, newName, newArg, err := o.parent(o.bases[1], o.paths[1])
		if err == nil {
			err = o.refuse(newDir, newName, 0)
		}
		if err == nil && o.renFlags&(unix.RENAME_EXCHANGE|unix.RENAME_WHITEOUT) != 0 {
			// The old name gets the new one's object (RENAME_EXCHANGE) or a whiteout.
			err = o.refuse(oldDir, oldName, 0)
		}
		if err == nil {
			err = unix.Renameat2(oldDir, oldArg, newDir, newArg, o.renFlags)
		}
		return opResult{fd: -1, err: err, wait: -1}
	}
	return opResult{fd: -1, err: unix.ENOSYS, wait: -1}
}

// parent opens the directory that holds the last component of path (relative to base), as the
// kernel resolves it, but through no /proc magic link (those would lead to the supervisor's own
// descriptors). It returns the directory, the last component's name, and the name to pass on
// (with a trailing slash the path had).
func (o *createOp) parent(base int, path string) (dir int, name, arg string, err error) {
	if path == "" {
		return -1, "", "", unix.ENOENT
	}
	if strings.HasPrefix(path, "/") {
		base = unix.AT_FDCWD
	}
	trimmed := strings.TrimRight(path, "/")
	if trimmed == "" {
		trimmed = "/."
	}
	d, name := ".", trimmed
	if i := strings.LastIndexByte(trimmed, '/'); i >= 0 {
		d, name = trimmed[:i+1], trimmed[i+1:]
	}
	// (openat2 and its RESOLVE_NO_MAGICLINKS are refused by the filter: a magic link followed
	// here leads to a descriptor of the supervisor's, each of which is the caller's own or
	// refused below.)
	dir, err = unix.Openat(base, d, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, "", "", err
	}
	o.opened = append(o.opened, dir)
	var fs unix.Statfs_t
	if err := unix.Fstatfs(dir, &fs); err != nil || fs.Type == unix.PROC_SUPER_MAGIC {
		// /proc/self is the supervisor here, not the caller: nothing is made through it.
		return -1, "", "", unix.EACCES
	}
	arg = name
	if len(trimmed) < len(path) && trimmed != "/." {
		arg += "/"
	}
	return dir, name, arg, nil
}

// refuse returns errProtectedName when name in dir is protected and dir is not in the child's
// private temp dir; ifExists, when not 0, is returned instead for a name that exists (as the
// call would fail so on an existing name).
func (o *createOp) refuse(dir int, name string, ifExists unix.Errno) error {
	if !slices.Contains(ProtectedNames, name) || o.inTmp(dir) {
		return nil
	}
	var st unix.Stat_t
	if ifExists != 0 && unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return ifExists
	}
	return errProtectedName
}

// inTmp reports whether dir is on the child's private temp dir (its own tmpfs).
func (o *createOp) inTmp(dir int) bool {
	var st unix.Statx_t
	return unix.Statx(dir, "", unix.AT_EMPTY_PATH, unix.STATX_MNT_ID, &st) == nil && st.Mnt_id == o.tmpMnt
}

// open carries out open, openat or creat with O_CREAT. A last component that is a symlink is
// followed as the kernel would (unless O_NOFOLLOW or O_EXCL), from the directory that holds it:
// a dangling one must not make a protected name where it leads.
func (o *createOp) open(base int, path string) (int, error) {
	flags := o.flags | unix.O_CLOEXEC
	if flags&unix.O_PATH != 0 {
		return -1, unix.EACCES // O_PATH ignores O_CREAT: no caller needs the supervisor for it
	}
	for hops := 0; hops <= 40; hops++ {
		dir, name, arg, err := o.parent(base, path)
		if err != nil {
			return -1, err
		}
		fd, err := o.openIn(dir, name, arg, flags)
		if err == unix.ELOOP && flags&(unix.O_NOFOLLOW|unix.O_EXCL) == 0 && arg == name {
			if target, rerr := readlinkat(dir, name); rerr == nil {
				base, path = dir, target
				continue
			}
		}
		return fd, err
	}
	return -1, unix.ELOOP
}

// openIn opens name in dir, never following a symlink there (ELOOP: open follows).
func (o *createOp) openIn(dir int, name, arg string, flags int) (int, error) {
	if arg != name || name == "." || name == ".." {
		return unix.Openat(dir, arg, flags, o.mode) // no file is made with a trailing slash, or at . and ..
	}
	if err := o.refuse(dir, name, 0); err != nil {
		// An existing protected file may be opened (it is a read-only mount); none is made.
		var st unix.Stat_t
		if unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return -1, err
		}
		if flags&unix.O_EXCL != 0 {
			return -1, unix.EEXIST
		}
		return o.openFile(dir, name, (flags&^unix.O_CREAT)|unix.O_NOFOLLOW)
	}
	return o.openFile(dir, name, flags|unix.O_NOFOLLOW)
}

// openFile opens name in dir without ever waiting. The kernel's open of an existing FIFO waits
// for its other end (opened for reading, until a writer opens it; for writing, until a reader
// does), and that of a file whose lease is being broken waits for the break: on the actor, such
// an open would hold every other call of the child and its programs until the FIFO opens or the
// call's deadline. Where the caller's own open would wait, o.wait is set to a descriptor of the
// file, which a thread of its own opens again as the caller asked (see supervisor.waitOpen):
// nothing is made by that open, and it waits as the caller's would, while the actor goes on
// with other calls. The open here is non-blocking (for writing, a FIFO without a reader then
// fails with ENXIO); a FIFO to be read is looked for before it is opened, as even a
// non-blocking open for reading would count as its reader and let a waiting writer go on.
func (o *createOp) openFile(dir int, name string, flags int) (int, error) {
	if flags&unix.O_NONBLOCK != 0 {
		return unix.Openat(dir, name, flags, o.mode) // the caller's open would not wait either
	}
	reading := flags&unix.O_ACCMODE == unix.O_RDONLY
	var st unix.Stat_t
	if reading && flags&unix.O_EXCL == 0 && unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFIFO {
		if p, ok := openFIFO(dir, name); ok {
			o.wait = p
			return -1, nil
		}
	}
	fd, err := unix.Openat(dir, name, flags|unix.O_NONBLOCK, o.mode)
	switch {
	case err == unix.ENXIO:
		// A FIFO opened for writing without a reader yet: the caller's open would wait.
		if p, ok := openFIFO(dir, name); ok {
			o.wait = p
			return -1, nil
		}
		return -1, err
	case err == unix.EWOULDBLOCK:
		// A lease being broken: the caller's open would wait for the break.
		p, perr := unix.Openat(dir, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if perr != nil {
			return -1, err
		}
		o.wait = p
		return -1, nil
	case err != nil:
		return -1, err
	}
	if reading {
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Close(fd)
			return -1, err
		}
		if st.Mode&unix.S_IFMT == unix.S_IFIFO {
			// A FIFO made since it was looked for. This descriptor is kept until the thread
			// that waits has the file open again: the FIFO never looks without a reader
			// meanwhile.
			o.wait = fd
			return -1, nil
		}
	}
	// The caller's own file status flags: without O_NONBLOCK.
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err == nil {
		_, err = unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
	}
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// openFIFO opens the FIFO name in dir with O_PATH (which is neither of its ends), or reports
// that it is not one.
func openFIFO(dir int, name string) (int, bool) {
	p, err := unix.Openat(dir, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, false
	}
	var st unix.Stat_t
	if unix.Fstat(p, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
		unix.Close(p)
		return -1, false
	}
	return p, true
}

// readlinkat reads the symlink name in dir.
func readlinkat(dir int, name string) (string, error) {
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(dir, name, buf)
	if err != nil {
		return "", err
	}
	if n >= len(buf) {
		return "", unix.ENAMETOOLONG
	}
	return string(buf[:n]), nil
}
