package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/itchyny/gojq"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// compileJQ compiles a jq filter (gojq, jq's language), for run --jq; the
// console's output viewer filters with the same code.
func compileJQ(src string) (*gojq.Code, error) { return viewer.CompileJQ(src) }

// writeJQ runs code on out and writes each value it yields as indented
// JSON, one after the other, as jq does.
func writeJQ(ctx context.Context, w io.Writer, code *gojq.Code, out json.RawMessage) error {
	return viewer.RunJQ(ctx, code, out, func(v any) error {
		b, err := jsonenc.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	})
}
