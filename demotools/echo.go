package demotools

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var echoInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Echo arguments",
  "properties": {
    "text": {
      "type": "string",
      "title": "Text",
      "description": "The text to echo back; any string, the empty one included."
    },
    "repeat": {
      "type": "integer",
      "title": "Repeat",
      "description": "How many times to repeat the text, joined by single spaces.",
      "minimum": 1,
      "maximum": 10,
      "default": 1
    },
    "upper": {
      "type": "boolean",
      "title": "Upper case",
      "description": "Upper-case the result.",
      "default": false
    }
  },
  "required": ["text"],
  "additionalProperties": false
}`)

var echoOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Echo result",
  "properties": {
    "text": {
      "type": "string",
      "title": "Text",
      "description": "The text, repeated and upper-cased as asked."
    },
    "length": {
      "type": "integer",
      "title": "Length",
      "description": "The length of text in characters (Unicode code points).",
      "minimum": 0
    }
  },
  "required": ["text", "length"],
  "additionalProperties": false
}`)

type echoResult struct {
	Text   string `json:"text"`
	Length int    `json:"length"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.echo",
		Title:       "Echo",
		Description: "Returns the given text, repeated 1 to 10 times (joined by spaces) and optionally upper-cased, with its length in characters. A pure function: safe to call and to retry.",
		Input:       echoInput,
		Output:      echoOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Idempotent:  true,
			Tags:        []string{"demo", "basics"},
			Version:     "1.0.0",
		},
		Run: runEcho,
	})
}

// echoArgs are demo.echo's arguments. Repeat is a float64: JSON Schema's
// integers include 2.0, which encoding/json does not put in an int.
type echoArgs struct {
	Text   string  `json:"text"`
	Repeat float64 `json:"repeat"`
	Upper  bool    `json:"upper"`
}

// runEcho is a typed handler (tooling.Func). It relies on the schema:
// repeat is present (its default is filled) and a whole number in 1..10.
var runEcho = tooling.Func(func(_ context.Context, _ tooling.Call, in echoArgs) (echoResult, error) {
	parts := make([]string, int(in.Repeat))
	for i := range parts {
		parts[i] = in.Text
	}
	out := strings.Join(parts, " ")
	if in.Upper {
		out = strings.ToUpper(out)
	}
	return echoResult{Text: out, Length: utf8.RuneCountInString(out)}, nil
})
