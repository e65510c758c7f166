//go:build !linux

package policy_test

import "time"

// threadCPU stands in for the thread's CPU time where it cannot be read
// (confined tools, which spend it, run on Linux only): the time now.
func threadCPU() time.Duration { return time.Duration(time.Now().UnixNano()) }

// cpuNow is 0 where the process's CPU time is not read: the benchmark
// reports wall time only.
func cpuNow() time.Duration { return 0 }
