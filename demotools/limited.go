package demotools

import (
	"context"
	"encoding/json"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var limitedOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Limited result",
  "properties": {
    "served": {"type": "integer", "title": "Served", "description": "Calls served so far, this one included.", "minimum": 1}
  },
  "required": ["served"],
  "additionalProperties": false
}`)

var limitedServed atomic.Int64

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.limited",
		Title:       "Rate limited",
		Description: "Does nothing but count, at most 2 times a minute (burst 2): the third call within a minute is refused with rate_limited and a retry-after.",
		Output:      limitedOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Rate:        tooling.Rate{PerMinute: 2, Burst: 2},
			Idempotent:  true,
			Tags:        []string{"demo", "governance"},
			Version:     "1.0.0",
		},
		Run: func(context.Context, tooling.Call) (any, error) {
			return map[string]any{"served": limitedServed.Add(1)}, nil
		},
	})
}
