package collection

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/itchyny/gojq"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Outcome is what came of one call of a check.
type Outcome struct {
	// Call is the call as the collection has it (arguments with their
	// references).
	Call Call
	// Result is the call's result; nil when the call could not be made
	// (a variable it refers to has no value).
	Result *tooling.Result
	// Failures say, one line each, what the call was expected to come to
	// and did not. None: the call passed.
	Failures []string
}

// Passed reports whether the call came to what it expected.
func (o *Outcome) Passed() bool { return len(o.Failures) == 0 }

// Check makes each call in order through reg, its arguments expanded with
// vars, and compares its result with its expectation. opts apply to every
// call; a call's own origin, consent and idempotency key are added after
// them. Check stops early only when ctx ends: the calls not made then are
// not in the outcomes.
func Check(ctx context.Context, reg *tooling.Registry, calls []Call, vars Vars, opts ...tooling.Option) []Outcome {
	out := make([]Outcome, 0, len(calls))
	for _, c := range calls {
		if ctx.Err() != nil {
			break
		}
		o := Outcome{Call: c}
		args, err := vars.Expand(c.Args)
		if err != nil {
			o.Failures = []string{err.Error()}
			out = append(out, o)
			continue
		}
		if len(bytes.TrimSpace(args)) == 0 {
			args = json.RawMessage(`{}`)
		}
		copts := append([]tooling.Option(nil), opts...)
		if c.Origin != "" {
			copts = append(copts, tooling.WithOrigin(c.Origin))
		}
		if c.Consent {
			copts = append(copts, tooling.WithConsent())
		}
		if c.IdempotencyKey != "" {
			copts = append(copts, tooling.WithIdempotencyKey(c.IdempotencyKey))
		}
		o.Result, _ = reg.Execute(ctx, c.Tool, args, copts...)
		o.Failures = c.Expect.Failures(ctx, o.Result)
		out = append(out, o)
	}
	return out
}

// Failures compares res with what e expects and says, one line each, what
// differs. A nil Expect expects status ok.
func (e *Expect) Failures(ctx context.Context, res *tooling.Result) []string {
	var want Expect
	if e != nil {
		want = *e
	}
	if want.Status == "" && want.Code == "" {
		want.Status = "ok"
	}
	var out []string
	got := string(res.Status)
	if res.Code != "" && res.Code != codes.OK {
		got += " (" + string(res.Code) + ")"
	}
	if want.Status != "" && res.Status != want.Status {
		out = append(out, fmt.Sprintf("expected status %s, got %s: %s", want.Status, got, res.Message))
	}
	if want.Code != "" && res.Code != want.Code {
		out = append(out, fmt.Sprintf("expected code %s, got %s: %s", want.Code, got, res.Message))
	}
	for _, src := range want.JQ {
		if msg := checkJQ(ctx, src, res); msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// checkJQ runs the filter src on the result's output: "" when it yields
// only true, else why not.
func checkJQ(ctx context.Context, src string, res *tooling.Result) string {
	code, err := compileJQ(src)
	if err != nil {
		return fmt.Sprintf("jq %s: %v", src, err)
	}
	var input any
	if len(bytes.TrimSpace(res.Output)) > 0 {
		d := json.NewDecoder(bytes.NewReader(res.Output))
		d.UseNumber()
		if err := d.Decode(&input); err != nil {
			return fmt.Sprintf("jq %s: the output is not JSON: %v", src, err)
		}
	}
	iter := code.RunWithContext(ctx, input)
	n := 0
	for {
		v, ok := iter.Next()
		if !ok {
			break
		}
		if err, ok := v.(error); ok {
			return fmt.Sprintf("jq %s: %v", src, err)
		}
		n++
		if v != true {
			b, _ := jsonenc.Marshal(v)
			if len(b) > 200 {
				b = append(b[:200:200], "…"...)
			}
			return fmt.Sprintf("jq %s: gave %s, want true", src, b)
		}
	}
	if n == 0 {
		return fmt.Sprintf("jq %s: gave nothing, want true", src)
	}
	return ""
}

func compileJQ(src string) (*gojq.Code, error) {
	q, err := gojq.Parse(src)
	if err != nil {
		return nil, err
	}
	return gojq.Compile(q)
}
