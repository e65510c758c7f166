package demotools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// slowTimeout is demo.slow's own deadline.
const slowTimeout = 500 * time.Millisecond

// slowProgressEvery is how often demo.slow reports progress, after a first
// report as it starts.
const slowProgressEvery = 100 * time.Millisecond

var slowInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Slow arguments",
  "properties": {
    "ms": {
      "type": "integer",
      "title": "Milliseconds",
      "description": "How long to sleep, in milliseconds. Anything over 500 runs into the deadline.",
      "minimum": 0,
      "maximum": 60000,
      "default": 1000
    },
    "ignore_cancel": {
      "type": "boolean",
      "title": "Ignore cancellation",
      "description": "Sleep the whole time even after the deadline passes, like a badly written tool. The call still returns on time; the sleeping goroutine is counted as abandoned until it wakes.",
      "default": false
    }
  },
  "additionalProperties": false
}`)

var slowOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Slow result",
  "properties": {
    "slept_ms": {
      "type": "integer",
      "title": "Slept (ms)",
      "description": "The milliseconds slept, as asked.",
      "minimum": 0
    }
  },
  "required": ["slept_ms"],
  "additionalProperties": false
}`)

type slowResult struct {
	SleptMS int64 `json:"slept_ms"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.slow",
		Title:       "Slow",
		Description: "Sleeps for the given milliseconds (default 1000) and says how long it slept. It times out after 500 ms, sooner if the config or the caller asks, so longer sleeps end with code timeout; with ignore_cancel it keeps sleeping past the deadline to show that the call still returns on time.",
		Input:       slowInput,
		Output:      slowOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Timeout:     slowTimeout,
			Idempotent:  true,
			Tags:        []string{"demo", "timing"},
			Version:     "1.0.0",
		},
		Run: runSlow,
	})
}

// runSlow sleeps, reporting the milliseconds slept as progress.
func runSlow(ctx context.Context, c tooling.Call) (any, error) {
	var in struct {
		MS           int64 `json:"ms"`
		IgnoreCancel bool  `json:"ignore_cancel"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	ms := in.MS
	d := time.Duration(ms) * time.Millisecond
	if in.IgnoreCancel {
		time.Sleep(d)
		return slowResult{SleptMS: ms}, nil
	}
	start := time.Now()
	c.ReportProgress(0, float64(ms), "sleeping")
	t := time.NewTimer(d)
	defer t.Stop()
	tick := time.NewTicker(slowProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.C:
			// When the deadline passed as the timer fired, the deadline wins:
			// the call ends with code timeout whichever the scheduler saw first.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			return slowResult{SleptMS: ms}, nil
		case <-tick.C:
			c.ReportProgress(float64(min(time.Since(start).Milliseconds(), ms)), float64(ms), "sleeping")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
