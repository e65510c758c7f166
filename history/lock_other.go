//go:build !unix

package history

import "os"

// lockFile takes no lock where flock is missing: there, a line appended
// by another process while this one trims the file may be lost.
func lockFile(string, bool) (func(), error) { return func() {}, nil }

// openNoFollow opens the file at path as os.OpenFile does with mode 0600,
// except that a symbolic link there is refused, not followed. Without
// O_NOFOLLOW the check comes before the open: a link put there in between
// is followed.
func openNoFollow(path string, flag int) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	return os.OpenFile(path, flag, 0o600)
}
