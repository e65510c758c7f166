package demotools_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestFail(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		code  codes.Code
		check func(t *testing.T, res *tooling.Result, err error)
	}{
		{name: "error", args: `{"mode":"error"}`, code: codes.ToolError, check: func(t *testing.T, res *tooling.Result, err error) {
			if res.Message != "demo failure requested" {
				t.Errorf("message %q", res.Message)
			}
			if !errors.Is(err, demotools.ErrFailureRequested) {
				t.Errorf("err %v does not unwrap to ErrFailureRequested", err)
			}
		}},
		{name: "panic", args: `{"mode":"panic"}`, code: codes.Panic, check: func(t *testing.T, res *tooling.Result, _ error) {
			if res.Stack == "" {
				t.Fatal("no stack")
			}
			if !strings.Contains(res.Stack, "demotools") {
				t.Errorf("stack does not show the tool:\n%s", res.Stack)
			}
			if !strings.Contains(res.Message, "demo panic requested") {
				t.Errorf("message %q", res.Message)
			}
		}},
		{name: "bad output", args: `{"mode":"bad_output"}`, code: codes.OutputInvalid, check: func(t *testing.T, res *tooling.Result, _ error) {
			if !slices.Contains(fieldPaths(res), "/ok") {
				t.Errorf("field errors %v lack /ok", res.Fields)
			}
		}},
		{name: "unknown mode", args: `{"mode":"explode"}`, code: codes.ValidationError, check: func(t *testing.T, res *tooling.Result, _ error) {
			if !slices.Contains(fieldPaths(res), "/mode") {
				t.Errorf("field errors %v lack /mode", res.Fields)
			}
		}},
		{name: "no mode", args: `{}`, code: codes.ValidationError, check: func(t *testing.T, res *tooling.Result, _ error) {
			if !slices.Contains(fieldPaths(res), "/mode") {
				t.Errorf("field errors %v lack /mode", res.Fields)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := execute(t, "demo.fail", tt.args, tt.code)
			tt.check(t, res, err)
		})
	}
	// The host lives on after a panic: the registry still runs tools.
	execute(t, "demo.echo", `{"text":"still here"}`, codes.OK)
}
