package tui

import (
	"slices"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// safeResult returns a copy of res to show: every text a tool or a
// confined child wrote (message, hint, stack, field errors, governance
// details, output and plan) with its control characters as visible
// escapes, so that no tool can move the cursor, set the title or draw on
// the console. The JSON of the output and plan stays JSON.
func safeResult(res *tooling.Result) *tooling.Result {
	r := *res
	r.Message = termtext.String(r.Message)
	r.Hint = termtext.String(r.Hint)
	r.Stack = termtext.String(r.Stack)
	if r.Output != nil {
		r.Output = []byte(termtext.String(string(r.Output)))
	}
	if r.InvalidOutput != nil {
		r.InvalidOutput = []byte(termtext.String(string(r.InvalidOutput)))
	}
	if r.Plan != nil {
		r.Plan = []byte(termtext.String(string(r.Plan)))
	}
	r.Fields = slices.Clone(r.Fields)
	for i := range r.Fields {
		r.Fields[i].Path = termtext.Line(r.Fields[i].Path)
		r.Fields[i].Message = termtext.String(r.Fields[i].Message)
	}
	r.Governance = slices.Clone(r.Governance)
	for i := range r.Governance {
		r.Governance[i].Detail = termtext.Line(r.Governance[i].Detail)
	}
	return &r
}

// safeJSON is JSON text to show: the same JSON, with C1 control characters
// in its strings as escapes (encoding/json escapes C0 ones already).
func safeJSON(b []byte) []byte { return []byte(termtext.String(string(b))) }
