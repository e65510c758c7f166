//go:build unix

package history

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes a lock on the file at path, shared or exclusive, and
// returns what releases it. Appends share it; a trim holds it alone.
func lockFile(path string, exclusive bool) (func(), error) {
	f, err := openNoFollow(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// openNoFollow opens the file at path as os.OpenFile does with mode 0600,
// except that a symbolic link there is refused, not followed: the kernel
// checks it in the open itself (O_NOFOLLOW), so no link put there between
// a check and the open is followed either.
func openNoFollow(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &os.PathError{Op: "open", Path: path, Err: errSymlink}
	}
	return f, err
}
