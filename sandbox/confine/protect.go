//go:build linux

package confine

import (
	"os"
	"path/filepath"
	"slices"
)

// ProtectedNames are the names that stay read-only inside a write grant: version control
// metadata, shell start-up files, editor settings and direnv files run code or change what runs
// when a person works in the directory later (a .git/config with core.fsmonitor runs a command
// at the next git status). Landlock has no rule that denies, and rights granted on a directory
// hold for everything beneath it, so a write grant on a directory that holds one of these names
// (within protectDepth levels) is split: the directory itself becomes read-only and each of its
// other entries is granted on its own, down to where no protected name is left.
//
// What that costs and what it does not do: in a directory split so, nothing can be created,
// removed or renamed (its existing files and the subdirectories without protected names stay
// writable); a protected name that does not exist yet can still be created in a directory that
// is writable as a whole; names deeper than protectDepth levels, or past the first
// protectBudget entries looked at, are not found.
var ProtectedNames = []string{
	".git", ".hg", ".svn", ".bzr",
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".kshrc", ".cshrc", ".tcshrc",
	".envrc", ".vscode", ".idea", ".devcontainer", ".gitmodules", ".gitattributes",
}

// How far and how much protectedWrites looks.
const (
	protectDepth  = 4
	protectBudget = 20000
)

// protectedWrites splits the write grants that hold a protected name: it returns the paths to
// grant writing and the directories to grant reading only instead.
func protectedWrites(write []string) (writable, readOnly []string) {
	budget := protectBudget
	for _, w := range write {
		if slices.Contains(ProtectedNames, filepath.Base(w)) {
			readOnly = append(readOnly, w) // named itself
			continue
		}
		wr, ro := splitWrite(w, 0, &budget)
		writable = append(writable, wr...)
		readOnly = append(readOnly, ro...)
	}
	return writable, readOnly
}

func splitWrite(dir string, depth int, budget *int) (writable, readOnly []string) {
	if !holdsProtected(dir, depth, budget) {
		return []string{dir}, nil
	}
	readOnly = []string{dir}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if slices.Contains(ProtectedNames, e.Name()) {
			continue // read-only, as the directory is
		}
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir():
			wr, ro := splitWrite(p, depth+1, budget)
			writable = append(writable, wr...)
			readOnly = append(readOnly, ro...)
		case e.Type().IsRegular():
			writable = append(writable, p)
		}
		// Symlinks and special files get no rule: a rule is made on what a path leads to.
	}
	return writable, readOnly
}

// holdsProtected reports whether path is a directory that holds a protected name, at most
// protectDepth-depth levels down.
func holdsProtected(path string, depth int, budget *int) bool {
	if depth > protectDepth || *budget <= 0 {
		return false
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return false
	}
	*budget -= len(entries)
	for _, e := range entries {
		if slices.Contains(ProtectedNames, e.Name()) {
			return true
		}
	}
	for _, e := range entries {
		if e.IsDir() && holdsProtected(filepath.Join(path, e.Name()), depth+1, budget) {
			return true
		}
	}
	return false
}
