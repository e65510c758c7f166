package demotools_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		args string
		code tooling.Code
	}{
		{name: "no arguments", args: ``, code: tooling.CodeUnavailable},
		{name: "empty object", args: `{}`, code: tooling.CodeUnavailable},
		// Availability is decided before the arguments are read.
		{name: "bad arguments", args: `{"x":1}`, code: tooling.CodeUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := execute(t, "demo.unavailable", tt.args, tt.code)
			if !strings.Contains(res.Message, "generator offline") {
				t.Errorf("message %q lacks the reason", res.Message)
			}
			if !errors.Is(err, demotools.ErrGeneratorOffline) {
				t.Errorf("err %v does not unwrap to ErrGeneratorOffline", err)
			}
		})
	}

	err := tooling.Default().Availability(context.Background(), "demo.unavailable", "")
	if !errors.Is(err, tooling.CodeUnavailable) || !errors.Is(err, demotools.ErrGeneratorOffline) {
		t.Errorf("Availability = %v, want unavailable: generator offline", err)
	}
}
