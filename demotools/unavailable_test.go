package demotools_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestUnavailable(t *testing.T) {
	tests := []struct {
		name string
		args string
		code codes.Code
	}{
		{name: "no arguments", args: ``, code: codes.Unavailable},
		{name: "empty object", args: `{}`, code: codes.Unavailable},
		// Availability is decided before the arguments are read.
		{name: "bad arguments", args: `{"x":1}`, code: codes.Unavailable},
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
	if !errors.Is(err, codes.Unavailable) || !errors.Is(err, demotools.ErrGeneratorOffline) {
		t.Errorf("Availability = %v, want unavailable: generator offline", err)
	}
}
