//go:build !linux

package ledger_test

import "time"

// cpuNow is 0 where the process's CPU time is not read: the benchmark
// reports wall time only.
func cpuNow() time.Duration { return 0 }
