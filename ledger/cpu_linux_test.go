//go:build linux

package ledger_test

import (
	"syscall"
	"time"
)

// cpuNow is the CPU time the process has used, every goroutine's.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
