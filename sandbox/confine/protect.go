//go:build linux

package confine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// ProtectedNames are the names that stay read-only inside a write grant: version control
// metadata, shell start-up files, editor settings and direnv files run code or change what runs
// when a person works in the directory later (a .git/config with core.fsmonitor runs a command
// at the next git status). Landlock has no rule that denies, and rights granted on a directory
// hold for everything beneath it, so they are enforced in one of two ways (see [Mode]):
//
//   - In a private mount namespace (ModeNamespace), every protected entry under a write grant,
//     at any depth, is mounted read-only over itself; the write grant stays writable as a whole.
//   - Without one (ModeSplit), a write grant on a directory that holds a protected name at any
//     depth is split: the directory itself becomes read-only and each of its other entries is
//     granted on its own, down to where no protected name is left.
//
// Either way the parent finds the protected entries by walking the write grants (it does not
// look inside a protected entry, which is read-only as a whole). A protected symlink protects
// what it leads to as well, when that lies in a write grant. The split walk has a budget
// (protectBudget entries): past it the call is refused, never let through unprotected. The
// namespace walk has none.
//
// A protected name that does not exist when the child starts cannot be made in ModeSupervised
// (see supervise.go); in the other two modes it can be made where the child may make files (in
// ModeSplit, only in directories writable as a whole), and is moved aside after the call (see
// sweepProtected), which every mode does.
// A reused worker is retired when the protected entries under its write grants change (see
// [Pool]).
var ProtectedNames = []string{
	".git", ".hg", ".svn", ".bzr",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".kshrc", ".cshrc", ".tcshrc",
	".envrc", ".vscode", ".idea", ".devcontainer", ".gitmodules", ".gitattributes",
}

// protectBudget is how many entries the split walk looks at, over all write grants of a call,
// before it gives up and the call is refused.
const protectBudget = 20000

// errProtectBudget: the write grants hold more entries than the split walk may look at.
var errProtectBudget = errors.New("too many entries to look for protected names")

// findProtected walks the write grants and returns every protected entry under them (sorted),
// and what protected symlinks lead to inside the write grants. budget bounds the entries looked
// at (0: no bound); past it the result is errProtectBudget.
func findProtected(write []string, budget int) ([]string, error) {
	var found []string
	seen := 0
	var walk func(dir string) error
	walk = func(dir string) error {
		f, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
				return nil // gone, or not a directory (a link the walk does not follow)
			}
			return err
		}
		entries, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return err
		}
		if seen += len(entries); budget > 0 && seen > budget {
			return errProtectBudget
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if slices.Contains(ProtectedNames, e.Name()) {
				found = append(found, p)
				if e.Type()&os.ModeSymlink != 0 {
					if t, err := filepath.EvalSymlinks(p); err == nil && underAny(t, write) {
						found = append(found, t)
					}
				}
				continue
			}
			if e.IsDir() {
				if err := walk(p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, w := range write {
		if slices.Contains(ProtectedNames, filepath.Base(w)) {
			found = append(found, w) // named itself
			continue
		}
		if err := walk(w); err != nil {
			return nil, err
		}
	}
	return sortedUnique(found), nil
}

// protectedWrites splits the write grants around the protected entries found in them
// (ModeSplit): it returns the paths to grant writing and the directories to grant reading only
// instead. It fails closed: a walk past its budget refuses the call.
func protectedWrites(write []string) (writable, readOnly, found []string, err error) {
	found, err = findProtected(write, protectBudget)
	if errors.Is(err, errProtectBudget) {
		return nil, nil, nil, fmt.Errorf("the write paths %v hold more than %d entries, past which protected names (%s, ...) cannot all be found without user namespaces: the call is refused rather than let them be written; grant a smaller directory, or enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces)", write, protectBudget, ProtectedNames[0])
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("looking for protected names: %w", err)
	}
	set := make(map[string]bool, len(found))
	for _, p := range found {
		set[p] = true
	}
	for _, w := range write {
		wr, ro := splitWrite(w, found, set)
		writable = append(writable, wr...)
		readOnly = append(readOnly, ro...)
	}
	return writable, readOnly, found, nil
}

// splitWrite splits the grant on dir around the protected entries found under it.
func splitWrite(dir string, found []string, set map[string]bool) (writable, readOnly []string) {
	if set[dir] {
		return nil, []string{dir}
	}
	if !slices.ContainsFunc(found, func(p string) bool { return under(p, dir) }) {
		return []string{dir}, nil
	}
	readOnly = []string{dir}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case set[p]:
			continue // read-only, as the directory is
		case e.IsDir():
			wr, ro := splitWrite(p, found, set)
			writable = append(writable, wr...)
			readOnly = append(readOnly, ro...)
		case e.Type().IsRegular():
			writable = append(writable, p)
		}
		// Symlinks and special files get no rule: a rule is made on what a path leads to.
	}
	return writable, readOnly
}

// mountTargets turns the protected entries found into what ModeNamespace mounts read-only over
// itself: each entry, or the directory that holds it when it is a symlink (a mount cannot be
// put on a symlink, and the link itself must not be replaced); an entry inside another one
// needs no mount of its own.
func mountTargets(found []string) []string {
	var out []string
	for _, p := range found {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			p = filepath.Dir(p)
		}
		out = append(out, p)
	}
	out = sortedUnique(out)
	var kept []string
	for _, p := range out {
		if len(kept) > 0 && under(p, kept[len(kept)-1]) {
			continue
		}
		kept = append(kept, p)
	}
	return kept
}

// knownProtected records the object (device and inode, not following a symlink) of each
// protected entry found.
func knownProtected(found []string) map[string]dirID {
	known := make(map[string]dirID, len(found))
	for _, p := range found {
		var st unix.Stat_t
		if unix.Lstat(p, &st) == nil {
			known[p] = dirID{dev: uint64(st.Dev), ino: st.Ino}
		}
	}
	return known
}

// sweepProtected looks at the write grants once a call is over and moves aside every protected
// entry that was not there when its child started (a new path, or another object at a known
// one; not a known directory moved with one above it): a name the call created, which is inert
// under its new name, NAME.refused-XXXXXXXX.
// It returns what it moved, as "old -> new". budget bounds the walk as findProtected's.
func sweepProtected(grants []string, known map[string]dirID, budget int) ([]string, error) {
	found, err := findProtected(grants, budget)
	if err != nil {
		return nil, err
	}
	// A protected directory known at the start and found at another path is the same one,
	// moved with a directory above it (a directory has no other name: it cannot be linked).
	knownDirs := map[dirID]bool{}
	for _, id := range known {
		knownDirs[id] = true
	}
	var moved []string
	for _, p := range found {
		name := filepath.Base(p)
		if !slices.Contains(ProtectedNames, name) || slices.Contains(grants, p) {
			continue // what a protected symlink leads to, or a grant named so itself
		}
		var st unix.Stat_t
		if unix.Lstat(p, &st) != nil {
			continue
		}
		id := dirID{dev: uint64(st.Dev), ino: st.Ino}
		if known[p] == id || st.Mode&unix.S_IFMT == unix.S_IFDIR && knownDirs[id] {
			continue
		}
		dir, err := unix.Openat2(unix.AT_FDCWD, filepath.Dir(p), &unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
		if err != nil {
			return moved, fmt.Errorf("moving aside %s: %w", p, err)
		}
		aside := fmt.Sprintf("%s.refused-%08x", name, rand.Uint32())
		err = unix.Renameat2(dir, name, dir, aside, unix.RENAME_NOREPLACE)
		unix.Close(dir)
		if err != nil {
			return moved, fmt.Errorf("moving aside %s: %w", p, err)
		}
		moved = append(moved, p+" -> "+aside)
	}
	return moved, nil
}

// sweep checks the write grants of a child whose call is over (see sweepProtected) and turns
// what it found into the call's error; nil when the call created no protected name.
func (pr *proc) sweep() *Error {
	if len(pr.grantsW) == 0 {
		return nil
	}
	budget := protectBudget
	if pr.nsMode {
		budget = 0
	}
	moved, err := sweepProtected(pr.grantsW, pr.known, budget)
	if err != nil {
		return &Error{Kind: Denied, What: "the write paths could not be checked for protected names the call made: " + err.Error()}
	}
	if len(moved) == 0 {
		return nil
	}
	name := filepath.Base(strings.SplitN(moved[0], " -> ", 2)[0])
	return &Error{Kind: Denied, What: fmt.Sprintf("the call created %s, a protected name (%s): it is moved aside, %s; protected names are made outside the sandbox",
		strings.Join(moved, ", "), protectedWhy(name), "and the call's answer is dropped")}
}
