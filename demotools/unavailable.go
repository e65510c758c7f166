package demotools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// ErrGeneratorOffline is why demo.unavailable cannot run. The call's error
// unwraps to it.
var ErrGeneratorOffline = errors.New("generator offline")

var unavailableOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Unavailable result",
  "properties": {
    "generated": {
      "type": "boolean",
      "title": "Generated",
      "description": "Whether the generator produced something."
    }
  },
  "required": ["generated"],
  "additionalProperties": false
}`)

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.unavailable",
		Title:       "Unavailable",
		Description: "Would run a generator, but the generator is always offline: every call is refused with code unavailable and the reason. Shows how a tool says it cannot run now.",
		Output:      unavailableOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Tags:        []string{"demo", "governance", "availability"},
			Version:     "1.0.0",
		},
		Available: func(context.Context, tooling.Call) error { return ErrGeneratorOffline },
		Run: func(context.Context, tooling.Call) (any, error) {
			return map[string]bool{"generated": true}, nil
		},
	})
}
