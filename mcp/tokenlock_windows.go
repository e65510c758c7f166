package mcp

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockFile takes f's exclusive lock, waiting for another process (or
// another open of the file) that holds it. Closing f releases it.
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, new(windows.Overlapped))
}
