package sandbox

import (
	"fmt"
	"os"
	"testing"

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
		err := goleak.Find(goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox.(*MainThread).Run"))
		if err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	})
	os.Exit(code)
}
