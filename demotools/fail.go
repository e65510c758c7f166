package demotools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// ErrFailureRequested is the error demo.fail returns in mode "error". The
// call's error unwraps to it.
var ErrFailureRequested = errors.New("demo failure requested")

var failInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Fail arguments",
  "properties": {
    "mode": {
      "type": "string",
      "title": "Mode",
      "description": "How to fail: \"error\" returns an error (code tool_error), \"panic\" panics (code panic), \"bad_output\" returns output that breaks the output schema (code output_invalid).",
      "enum": ["error", "panic", "bad_output"]
    }
  },
  "required": ["mode"],
  "additionalProperties": false
}`)

// failOutput is the schema that mode "bad_output" breaks.
var failOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Fail result",
  "properties": {
    "ok": {
      "const": true,
      "title": "OK",
      "description": "Always true; mode bad_output sends a string instead."
    }
  },
  "required": ["ok"],
  "additionalProperties": false
}`)

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.fail",
		Title:       "Fail",
		Description: "Fails on purpose, in the way asked: returns an error, panics, or returns output that does not match its output schema. Shows that each failure gets its own code and that a panicking tool does not take the host down.",
		Input:       failInput,
		Output:      failOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Tags:        []string{"demo", "failure"},
			Version:     "1.0.0",
		},
		Run: runFail,
	})
}

func runFail(_ context.Context, c tooling.Call) (any, error) {
	var in struct {
		Mode string `json:"mode"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	switch mode := in.Mode; mode {
	case "error":
		return nil, ErrFailureRequested
	case "panic":
		panic("demo panic requested")
	case "bad_output":
		return map[string]any{"ok": "yes"}, nil
	default:
		// Unreachable through the registry: the schema allows the three modes only.
		return nil, fmt.Errorf("demotools: unknown mode %q", mode)
	}
}
