package tooling_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// FuzzExecute: any bytes as arguments give a result with a status and,
// unless ok, a code; never a panic.
func FuzzExecute(f *testing.F) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "fuzz.target", Run: func(_ context.Context, c tooling.Call) (any, error) { return c.Args, nil },
		Input: raw(`{
			"type": "object",
			"properties": {
				"text": {"type": "string", "maxLength": 20, "pattern": "^[a-z ]*$"},
				"n": {"type": "integer", "minimum": -5, "maximum": 5, "default": 0},
				"when": {"type": "string", "format": "date-time"},
				"tags": {"type": "array", "items": {"enum": ["a", "b", 1, null]}, "uniqueItems": true},
				"pick": {"oneOf": [{"type": "string"}, {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}]},
				"nested": {"$ref": "#/$defs/node"}
			},
			"required": ["text"],
			"additionalProperties": false,
			"$defs": {"node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/node"}, "v": {"type": "boolean", "default": false}}}}
		}`)})
	r.Register(tooling.Tool{Name: "fuzz.none", Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }})
	for _, s := range []string{``, `{}`, `null`, `{"text":"hi"}`, `{"text":"hi","n":9}`, `{"text":1}`, `[`, `{"text":"a","nested":{"child":{"child":{}}}}`,
		`{"text":"a","pick":{"x":1}}`, `{"text":"a","tags":["a","a"]}`, "\xff", `{"text":"a"}{}`, `1e999`, `{"text":"a","n":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		for _, name := range []string{"fuzz.target", "fuzz.none"} {
			res, err := r.Execute(context.Background(), name, json.RawMessage(args), tooling.WithTimeout(time.Second))
			if res == nil || res.Status == "" {
				t.Fatalf("no result for %q", args)
			}
			if (res.Status == "ok") != (err == nil) || (res.Status != "ok") == (res.Code == "") {
				t.Fatalf("status %q code %q err %v for %q", res.Status, res.Code, err, args)
			}
			if res.Code != "" && res.Code != codes.ValidationError {
				t.Fatalf("code %q for %q: %s", res.Code, args, res.Message)
			}
			if res.Code == codes.ValidationError && len(res.Fields) == 0 {
				t.Fatalf("validation_error without fields for %q", args)
			}
		}
	})
}
