//go:build unix

package mcp

import (
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock, waiting for another process (or
// another open of the file) that holds it.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}
