package gctune

import "runtime/debug"

// ServingPercent is the GOGC a serving process runs at unless GOGC says
// otherwise. At Go's default of 100, a heap of 1 MB live is collected each
// time 3 MB more is allocated (the collector's least goal is 4 MB), about
// every twenty calls of an MCP server whose SDK allocates 150 KB a call, and
// each collection also hands pages back to the kernel that the next calls
// fault in again. At 400 the goal is five times the live heap, at least 16
// MB, and a serving process collects a fifth as often.
const ServingPercent = 400

// ForServing sets GOGC to ServingPercent unless getenv("GOGC") is set (the
// runtime has read it then, and it stands), and returns what restores the
// setting it found.
func ForServing(getenv func(string) string) (restore func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(ServingPercent)
	return func() { debug.SetGCPercent(old) }
}
