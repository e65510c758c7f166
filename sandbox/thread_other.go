//go:build !linux

package sandbox

import (
	"bytes"
	"runtime"
	"strconv"
)

// currentThread identifies the calling goroutine's thread. There is no portable thread id off
// Linux, but the loop goroutine is locked to its thread, so its goroutine id, read from the
// header of its stack trace ("goroutine 42 [running]:"), identifies it as well. It is slow, and
// only IsMainThread and the loop's start use it.
func currentThread() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		if id, err := strconv.ParseInt(string(b[:i]), 10, 64); err == nil {
			return id
		}
	}
	return -1
}

// isProcessMainThread reports whether t is the main goroutine (id 1), which is on the process
// main thread when main hands it to Run before anything else.
func isProcessMainThread(t int64) bool { return t == 1 }

// threadID is 0 off Linux: there is no thread id to report.
func threadID(int64) int { return 0 }
