package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// init keeps the main goroutine on the process's main thread from here on: the runtime runs
// package init there and lets the goroutine move once init is done, and the test binary's main
// has many points where it may move before TestMain calls Main.Run (it did, on a loaded
// machine, and Main's loop then ran on another thread).
func init() { runtime.LockOSThread() }

// TestMain hands the process main thread over to Main, as a host does from
// main(), and runs the tests inside it. Then it checks that no test leaked
// a goroutine; the only one allowed is Main's loop, which is the main
// goroutine itself.
func TestMain(m *testing.M) {
	code := 0
	Main.Run(func() {
		code = m.Run()
		if code != 0 {
			return
		}
		if err := findLeaks(goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox.(*MainThread).Run")); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	})
	os.Exit(code)
}

// findLeaks is goleak.Find, repeated until no goroutine is left or a minute has passed (a
// hang guard): goleak.Find alone gives ending goroutines about 0.4 s, which a loaded machine
// can outlast.
func findLeaks(opts ...goleak.Option) error {
	deadline := time.Now().Add(time.Minute)
	for {
		err := goleak.Find(opts...)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
