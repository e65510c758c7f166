package viewer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/itchyny/gojq"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// CompileJQ compiles a jq filter (gojq: jq's language).
func CompileJQ(src string) (*gojq.Code, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q)
}

// RunJQ runs code on the JSON value out (null when out is empty) and calls
// yield with each value it makes, as jq does; it stops at the first error,
// of the filter or of yield, and when ctx ends.
func RunJQ(ctx context.Context, code *gojq.Code, out json.RawMessage, yield func(any) error) error {
	input, err := decodeJQ(out)
	if err != nil {
		return err
	}
	return runJQ(ctx, code, input, yield)
}

// decodeJQ is out as the value a filter reads: numbers stay exact.
func decodeJQ(out json.RawMessage) (any, error) {
	var v any
	if len(bytes.TrimSpace(out)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber() // large integers stay exact
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

func runJQ(ctx context.Context, code *gojq.Code, input any, yield func(any) error) error {
	iter := code.RunWithContext(ctx, input)
	for {
		v, ok := iter.Next()
		if !ok {
			return nil
		}
		if err, ok := v.(error); ok {
			return err
		}
		if err := yield(v); err != nil {
			return err
		}
	}
}

// The filter line of the viewer runs the filter on every edit. A run is
// off the UI goroutine; a newer edit cancels the run before it, whose
// result is then dropped (the latest edit wins); a run that takes longer
// than jqTimeout or makes more than jqMaxBytes of output is stopped.
const (
	jqTimeout  = 5 * time.Second
	jqMaxBytes = 64 << 20
)

var errJQTooBig = fmt.Errorf("the filter makes more than %d MB of output", jqMaxBytes>>20)

// jqResultMsg is the end of a run of the filter line.
type jqResultMsg struct {
	v     *Model
	seq   int
	input any // the output as the filter read it, kept for the next run
	tree  *outputTree
	n     int // values made
	err   error
}

// jqCmd runs code on the output (raw, or input when already decoded) and
// parses what it makes for the viewer: one value as it is, several as an
// array of them.
func jqCmd(ctx context.Context, v *Model, seq int, code *gojq.Code, raw []byte, input any, decoded bool) tea.Cmd {
	return func() tea.Msg {
		msg := jqResultMsg{v: v, seq: seq, input: input}
		if !decoded {
			if msg.input, msg.err = decodeJQ(raw); msg.err != nil {
				return msg
			}
		}
		var vals [][]byte
		size := 0
		msg.err = runJQ(ctx, code, msg.input, func(x any) error {
			b, err := jsonenc.Marshal(x)
			if err != nil {
				return err
			}
			if size += len(b); size > jqMaxBytes {
				return errJQTooBig
			}
			vals = append(vals, bytes.TrimSpace(b))
			return nil
		})
		if msg.err == nil && ctx.Err() != nil {
			msg.err = ctx.Err()
		}
		if msg.err != nil {
			return msg
		}
		msg.n = len(vals)
		var out []byte
		switch len(vals) {
		case 0:
			out = []byte("[]")
		case 1:
			out = vals[0]
		default:
			out = append([]byte("["), bytes.Join(vals, []byte(","))...)
			out = append(out, ']')
		}
		msg.tree, msg.err = parseOutput(out, nil)
		return msg
	}
}
