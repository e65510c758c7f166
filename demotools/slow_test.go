package demotools_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// slowInBubble runs f in a synctest bubble with a registry of its own that holds demo.slow: the
// clock moves only when every goroutine of the bubble waits, so the call's times are those of
// its timers and deadlines, on a loaded machine as on an idle one.
func slowInBubble(t *testing.T, f func(t *testing.T, r *tooling.Registry)) {
	t.Helper()
	tool, ok := tooling.Default().Lookup("demo.slow")
	if !ok {
		t.Fatal("demo.slow is not registered")
	}
	synctest.Test(t, func(t *testing.T) {
		r := tooling.NewRegistry()
		r.Register(tool)
		f(t, r)
		// synctest.Test returns once every goroutine of the bubble, abandoned ones included, has.
	})
}

func TestSlow(t *testing.T) {
	tests := []struct {
		name     string
		args     string
		opts     []tooling.Option
		code     codes.Code
		slept    int64         // output, when ok
		timeout  time.Duration // the deadline the call ran under, when not zero
		min, max time.Duration // bounds of the call's time on the bubble's clock
	}{
		{name: "short sleep", args: `{"ms":10}`, slept: 10, min: 10 * time.Millisecond, max: 10 * time.Millisecond},
		{name: "zero", args: `{"ms":0}`, slept: 0},
		{name: "short sleep ignoring cancel", args: `{"ms":10,"ignore_cancel":true}`, slept: 10, min: 10 * time.Millisecond, max: 10 * time.Millisecond},
		{name: "default 1000 ms times out", args: `{}`, code: codes.Timeout, timeout: 500 * time.Millisecond, min: 500 * time.Millisecond, max: 510 * time.Millisecond},
		{name: "honours its context", args: `{"ms":3000}`, code: codes.Timeout, min: 500 * time.Millisecond, max: 510 * time.Millisecond},
		{name: "caller shortens the deadline", args: `{"ms":3000}`, opts: []tooling.Option{tooling.WithTimeout(50 * time.Millisecond)},
			code: codes.Timeout, timeout: 50 * time.Millisecond, min: 50 * time.Millisecond, max: 60 * time.Millisecond},
		{name: "caller cannot lengthen the deadline", args: `{"ms":3000}`, opts: []tooling.Option{tooling.WithTimeout(time.Minute)},
			code: codes.Timeout, timeout: 500 * time.Millisecond, min: 500 * time.Millisecond, max: 510 * time.Millisecond},
		{name: "ms over 60000", args: `{"ms":60001}`, code: codes.ValidationError},
		{name: "negative ms", args: `{"ms":-1}`, code: codes.ValidationError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slowInBubble(t, func(t *testing.T, r *tooling.Registry) {
				start := time.Now()
				res, _ := executeOn(t, r, "demo.slow", tt.args, tt.code, tt.opts...)
				took := time.Since(start)
				if took < tt.min || took > tt.max {
					t.Errorf("call took %v, want within [%v, %v] (ran %v under %v)", took, tt.min, tt.max, res.Run, res.Timeout)
				}
				if tt.timeout != 0 && res.Timeout != tt.timeout {
					t.Errorf("deadline %v, want %v", res.Timeout, tt.timeout)
				}
				if tt.code != codes.OK {
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
		})
	}
}

// TestSlowIgnoresCancel shows that a call returns on time although the tool
// ignores its context, and that its goroutine is abandoned until it wakes.
func TestSlowIgnoresCancel(t *testing.T) {
	slowInBubble(t, func(t *testing.T, r *tooling.Registry) {
		start := time.Now()
		res, err := executeOn(t, r, "demo.slow", `{"ms":3000,"ignore_cancel":true}`, codes.Timeout)
		took := time.Since(start)
		if took < 500*time.Millisecond || took > 510*time.Millisecond {
			t.Errorf("call took %v, want its 500ms deadline, not the tool's 3s", took)
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
		if n := r.Stats().Abandoned; n != 1 {
			t.Errorf("Stats().Abandoned = %d right after the call, want 1", n)
		}
		time.Sleep(3 * time.Second) // the tool wakes
		synctest.Wait()
		if n := r.Stats().Abandoned; n != 0 {
			t.Errorf("Stats().Abandoned = %d after the tool woke, want 0", n)
		}
	})
}

func TestSlowCanceledByCaller(t *testing.T) {
	slowInBubble(t, func(t *testing.T, r *tooling.Registry) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		start := time.Now()
		res, err := r.Execute(ctx, "demo.slow", json.RawMessage(`{"ms":3000}`))
		took := time.Since(start)
		if !errors.Is(err, codes.Canceled) || res.Code != codes.Canceled {
			t.Fatalf("code %q, err %v, want canceled", res.Code, err)
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v does not unwrap to context.Canceled", err)
		}
		if took < 50*time.Millisecond || took > 60*time.Millisecond {
			t.Errorf("call took %v after a cancel at 50ms", took)
		}
	})
}
