package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/itchyny/gojq"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// compileJQ compiles a jq filter (gojq, jq's language), for run --jq.
func compileJQ(src string) (*gojq.Code, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q)
}

// writeJQ runs code on out and writes each value it yields as indented
// JSON, one after the other, as jq does.
func writeJQ(ctx context.Context, w io.Writer, code *gojq.Code, out json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber() // large integers stay exact
	var v any
	if len(bytes.TrimSpace(out)) > 0 {
		if err := dec.Decode(&v); err != nil {
			return err
		}
	}
	iter := code.RunWithContext(ctx, v)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := v.(error); ok {
			return err
		}
		b, err := jsonenc.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return err
		}
	}
}
