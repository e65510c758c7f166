package demotools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var kvPutInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Put arguments",
  "properties": {
    "key": {"type": "string", "title": "Key", "description": "The key to set.", "minLength": 1, "maxLength": 200},
    "value": {"type": "string", "title": "Value", "description": "The value to store under the key.", "maxLength": 10000}
  },
  "required": ["key", "value"],
  "additionalProperties": false
}`)

var kvPutOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Put result",
  "properties": {
    "key": {"type": "string", "title": "Key", "description": "The key that was set."},
    "replaced": {"type": "boolean", "title": "Replaced", "description": "Whether the key held a value before."},
    "inside": {"type": "integer", "title": "Callers inside", "description": "Callers inside the store during this call, this one included: always 1, since the tool is exclusive on the resource kv.", "minimum": 1}
  },
  "required": ["key", "replaced", "inside"],
  "additionalProperties": false
}`)

// kvPutHold is how long a put holds the store, so that an overlap of two
// calls, if the registry ever let one happen, would show.
const kvPutHold = 2 * time.Millisecond

func kvPut(kv *KV) tooling.Tool {
	return tooling.Tool{
		Name:        "demo.kv_put",
		Title:       "Key-value put",
		Description: "Stores a value under a key in an in-memory store. Exclusive on the resource kv: no call of demo.kv_put or demo.kv_get overlaps another; each put holds the store 2 ms so that an overlap would show in the 'inside' count.",
		Input:       kvPutInput,
		Output:      kvPutOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.Exclusive,
			Resources:   []string{"kv"},
			Effects:     tooling.EffectWrite,
			Idempotent:  true,
			Tags:        []string{"demo", "governance", "kv"},
			Version:     "1.0.0",
		},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			var in struct {
				Key   string `json:"key"`
				Value string `json:"value"`
			}
			if err := c.Decode(&in); err != nil {
				return nil, err
			}
			inside := kv.enter()
			defer kv.leave()
			select {
			case <-time.After(kvPutHold):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			kv.mu.Lock()
			_, replaced := kv.data[kvKey(ctx, in.Key)]
			kv.data[kvKey(ctx, in.Key)] = in.Value
			kv.mu.Unlock()
			return map[string]any{"key": in.Key, "replaced": replaced, "inside": inside}, nil
		},
	}
}
