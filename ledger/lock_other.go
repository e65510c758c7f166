//go:build !unix

package ledger

import "os"

// lock takes no lock where flock is missing: there, one process at a time
// may append to a ledger.
func lock(*os.File) (func(), error) { return func() {}, nil }

// alive cannot tell here: a call without an end reads as interrupted.
func alive(int) bool { return false }
