//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
// What neither does: a protected name that does not exist when the child starts can be created
// where the child may create files (in ModeSplit, only in directories writable as a whole).
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
func protectedWrites(write []string) (writable, readOnly []string, err error) {
	found, err := findProtected(write, protectBudget)
	if errors.Is(err, errProtectBudget) {
		return nil, nil, fmt.Errorf("the write paths %v hold more than %d entries, past which protected names (%s, ...) cannot all be found without user namespaces: the call is refused rather than let them be written; grant a smaller directory, or enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, user.max_user_namespaces)", write, protectBudget, ProtectedNames[0])
	}
	if err != nil {
		return nil, nil, fmt.Errorf("looking for protected names: %w", err)
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
	return writable, readOnly, nil
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
