package demotools_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestSlow(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		opts     []tooling.Option
		code     tooling.Code
		slept    int64         // output, when ok
		timeout  time.Duration // the deadline the call ran under, when not zero
		min, max time.Duration // bounds of the wall time of the call
	}{
		{name: "short sleep", args: `{"ms":10}`, slept: 10, min: 10 * time.Millisecond, max: 400 * time.Millisecond},
		{name: "zero", args: `{"ms":0}`, slept: 0, max: 400 * time.Millisecond},
		{name: "short sleep ignoring cancel", args: `{"ms":10,"ignore_cancel":true}`, slept: 10, min: 10 * time.Millisecond, max: 400 * time.Millisecond},
		{name: "default 1000 ms times out", args: `{}`, code: tooling.CodeTimeout, timeout: 500 * time.Millisecond, min: 450 * time.Millisecond, max: 800 * time.Millisecond},
		{name: "honours its context", args: `{"ms":3000}`, code: tooling.CodeTimeout, min: 450 * time.Millisecond, max: 800 * time.Millisecond},
		{name: "caller shortens the deadline", args: `{"ms":3000}`, opts: []tooling.Option{tooling.WithTimeout(50 * time.Millisecond)},
			code: tooling.CodeTimeout, timeout: 50 * time.Millisecond, min: 45 * time.Millisecond, max: 800 * time.Millisecond},
		{name: "caller cannot lengthen the deadline", args: `{"ms":3000}`, opts: []tooling.Option{tooling.WithTimeout(time.Minute)},
			code: tooling.CodeTimeout, timeout: 500 * time.Millisecond, min: 450 * time.Millisecond, max: 800 * time.Millisecond},
		{name: "ms over 60000", args: `{"ms":60001}`, code: tooling.CodeValidationError, max: 400 * time.Millisecond},
		{name: "negative ms", args: `{"ms":-1}`, code: tooling.CodeValidationError, max: 400 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, _ := execute(t, "demo.slow", tt.args, tt.code, tt.opts...)
			took := time.Since(start)
			if took < tt.min || took > tt.max {
				t.Errorf("call took %v, want within [%v, %v] (ran %v under %v)", took, tt.min, tt.max, res.Run, res.Timeout)
			}
			if tt.timeout != 0 && res.Timeout != tt.timeout {
				t.Errorf("deadline %v, want %v", res.Timeout, tt.timeout)
			}
			if tt.code != tooling.CodeOK {
				return
			}
			var got struct {
				SleptMS int64 `json:"slept_ms"`
			}
			decodeOutput(t, res, &got)
			if got.SleptMS != tt.slept {
				t.Errorf("slept_ms = %d, want %d", got.SleptMS, tt.slept)
			}
		})
	}
	waitNoAbandoned(t)
}

// TestSlowIgnoresCancel shows that a call returns on time although the tool
// ignores its context, and that its goroutine is abandoned until it wakes.
func TestSlowIgnoresCancel(t *testing.T) {
	start := time.Now()
	res, err := execute(t, "demo.slow", `{"ms":3000,"ignore_cancel":true}`, tooling.CodeTimeout)
	took := time.Since(start)
	if took < 450*time.Millisecond || took > 800*time.Millisecond {
		t.Errorf("call took %v, want within [450ms, 800ms]", took)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v does not unwrap to context.DeadlineExceeded", err)
	}
	if !res.Abandoned {
		t.Error("result not marked abandoned")
	}
	if res.Timeout != 500*time.Millisecond {
		t.Errorf("timeout %v, want the tool's 500ms", res.Timeout)
	}
	if n := tooling.Default.Stats().Abandoned; n < 1 {
		t.Errorf("Stats().Abandoned = %d right after the call, want at least 1", n)
	}
	waitNoAbandoned(t)
}

func TestSlowCanceledByCaller(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	res, err := tooling.ExecuteTool(ctx, "demo.slow", json.RawMessage(`{"ms":3000}`))
	took := time.Since(start)
	if !errors.Is(err, tooling.ErrCanceled) || res.Code != tooling.CodeCanceled {
		t.Fatalf("code %q, err %v, want canceled", res.Code, err)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v does not unwrap to context.Canceled", err)
	}
	if took > 400*time.Millisecond {
		t.Errorf("call took %v after a cancel at 50ms", took)
	}
	waitNoAbandoned(t)
}

// waitNoAbandoned waits, with a deadline, until no tool goroutine of the
// default registry is abandoned.
func waitNoAbandoned(t *testing.T) {
	t.Helper()
	if !eventually(10*time.Second, func() bool { return tooling.Default.Stats().Abandoned == 0 }) {
		t.Fatalf("Stats().Abandoned = %d after 10s", tooling.Default.Stats().Abandoned)
	}
}
