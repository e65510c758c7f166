package demotools

import (
	"context"
	"encoding/json"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var counterOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Counter result",
  "properties": {
    "value": {"type": "integer", "title": "Value", "description": "The counter after this call's increment.", "minimum": 1},
    "on_main_thread": {"type": "boolean", "title": "On the main thread", "description": "Whether the call ran on the main-thread scheduler's loop."}
  },
  "required": ["value", "on_main_thread"],
  "additionalProperties": false
}`)

// counter belongs to the main loop: only code running on the main-thread
// scheduler touches it, one call at a time, so it needs no lock.
var counter int64

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.counter",
		Title:       "Main-thread counter",
		Description: "Increments a counter owned by the main loop and returns its value and whether the call ran on the main thread. A MainThread tool: calls run one at a time, in the order they came, on the host's main thread.",
		Output:      counterOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.MainThread,
			Effects:     tooling.EffectWrite,
			Safety:      tooling.SafetyMedium,
			Tags:        []string{"demo", "governance"},
			Version:     "1.0.0",
		},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			counter++
			return map[string]any{"value": counter, "on_main_thread": c.OnMainThread()}, nil
		},
	})
}
