package tooling_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling"
	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
)

// init keeps the main goroutine on the process's main thread from here on:
// the runtime runs package init there and lets the goroutine move once init
// is done, and the test binary's main has many points where it may move
// before TestMain calls tooling.Main, whose main-thread tests would then
// fail for the test binary's sake.
func init() { runtime.LockOSThread() }

// hosted is the registry TestMain hands to tooling.Main: a registry of its
// own, not Default, which holds the tests' confined tools.
var hosted = tooling.NewRegistry()

// TestMain hands the process main thread and hosted to tooling.Main, as a
// host does from main(), runs the tests there, and fails on any leaked
// goroutine.
func TestMain(m *testing.M) {
	tooling.Main(hosted, func() int {
		code := m.Run()
		if code == 0 {
			confine.Settle()
			if err := findLeaks(goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox.(*MainThread).Run"),
				// The clock of timed regexp matches (internal/pattern) stops by itself a second after the last one.
				goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"),
				// The threads confined children are started from live as long as the process.
				goleak.IgnoreAnyFunction("github.com/toolexplorer/toolexplorer/sandbox/confine.spawner")); err != nil {
				fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
				code = 1
			}
		}
		return code
	})
}

// leakGuard is how long findLeaks waits for goroutines to end, a hang guard: goleak.Find
// alone gives them about 0.4 s, which the last calls' goroutines (ending after their results
// were returned) can outlast on a loaded machine.
const leakGuard = time.Minute

// findLeaks is goleak.Find, repeated until no goroutine is left or leakGuard has passed.
func findLeaks(opts ...goleak.Option) error {
	deadline := time.Now().Add(leakGuard)
	for {
		err := goleak.Find(opts...)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func run(context.Context, tooling.Call) (any, error) { return "ok", nil }

// waitAbandoned waits until no abandoned tool goroutine is left in r.
func waitAbandoned(t *testing.T, r *tooling.Registry) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute) // a hang guard
	for r.Stats().Abandoned != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("abandoned goroutines still running: %d", r.Stats().Abandoned)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func mustExec(t *testing.T, r *tooling.Registry, name, args string, opts ...tooling.Option) *tooling.Result {
	t.Helper()
	res, err := r.Execute(context.Background(), name, raw(args), opts...)
	if err != nil {
		t.Fatalf("Execute(%s, %s): %v", name, args, err)
	}
	return res
}

// toolStats returns the counters of the named tool from r.Stats(), and
// false when the tool has not been called.
func toolStats(r *tooling.Registry, name string) (tooling.ToolStats, bool) {
	for _, s := range r.Stats().Tools {
		if s.Tool == name {
			return s, true
		}
	}
	return tooling.ToolStats{}, false
}
