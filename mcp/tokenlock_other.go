//go:build !unix && !windows

package mcp

import "os"

// lockFile does nothing where the system has no file locks: two processes
// refreshing the same tokens at once may make one of them sign in again.
func lockFile(*os.File) error { return nil }
