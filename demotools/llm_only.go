package demotools

import (
	"context"
	"encoding/json"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var llmOnlyOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "LLM-only result",
  "properties": {
    "message": {
      "type": "string",
      "title": "Message",
      "description": "A greeting for the language model."
    }
  },
  "required": ["message"],
  "additionalProperties": false
}`)

func init() {
	tooling.Register(tooling.Tool{
		Name:        "demo.llm_only",
		Title:       "LLM only",
		Description: "Returns a short greeting. Only a language model may call it (origin llm); calls from the app, a person or the system are refused with code origin_denied.",
		Output:      llmOnlyOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Origins:     []tooling.Origin{tooling.OriginLLM},
			Idempotent:  true,
			Tags:        []string{"demo", "governance", "origin"},
			Version:     "1.0.0",
		},
		Run: func(context.Context, tooling.Call) (any, error) {
			return map[string]string{"message": "hello, model: this tool answers language models only"}, nil
		},
	})
}
