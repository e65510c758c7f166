//go:build linux

package confine

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// Every child gets a private temp dir: c<n> inside this process's session dir,
// $TMPDIR/toolexplorer-confine-<random>, which belongs to the parent's user, mode 0711 (children
// reach their own dir; nobody else lists it or renames what is in it). The parent works on both
// through an os.Root opened when it made the session dir, so no path a child or another user
// controls is ever followed.
//
// Making and removing a directory can cost a millisecond each on a busy file system, so a dir
// whose child could not change its mode or attributes (no permission changes in its seccomp
// policy) is emptied after the call, checked, and kept for a later child; others are removed.
//
// The parent holds an exclusive flock on its session dir while it lives and removes the dir when
// it ends (Shutdown, which tooling.Main calls); the next parent to start a child removes the
// session dirs nobody holds any more: those of parents that died.

const (
	sessionPrefix = "toolexplorer-confine-"
	// maxSpares bounds the emptied dirs kept for later children.
	maxSpares = 4
)

var session struct {
	mu      sync.Mutex
	open    bool
	path    string
	root    *os.Root
	lock    *os.File // the session dir, flocked while the session is open
	swept   bool
	next    int
	spares  []string // names of emptied dirs
	flags   int      // the inode flags of a new dir (FS_IOC_GETFLAGS), -1 unknown
	flagsOK bool
}

// openSession makes the session dir if there is none open, and the first time starts the sweep
// of dead parents' ones. It returns the session's root and path.
func openSession() (*os.Root, string, error) {
	session.mu.Lock()
	defer session.mu.Unlock()
	if !session.open {
		path, root, lock, err := makeSession()
		if err != nil {
			return nil, "", err
		}
		session.open, session.path, session.root, session.lock = true, path, root, lock
		session.next, session.spares, session.flagsOK = 0, nil, false
		if !session.swept {
			session.swept = true
			teardowns.Add(1)
			go func() {
				defer teardowns.Done()
				sweepSessions(os.TempDir(), path)
			}()
		}
	}
	return session.root, session.path, nil
}

// Shutdown removes this process's session dir and every private dir in it. A program calls it
// as it exits, once its calls are done and its pools closed (tooling.Main does): children
// still running lose their dirs. Cleanup of finished calls is waited for first (see Settle). A
// later call starts a new session.
func Shutdown() {
	teardowns.Wait()
	session.mu.Lock()
	defer session.mu.Unlock()
	if !session.open {
		return
	}
	if d, err := session.root.Open("."); err == nil {
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			unmountTmpfs(filepath.Join(session.path, n))
			session.root.RemoveAll(n)
		}
	}
	session.root.Close()
	session.lock.Close()
	os.Remove(session.path)
	session.open, session.root, session.lock, session.spares = false, nil, nil, nil
}

func makeSession() (path string, root *os.Root, lock *os.File, err error) {
	path, err = os.MkdirTemp("", sessionPrefix)
	if err != nil {
		return "", nil, nil, fmt.Errorf("creating the session dir: %w", err)
	}
	root, err = os.OpenRoot(path)
	if err != nil {
		os.Remove(path)
		return "", nil, nil, fmt.Errorf("opening the session dir: %w", err)
	}
	lock, err = root.Open(".")
	if err == nil {
		err = ownDir(lock, os.Geteuid(), 0o700) // still the dir made above, not a swapped one
	}
	if err == nil {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err == nil {
		err = root.Chmod(".", 0o711)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		root.Close()
		return "", nil, nil, fmt.Errorf("preparing the session dir %s: %w", path, err)
	}
	return path, root, lock, nil
}

// ownDir checks that f is a directory owned by uid with permissions perm.
func ownDir(f *os.File, uid int, perm os.FileMode) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != uid || fi.Mode().Perm() != perm || fi.Mode()&(os.ModeSetuid|os.ModeSetgid|os.ModeSticky) != 0 {
		return fmt.Errorf("%s is not a directory of uid %d with mode %v", f.Name(), uid, perm)
	}
	return nil
}

// dirID identifies a directory: its device and inode numbers. tmpfs (not compared by the child)
// says that it is the root of a tmpfs the parent mounted.
type dirID struct {
	dev, ino uint64
	tmpfs    bool
}

// privateDir hands out a private temp dir, owned by the child's user: an emptied one when there
// is one, else a new one. It returns its path and identity, and whether it is a tmpfs of the
// setup's size (a root parent mounts one on each new dir; such a dir is never kept as a spare).
func privateDir(s *setupMsg) (string, dirID, bool, error) {
	p, id, err := privateDirOf(s)
	return p, id, err == nil && id.tmpfs, err
}

func privateDirOf(s *setupMsg) (string, dirID, error) {
	root, path, err := openSession()
	if err != nil {
		return "", dirID{}, err
	}
	uid := dirOwner(s)
	for {
		session.mu.Lock()
		n := len(session.spares)
		if n == 0 || session.root != root {
			session.mu.Unlock()
			break
		}
		name := session.spares[n-1]
		session.spares = session.spares[:n-1]
		want := session.flags
		session.mu.Unlock()
		dir := filepath.Join(path, name)
		if id, err := checkDir(root, name, uid, want); err == nil && (!id.tmpfs || resizeTmpfs(dir, s)) {
			return dir, id, nil
		}
		unmountTmpfs(dir)
		root.RemoveAll(name)
	}
	// Made under the lock, so that Shutdown, which empties and closes the root under it, never
	// misses a dir being made.
	session.mu.Lock()
	defer session.mu.Unlock()
	if session.root != root {
		return "", dirID{}, errors.New("creating the private temp dir: the session ended")
	}
	session.next++
	name := "c" + strconv.Itoa(session.next)
	if err := root.Mkdir(name, 0o700); err != nil {
		return "", dirID{}, fmt.Errorf("creating the private temp dir: %w", err)
	}
	mounted := false
	if s.dropUID {
		if err := root.Lchown(name, s.uid, s.gid); err != nil {
			root.Remove(name)
			return "", dirID{}, fmt.Errorf("handing the private temp dir over: %w", err)
		}
		if !s.nsMode { // a child in a mount namespace mounts its own (see protectMounts)
			mounted = mountTmpfs(filepath.Join(path, name), s)
		}
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		root.Remove(name)
		return "", dirID{}, fmt.Errorf("opening the private temp dir: %w", err)
	}
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		root.Remove(name)
		return "", dirID{}, fmt.Errorf("opening the private temp dir: %w", err)
	}
	if !session.flagsOK {
		session.flags, session.flagsOK = -1, true
		if v, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS); err == nil {
			session.flags = v
		}
	}
	return filepath.Join(path, name), dirID{dev: uint64(st.Dev), ino: st.Ino, tmpfs: mounted}, nil
}

// tmpfsWorks is cleared once a tmpfs could not be mounted: the parent then measures the dirs.
var tmpfsWorks atomic.Bool

func init() { tmpfsWorks.Store(true) }

// mountTmpfs mounts a tmpfs of the setup's size and inode count on dir (in the session dir,
// which only this process changes), owned by the child's user, and reports whether it did.
func mountTmpfs(dir string, s *setupMsg) bool {
	if !tmpfsWorks.Load() {
		return false
	}
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0700,uid=%d,gid=%d", s.limits.TmpBytes, s.limits.TmpInodes, s.uid, s.gid)
	if err := unix.Mount("toolexplorer-tmp", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		tmpfsWorks.Store(false)
		return false
	}
	return true
}

// resizeTmpfs gives the (empty) tmpfs on dir the setup's size and inode count.
func resizeTmpfs(dir string, s *setupMsg) bool {
	opts := fmt.Sprintf("size=%d,nr_inodes=%d", s.limits.TmpBytes, s.limits.TmpInodes)
	return unix.Mount("", dir, "", unix.MS_REMOUNT|unix.MS_NOSUID|unix.MS_NODEV, opts) == nil
}

// unmountTmpfs detaches the tmpfs on dir, if there is one (only a root parent mounts them).
func unmountTmpfs(dir string) {
	if os.Geteuid() == 0 {
		unix.Unmount(dir, unix.MNT_DETACH|unix.UMOUNT_NOFOLLOW)
	}
}

// checkDir checks that root's entry name is still a private dir as made: a directory of uid,
// mode 0700, with the inode flags of a new dir (flags), and empty. It returns its identity.
func checkDir(root *os.Root, name string, uid, flags int) (dirID, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return dirID{}, err
	}
	defer f.Close()
	if err := ownDir(f, uid, 0o700); err != nil {
		return dirID{}, err
	}
	if got, err := unix.IoctlGetInt(int(f.Fd()), unix.FS_IOC_GETFLAGS); err == nil && got != flags {
		return dirID{}, fmt.Errorf("inode flags %#x, want %#x", got, flags)
	}
	if names, err := f.Readdirnames(1); len(names) != 0 || err == nil {
		return dirID{}, errors.New("not empty")
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return dirID{}, err
	}
	// A tmpfs the parent mounted is on a device of its own.
	var top unix.Stat_t
	if err := unix.Stat(root.Name(), &top); err != nil {
		return dirID{}, err
	}
	return dirID{dev: uint64(st.Dev), ino: st.Ino, tmpfs: st.Dev != top.Dev}, nil
}

// releaseDir takes back the private dir at path, whose child is dead and reaped, its process
// group killed. With keep (the child could not change modes or attributes) the dir is emptied
// and, if it is still a private dir as made, kept for a later child; otherwise it is removed.
// A dir of a session that was shut down is gone already.
func releaseDir(path string, keep bool, uid int) {
	session.mu.Lock()
	root, flags := session.root, session.flags
	current := session.open && filepath.Dir(path) == session.path
	session.mu.Unlock()
	if !current {
		return
	}
	name := filepath.Base(path)
	if keep && emptyDir(root, name) {
		if _, err := checkDir(root, name, uid, flags); err == nil {
			session.mu.Lock()
			if session.root == root && len(session.spares) < maxSpares {
				session.spares = append(session.spares, name)
				session.mu.Unlock()
				return
			}
			session.mu.Unlock()
		}
	}
	unmountTmpfs(filepath.Join(session.path, name))
	root.RemoveAll(name)
}

// emptyDir removes everything in root's entry name, inside the root: symlinks are removed,
// never followed.
func emptyDir(root *os.Root, name string) bool {
	sub, err := root.OpenRoot(name)
	if err != nil {
		return false
	}
	defer sub.Close()
	d, err := sub.Open(".")
	if err != nil {
		return false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false
	}
	for _, n := range names {
		if sub.RemoveAll(n) != nil {
			return false
		}
	}
	return true
}

// dropSpares removes the dirs kept for later children (Settle calls it).
func dropSpares() {
	session.mu.Lock()
	spares, root := session.spares, session.root
	session.spares = nil
	session.mu.Unlock()
	for _, name := range spares {
		unmountTmpfs(filepath.Join(root.Name(), name))
		root.RemoveAll(name)
	}
}

// sweepSessions removes the session dirs in dir that no process holds: directories named
// toolexplorer-confine-... owned by this process's user whose flock can be taken. Anything else
// (a symlink, another user's entry, a held session, self) is left alone.
func sweepSessions(dir, self string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), sessionPrefix) || !e.IsDir() {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if path == self {
			continue
		}
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && int(st.Uid) == os.Geteuid() && unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			if names, err := os.ReadDir(path); err == nil {
				for _, n := range names {
					unmountTmpfs(filepath.Join(path, n.Name())) // a dead parent's tmpfs dirs
				}
			}
			os.RemoveAll(path) // does not follow symlinks below path
		}
		unix.Close(fd)
	}
}

// overBudget reports whether the directory tree at dir holds more than maxBytes of allocated
// blocks or more than maxInodes entries. It follows no symlink, stops counting as soon as it is
// over, and counts what it cannot read as over: the tree is the child's to change while it is
// measured.
func overBudget(dir string, maxBytes, maxInodes uint64) bool {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return !errors.Is(err, unix.ENOENT)
	}
	var bytes, inodes uint64
	return !measureDir(fd, &bytes, &inodes, maxBytes, maxInodes, 0)
}

// measureDir adds up the entries of the open directory fd (which it closes) and reports whether
// the totals stayed within the budget.
func measureDir(fd int, bytes, inodes *uint64, maxBytes, maxInodes uint64, depth int) bool {
	d := os.NewFile(uintptr(fd), "measured")
	defer d.Close()
	if depth > 64 {
		return false
	}
	for {
		names, err := d.Readdirnames(256)
		for _, n := range names {
			var st unix.Stat_t
			if err := unix.Fstatat(fd, n, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
				if errors.Is(err, unix.ENOENT) {
					continue // removed meanwhile
				}
				return false
			}
			*inodes++
			*bytes += uint64(st.Blocks) * 512
			if *inodes > maxInodes || *bytes > maxBytes {
				return false
			}
			if st.Mode&unix.S_IFMT == unix.S_IFDIR {
				sub, err := unix.Openat(fd, n, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err != nil {
					if errors.Is(err, unix.ENOENT) {
						continue
					}
					return false
				}
				if !measureDir(sub, bytes, inodes, maxBytes, maxInodes, depth+1) {
					return false
				}
			}
		}
		if err != nil {
			return errors.Is(err, io.EOF)
		}
	}
}
