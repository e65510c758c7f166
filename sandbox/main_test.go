package sandbox

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

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
		// goleak.Find alone gives ending goroutines about 0.4 s, which a loaded machine can
		// outlast: it is repeated until none is left, for a minute at most (a hang guard).
		var err error
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
			err = goleak.Find(goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox.(*MainThread).Run"))
			if err == nil || time.Now().After(deadline) {
				break
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	})
	os.Exit(code)
}
