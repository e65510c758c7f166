package demotools_test

import (
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestLLMOnly(t *testing.T) {
	tests := []struct {
		name string
		opts []tooling.Option
		code codes.Code
	}{
		{name: "default origin (app)", code: codes.OriginDenied},
		{name: "ui", opts: []tooling.Option{tooling.WithOrigin(tooling.OriginUI)}, code: codes.OriginDenied},
		{name: "system", opts: []tooling.Option{tooling.WithOrigin(tooling.OriginSystem)}, code: codes.OriginDenied},
		{name: "llm", opts: []tooling.Option{tooling.WithOrigin(tooling.OriginLLM)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := execute(t, "demo.llm_only", `{}`, tt.code, tt.opts...)
			if tt.code != codes.OK {
				if !strings.Contains(res.Message, "llm") {
					t.Errorf("message %q does not say who may call", res.Message)
				}
				return
			}
			var got struct {
				Message string `json:"message"`
			}
			decodeOutput(t, res, &got)
			if got.Message == "" {
				t.Error("empty message")
			}
		})
	}
}
