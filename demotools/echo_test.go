package demotools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestEcho(t *testing.T) {
	type out struct {
		Text   string `json:"text"`
		Length int    `json:"length"`
	}
	tests := []struct {
		name   string
		args   string
		code   codes.Code
		want   out
		fields []string // every path must be among the field errors
	}{
		{name: "default repeat is 1", args: `{"text":"hi"}`, want: out{"hi", 2}},
		{name: "repeat and upper", args: `{"text":"hi","repeat":3,"upper":true}`, want: out{"HI HI HI", 8}},
		{name: "upper false", args: `{"text":"Go","repeat":2,"upper":false}`, want: out{"Go Go", 5}},
		{name: "empty text", args: `{"text":""}`, want: out{"", 0}},
		{name: "empty text repeated", args: `{"text":"","repeat":3}`, want: out{"  ", 2}},
		{name: "length counts characters", args: `{"text":"héllo","upper":true}`, want: out{"HÉLLO", 5}},
		{name: "repeat 10", args: `{"text":"a","repeat":10}`, want: out{"a a a a a a a a a a", 19}},
		{name: "integral float repeat", args: `{"text":"a","repeat":2.0}`, want: out{"a a", 3}},
		{name: "missing text and repeat 0", args: `{"repeat":0}`, code: codes.ValidationError, fields: []string{"/text", "/repeat"}},
		{name: "no arguments", args: ``, code: codes.ValidationError, fields: []string{"/text"}},
		{name: "repeat 11", args: `{"text":"a","repeat":11}`, code: codes.ValidationError, fields: []string{"/repeat"}},
		{name: "fractional repeat", args: `{"text":"a","repeat":1.5}`, code: codes.ValidationError, fields: []string{"/repeat"}},
		{name: "text not a string", args: `{"text":5}`, code: codes.ValidationError, fields: []string{"/text"}},
		{name: "upper not a boolean", args: `{"text":"a","upper":"yes"}`, code: codes.ValidationError, fields: []string{"/upper"}},
		{name: "unknown property", args: `{"text":"a","repeats":2}`, code: codes.ValidationError, fields: []string{"/repeats"}},
		{name: "not an object", args: `["a"]`, code: codes.ValidationError, fields: []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := execute(t, "demo.echo", tt.args, tt.code)
			if tt.code != codes.OK {
				paths := fieldPaths(res)
				for _, p := range tt.fields {
					if !slices.Contains(paths, p) {
						t.Errorf("field errors %v lack %q (%s)", paths, p, res.Message)
					}
				}
				return
			}
			var got out
			decodeOutput(t, res, &got)
			if got != tt.want {
				t.Errorf("output %+v, want %+v", got, tt.want)
			}
		})
	}
}

func Example_echo() {
	res, err := tooling.ExecuteTool(context.Background(), "demo.echo", json.RawMessage(`{"text":"hi","repeat":2,"upper":true}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(res.Output))

	_, err = tooling.ExecuteTool(context.Background(), "demo.echo", json.RawMessage(`{"repeat":0}`))
	fmt.Println(err)
	// Output:
	// {"text":"HI HI","length":5}
	// tooling: demo.echo: validation_error: 2 invalid arguments: /repeat: must be at least 1, got 0; /text: is required but missing
}
