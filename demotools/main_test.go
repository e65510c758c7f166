package demotools_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
)

// init keeps the main goroutine on the process's main thread from here on:
// the runtime runs package init there and lets the goroutine move once init
// is done, and the test binary's main has many points where it may move
// before TestMain calls tooling.Main (it did, and demo.counter's scheduler
// then reported a thread that is not the main one).
func init() { runtime.LockOSThread() }

// TestMain hands the main thread to the registry's main-thread scheduler,
// as a host does from main(), and fails the run when a tool goroutine
// outlives the tests.
func TestMain(m *testing.M) {
	tooling.Main(tooling.Default(), func() int {
		code := m.Run()
		if code == 0 {
			if err := waitNoToolGoroutines(10 * time.Second); err != nil {
				fmt.Fprintln(os.Stderr, err)
				code = 1
			}
		}
		return code
	})
}

// toolFrames mark a goroutine that runs registry or tool code.
var toolFrames = []string{"toolexplorer/toolexplorer/tooling.", "toolexplorer/toolexplorer/demotools."}

// waitNoToolGoroutines polls until no goroutine but the caller runs
// registry or tool code and the registry counts nothing in flight.
func waitNoToolGoroutines(limit time.Duration) error {
	var leaked []string
	ok := eventually(limit, func() bool {
		leaked = toolGoroutines()
		s := tooling.Default().Stats()
		return len(leaked) == 0 && s.InFlight == 0 && s.Abandoned == 0
	})
	if ok {
		return nil
	}
	return fmt.Errorf("leaked goroutines (stats %+v):\n\n%s", tooling.Default().Stats(), strings.Join(leaked, "\n\n"))
}

func toolGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 || strings.Contains(g, "tooling.Main(") { // the caller, and the main-thread loop it runs on
			continue
		}
		for _, f := range toolFrames {
			if strings.Contains(g, f) {
				out = append(out, g)
				break
			}
		}
	}
	return out
}

// eventually polls cond until it holds or limit passes.
func eventually(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
	}
}

// execute runs a tool of the default registry and checks that the result
// and the error agree with each other and with want (codes.OK for success).
func execute(t *testing.T, name, args string, want codes.Code, opts ...tooling.Option) (*tooling.Result, error) {
	t.Helper()
	return executeOn(t, tooling.Default(), name, args, want, opts...)
}

// executeOn is execute on registry r.
func executeOn(t *testing.T, r *tooling.Registry, name, args string, want codes.Code, opts ...tooling.Option) (*tooling.Result, error) {
	t.Helper()
	var raw json.RawMessage
	if args != "" {
		raw = json.RawMessage(args)
	}
	res, err := r.Execute(context.Background(), name, raw, opts...)
	if res == nil {
		t.Fatalf("%s %s: nil result", name, args)
	}
	if want == codes.OK {
		if err != nil || !res.OK() {
			t.Fatalf("%s %s: err %v, code %q, want success", name, args, err, res.Code)
		}
		return res, err
	}
	if res.Code != want || err == nil {
		t.Fatalf("%s %s: code %q (err %v), want %q", name, args, res.Code, err, want)
	}
	if !errors.Is(err, want) {
		t.Errorf("%s %s: errors.Is(err, %q) is false for %v", name, args, want, err)
	}
	if res.Status != "denied" && res.Status != "error" {
		t.Errorf("%s %s: status %q, want denied or error", name, args, res.Status)
	}
	if len(res.Output) != 0 {
		t.Errorf("%s %s: failed call has output %s", name, args, res.Output)
	}
	return res, err
}

// decodeOutput decodes a result's output strictly into v.
func decodeOutput(t *testing.T, res *tooling.Result, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(res.Output))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("%s: output %s: %v", res.Tool, res.Output, err)
	}
}

// fieldPaths lists the JSON pointers of a result's field errors.
func fieldPaths(res *tooling.Result) []string {
	out := make([]string, len(res.Fields))
	for i, f := range res.Fields {
		out[i] = f.Path
	}
	return out
}
