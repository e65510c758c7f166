package tooling

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// allCodes is every code, ok first then in pipeline order; the counters of
// ToolStats are sized from it.
var allCodes = [...]codes.Code{codes.OK, codes.NotFound, codes.Paused, codes.Disabled, codes.OriginDenied, codes.Unavailable, codes.ValidationError,
	codes.Forbidden, codes.ConsentRequired, codes.Refused, codes.RateLimited, codes.Busy, codes.Timeout, codes.Canceled, codes.ToolError, codes.Panic,
	codes.SandboxDenied, codes.SandboxUnavailable, codes.OutputInvalid}

// The statuses of a finished call (Result.Status).
const (
	statusOK     = "ok"
	statusDenied = "denied"
	statusError  = "error"
)

// statusOf is the status of a call that ended with code c, its tool
// started (ran) or not: a call canceled or timed out before its tool
// started is denied, since nothing happened.
func statusOf(c codes.Code, ran bool) string {
	switch c {
	case codes.OK:
		return statusOK
	case codes.NotFound, codes.Paused, codes.IdempotencyConflict, codes.Disabled, codes.OriginDenied, codes.Unavailable, codes.ValidationError, codes.Forbidden, codes.ConsentRequired,
		codes.RateLimited, codes.Busy, codes.SandboxUnavailable:
		return statusDenied
	}
	if !ran {
		return statusDenied
	}
	return statusError
}

// Decision is one governance step taken for a call, in order.
type Decision struct {
	Step   string `json:"step"`   // "enabled", "origin", "availability", "validation", "consent", "timeout", ...; "cpu": a confined call's CPU time ("12.5ms of CPU in the confined child")
	Detail string `json:"detail"` // what was decided and why, for people
}

// Result is the full account of one call. ExecuteTool always returns one.
type Result struct {
	CallID string `json:"call_id"`
	Tool   string `json:"tool"`
	Origin Origin `json:"origin"`
	// Principal is who made the call (the zero Principal: anonymous).
	Principal Principal `json:"principal,omitzero"`
	// Status is "ok"; "denied": refused before the tool ran, so nothing
	// happened (every code of the steps before the run, and a call canceled
	// or out of time before its tool started); or "error": the tool ran,
	// or was started, and failed.
	Status  string       `json:"status"`
	Code    codes.Code   `json:"code,omitempty"`
	Message string       `json:"message,omitempty"`
	Hint    string       `json:"hint,omitempty"`   // how to fix it, when there is something to say
	Fields  []FieldError `json:"fields,omitempty"` // the failing fields, for validation_error and output_invalid, sorted by path
	// MoreFields counts failing fields beyond those in Fields, which lists
	// the first config max_field_errors (default 100) of them. It is a lower
	// bound: on long arrays validation stops once it has found those first
	// fields (the message then says "at least").
	MoreFields int             `json:"more_fields,omitempty"`
	Output     json.RawMessage `json:"output,omitempty"` // the tool's output as JSON, when ok
	// InvalidOutput is, for output_invalid from the output schema, the output
	// the tool returned, so that a person can see where it is wrong (Fields
	// gives the paths). A host must not use it as the tool's answer; it is
	// never set for an output over the size cap or that is not JSON.
	InvalidOutput json.RawMessage `json:"invalid_output,omitempty"`
	// Plan is the tool's follow-up plan (see Followup), passed on untouched.
	Plan json.RawMessage `json:"post_execution_plan,omitempty"`
	// Stack is the panicking goroutine's stack, for code panic.
	Stack string `json:"stack,omitempty"`
	// Abandoned is set when the call timed out or was canceled and the tool
	// had not returned: its goroutine runs on until it does (counted in Stats).
	Abandoned bool `json:"abandoned,omitempty"`
	// Replayed is set when the call was not run because a call with the
	// same idempotency key and arguments had run (Meta.IdempotencyKeys):
	// the outcome (Status, Code, Message, Output, ...) is that call's,
	// kept by the registry's idempotency.Store, and a "idempotency"
	// decision names it.
	Replayed bool `json:"replayed,omitempty"`
	// RetryAfter is when a rate_limited call may be tried again.
	RetryAfter time.Duration `json:"-"`
	Started    time.Time     `json:"started"`
	Wait       time.Duration `json:"-"` // time queued for a slot, lock or thread
	Run        time.Duration `json:"-"` // time the tool ran (0 if it never started)
	Timeout    time.Duration `json:"-"` // the deadline the call ran under
	Governance []Decision    `json:"governance,omitempty"`

	cause  error             // the tool's or the context's error behind a failure
	ran    bool              // the tool was started
	detail map[string]string // the tool's SetDetail, for the end Event
}

// OK reports whether the call succeeded.
func (r *Result) OK() bool { return r.Status == statusOK }

// MarshalJSON adds wait_ms, run_ms and timeout_ms to the fields.
func (r *Result) MarshalJSON() ([]byte, error) {
	type plain Result
	return jsonenc.Marshal(struct {
		*plain
		WaitMS       float64 `json:"wait_ms"`
		RunMS        float64 `json:"run_ms"`
		TimeoutMS    float64 `json:"timeout_ms,omitempty"`
		RetryAfterMS float64 `json:"retry_after_ms,omitempty"`
	}{(*plain)(r), ms(r.Wait), ms(r.Run), ms(r.Timeout), ms(r.RetryAfter)})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	aux := struct {
		*plain
		WaitMS       float64 `json:"wait_ms"`
		RunMS        float64 `json:"run_ms"`
		TimeoutMS    float64 `json:"timeout_ms"`
		RetryAfterMS float64 `json:"retry_after_ms"`
	}{plain: (*plain)(r)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	r.Wait, r.Run, r.Timeout, r.RetryAfter = fromMS(aux.WaitMS), fromMS(aux.RunMS), fromMS(aux.TimeoutMS), fromMS(aux.RetryAfterMS)
	return nil
}

func ms(d time.Duration) float64     { return float64(d.Microseconds()) / 1000 }
func fromMS(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }

// Error is the Go error of a call that did not succeed. It matches its Code
// with errors.Is (errors.Is(err, codes.Timeout)), unwraps to the tool's
// own error or the context's, and carries the whole Result.
type Error struct {
	Code    codes.Code
	Tool    string
	Message string
	Result  *Result
	Err     error // the tool's error, the context's error, or nil
}

func (e *Error) Error() string {
	if e.Tool == "" {
		return fmt.Sprintf("tooling: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("tooling: %s: %s: %s", e.Tool, e.Code, e.Message)
}

// Unwrap returns e's Code, then the underlying error if any: errors.Is
// and errors.As find either.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Code}
	}
	return []error{e.Code, e.Err}
}

// Followup is what a tool returns to hand the caller a follow-up plan with
// its output: Output goes to Result.Output (and is checked against the
// output schema), Plan goes to Result.Plan untouched.
type Followup struct {
	Output any
	Plan   any
}
