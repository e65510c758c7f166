package demotools

import (
	"context"
	"encoding/json"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var kvGetInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Get arguments",
  "properties": {
    "key": {"type": "string", "title": "Key", "description": "The key to read.", "minLength": 1, "maxLength": 200}
  },
  "required": ["key"],
  "additionalProperties": false
}`)

var kvGetOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Get result",
  "properties": {
    "key": {"type": "string", "title": "Key", "description": "The key that was read."},
    "found": {"type": "boolean", "title": "Found", "description": "Whether the key holds a value."},
    "value": {"type": "string", "title": "Value", "description": "The value, empty when not found."},
    "inside": {"type": "integer", "title": "Callers inside", "description": "Callers inside the store during this call, this one included: always 1.", "minimum": 1}
  },
  "required": ["key", "found", "value", "inside"],
  "additionalProperties": false
}`)

func kvGet(kv *KV) tooling.Tool {
	return tooling.Tool{
		Name:        "demo.kv_get",
		Title:       "Key-value get",
		Description: "Reads the value stored under a key by demo.kv_put. Exclusive on the resource kv, like demo.kv_put, so it never sees a put half done.",
		Input:       kvGetInput,
		Output:      kvGetOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.Exclusive,
			Resources:   []string{"kv"},
			Effects:     tooling.EffectRead,
			Idempotent:  true,
			Tags:        []string{"demo", "governance", "kv"},
			Version:     "1.0.0",
		},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			var in struct {
				Key string `json:"key"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			inside := kv.enter()
			defer kv.leave()
			kv.mu.Lock()
			v, found := kv.data[kvKey(ctx, in.Key)]
			kv.mu.Unlock()
			return map[string]any{"key": in.Key, "found": found, "value": v, "inside": inside}, nil
		},
	}
}
