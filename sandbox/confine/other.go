//go:build !linux

package confine

import "errors"

// Confinement exists on Linux only. Elsewhere the entry points a host calls are here, so that
// one main builds everywhere; there are no children to serve or clean up.

// Main returns false: there are no confined children off Linux.
func Main() bool { return false }

// IsChild returns false: there are no confined children off Linux.
func IsChild() bool { return false }

// Available says that confinement exists on Linux only.
func Available() error { return errors.New("confinement exists on Linux only") }

// Settle has nothing to wait for off Linux.
func Settle() {}

// Shutdown has nothing to remove off Linux.
func Shutdown() {}

// ProtectionMode reports ModeSplit: there are no confined children off Linux.
func ProtectionMode() (Mode, string) { return ModeSplit, "confinement exists on Linux only" }
