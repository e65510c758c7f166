//go:build unix

package viewer

import (
	"syscall"
	"testing"
	"time"
)

// processCPU is the processor time the process has used so far, user and
// system, across all its threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the processor time used per op since start
// (cpu-ns/op): on a loaded machine it moves less than the wall time, which
// counts the time the process waited for a processor.
func reportCPU(b *testing.B, start time.Duration) {
	if n := b.N; n > 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(n), "cpu-ns/op")
	}
}
