//go:build linux

package confine

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Every child gets a private temp dir in $TMPDIR, named confine-<parent pid>-<random>, owned by
// the child's user. Making and removing a directory can cost a millisecond each on a busy file
// system, so a dir whose child could not change its mode or attributes (no permission changes
// in its seccomp policy) is emptied after the call and kept for a later child; others are
// removed. A parent that dies leaves its dirs behind; the next parent to start a child removes
// the dirs of parents that no longer run.

// maxSpares bounds the emptied dirs kept for later children.
const maxSpares = 4

var dirs struct {
	once   sync.Once
	mu     sync.Mutex
	spares []string
}

// privateDir hands out a private temp dir, owned by the child's user: an emptied one when there
// is one, else a new one.
func privateDir(s *setupMsg) (string, error) {
	dirs.once.Do(func() {
		teardowns.Add(1)
		go func() {
			defer teardowns.Done()
			sweepDirs()
		}()
	})
	dirs.mu.Lock()
	if n := len(dirs.spares); n > 0 {
		dir := dirs.spares[n-1]
		dirs.spares = dirs.spares[:n-1]
		dirs.mu.Unlock()
		return dir, nil
	}
	dirs.mu.Unlock()
	return makeDir(s.dropUID, s.uid, s.gid)
}

// makeDir makes one private dir.
func makeDir(chown bool, uid, gid int) (string, error) {
	dir, err := os.MkdirTemp("", fmt.Sprintf("confine-%d-", os.Getpid()))
	if err != nil {
		return "", fmt.Errorf("creating the private temp dir: %w", err)
	}
	if chown {
		if err := os.Chown(dir, uid, gid); err != nil {
			os.Remove(dir)
			return "", fmt.Errorf("handing the private temp dir over: %w", err)
		}
	}
	return dir, nil
}

// releaseDir takes back the private dir of a child that is dead and reaped, its whole process
// group killed. With keep (the child could not change modes or attributes), the dir is emptied
// and, if it is still the directory this process made (a directory, mode 0700, owned by uid),
// kept for a later child; otherwise it is removed.
func releaseDir(dir string, keep bool, uid int) {
	if keep && emptyDir(dir) {
		var st syscall.Stat_t
		if syscall.Lstat(dir, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFDIR && st.Mode&0o7777 == 0o700 && int(st.Uid) == uid {
			dirs.mu.Lock()
			if len(dirs.spares) < maxSpares {
				dirs.spares = append(dirs.spares, dir)
				dirs.mu.Unlock()
				return
			}
			dirs.mu.Unlock()
		}
	}
	os.RemoveAll(dir)
}

// emptyDir removes everything in dir (not following symlinks) and reports whether it is empty.
func emptyDir(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return false
	}
	for _, n := range names {
		if os.RemoveAll(filepath.Join(dir, n)) != nil {
			return false
		}
	}
	return true
}

// dropSpares removes the dirs kept for later children (Settle calls it: a program about to exit
// leaves none).
func dropSpares() {
	dirs.mu.Lock()
	spares := dirs.spares
	dirs.spares = nil
	dirs.mu.Unlock()
	for _, d := range spares {
		os.Remove(d)
	}
}

// sweepDirs removes the private dirs of parents that no longer run: directories named
// confine-<pid>-... in $TMPDIR whose pid is not a running process, owned by this process's user
// or the children's. Anything else (a symlink, another user's entry) is left alone.
func sweepDirs() {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, ok := dirPID(e.Name())
		if !ok || pid == self || !e.IsDir() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == nil || err == syscall.EPERM {
			continue // that parent still runs (or another process has its pid now)
		}
		path := filepath.Join(tmp, e.Name())
		var st syscall.Stat_t
		if syscall.Lstat(path, &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			continue
		}
		if int(st.Uid) != os.Geteuid() && int(st.Uid) != UnprivilegedID {
			continue
		}
		os.RemoveAll(path)
	}
}

// dirPID reads the parent pid out of a private dir's name.
func dirPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "confine-")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}
