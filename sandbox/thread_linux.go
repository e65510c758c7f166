//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// currentThread identifies the calling goroutine's thread: its Linux thread id.
func currentThread() int64 { return int64(unix.Gettid()) }

// isProcessMainThread reports whether the thread identified by t is the process's main thread,
// whose thread id is the process id.
func isProcessMainThread(t int64) bool { return t == int64(unix.Getpid()) }

// threadID is the thread id Stats report for the thread identified by t.
func threadID(t int64) int { return int(t) }
