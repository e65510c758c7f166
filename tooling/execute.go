package tooling

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
	"github.com/toolexplorer/toolexplorer/tooling/internal/schema"
)

// Option tunes one call.
type Option func(*callOptions)

type callOptions struct {
	origin    Origin
	consent   bool
	timeout   time.Duration
	callID    string
	principal *Principal
	idemKey   string
	progress  func(Progress)
	dry       bool   // Explain: take every step without changing anything
	refusedBy string // Explain: the step that refused the call, when not the step of its code
}

// WithOrigin says who makes the call. Default: OriginApp.
func WithOrigin(o Origin) Option { return func(c *callOptions) { c.origin = o } }

// WithConsent says that the person or policy behind the call consents to
// its side effects. Tools that need consent refuse calls without it.
func WithConsent() Option { return func(c *callOptions) { c.consent = true } }

// WithTimeout shortens the call's deadline to d. It never lengthens what
// the tool or the config set.
func WithTimeout(d time.Duration) Option { return func(c *callOptions) { c.timeout = d } }

// WithPrincipal says who makes the call (Call.Principal), for policy,
// consent, budgets, middleware and observers. Default: the principal the
// call's ctx carries (ContextWithPrincipal), else the anonymous principal.
func WithPrincipal(p Principal) Option {
	return func(c *callOptions) { p = p.clone(); c.principal = &p }
}

// WithIdempotencyKey gives the call an idempotency key (Call.IdempotencyKey):
// the caller promises that calls with the same key mean the same change, so
// a tool may retry it, and a remote service may drop the repeats. Default: "".
func WithIdempotencyKey(k string) Option { return func(c *callOptions) { c.idemKey = k } }

// WithProgress sends the call's progress reports (Call.ReportProgress) to
// f. Default: they are dropped. f runs in the tool's goroutine, so it must
// not block; a tool that outlives its call may still report after the call
// returned.
func WithProgress(f func(Progress)) Option { return func(c *callOptions) { c.progress = f } }

// WithCallID sets the call id (default: a unique id made by the registry).
func WithCallID(id string) Option { return func(c *callOptions) { c.callID = id } }

// ExecuteTool runs a tool of the Default registry. See Registry.Execute.
func ExecuteTool(ctx context.Context, name string, args json.RawMessage, opts ...Option) (*Result, error) {
	return defaultRegistry.Execute(ctx, name, args, opts...)
}

// Execute runs the named tool (or its exported spelling, "." as "__") with
// args, a JSON object (nil, empty or "null" mean no arguments), through every step of
// governance, in order: look-up, enabled, origin, availability, size cap,
// decoding and validation, schema defaults, consent, deadline, run, output
// check. It always returns a Result; the error is nil exactly when the
// call succeeded, and otherwise an *Error matching its Code (errors.Is).
//
// A call returns by its deadline even if the tool ignores its context. A
// tool that panics yields code panic with its stack; the host lives on.
func (r *Registry) Execute(ctx context.Context, name string, args json.RawMessage, opts ...Option) (*Result, error) {
	// The Result, the call's options, its Call and room for the usual
	// decisions (rate, deadline, slot, lock, confine) in one allocation.
	box := new(resultBox)
	o := &box.opts
	defer box.clear()
	for _, f := range opts {
		f(o)
	}
	res := r.begin(ctx, box, name)
	r.inFlight.Add(1)
	e := r.lookup(name)
	if e != nil {
		res.Tool = e.tool.Name
	}
	// One snapshot of the audit hooks serves both events, so that each
	// hook sees a call's begin and end or neither.
	aud := r.audit.snapshot()
	var argsSum, idemSum, version string
	var obsCtx context.Context
	if len(aud) > 0 {
		argsSum, idemSum = digest(args), digest([]byte(o.idemKey))
		if e != nil {
			version = e.tool.Meta.Version
		}
		obsCtx = context.WithoutCancel(ctx)
		r.reportBegin(obsCtx, aud, res, version, o.origin, idemSum, argsSum, len(args))
	}

	r.execute(ctx, box, e, name, args)

	res.Status = statusOf(res.Code, res.ran)
	if len(aud) > 0 {
		r.reportEnd(obsCtx, aud, res, version, o.origin, idemSum, argsSum, len(args))
	}
	r.inFlight.Add(-1)
	if res.Status == statusOK {
		return res, nil
	}
	return res, &Error{Code: res.Code, Tool: res.Tool, Message: res.Message, Result: res, Err: res.cause}
}

// reportBegin and reportEnd give the audit hooks a call's begin and end
// events. They are functions of their own, so that the events are not on
// the stack while the call runs deeper on it (a served call's goroutine
// then grows its stack less often).
func (r *Registry) reportBegin(ctx context.Context, aud []*auditHook, res *Result, version string, origin Origin, idemSum, argsSum string, argsSize int) {
	ev := Event{Time: res.Started, CallID: res.CallID, Tool: res.Tool, Version: version, Origin: origin, Principal: res.Principal,
		IdempotencySHA256: idemSum, ArgsSHA256: argsSum, ArgsSize: argsSize}
	report(ctx, aud, &ev, &r.audit.panicked)
}

func (r *Registry) reportEnd(ctx context.Context, aud []*auditHook, res *Result, version string, origin Origin, idemSum, argsSum string, argsSize int) {
	ev := Event{End: true, Time: time.Now(), CallID: res.CallID, Tool: res.Tool, Version: version, Origin: origin, Principal: res.Principal,
		IdempotencySHA256: idemSum, ArgsSHA256: argsSum, ArgsSize: argsSize, OutputSHA256: digest(res.Output), OutputSize: len(res.Output),
		Status: res.Status, Code: res.Code, Wait: res.Wait, Run: res.Run, Detail: res.detail, Governance: slices.Clone(res.Governance),
		Replayed: res.Replayed}
	report(ctx, aud, &ev, &r.audit.panicked)
}

// begin fills in the defaults of box's options and starts its Result,
// for Execute and Explain.
func (r *Registry) begin(ctx context.Context, box *resultBox, name string) *Result {
	o := &box.opts
	if o.origin == "" {
		o.origin = OriginApp
	}
	if o.principal == nil {
		if p, ok := PrincipalFromContext(ctx); ok {
			o.principal = &p
		} else {
			o.principal = &box.anon
		}
	}
	res := &box.res
	*res = Result{Tool: shownName(name), Origin: o.origin, Principal: *o.principal, Started: time.Now(), CallID: o.callID, Governance: box.gov[:0]}
	if res.CallID == "" && !o.dry {
		res.CallID = r.newID()
	}
	return res
}

// resultBox holds what a call allocates once: its Result, its options,
// the first decisions of its Governance and the Call its steps pass on.
type resultBox struct {
	res  Result
	opts callOptions
	gov  [5]Decision
	anon Principal // the principal of a call that names none
	call Call
}

// clear drops what a Result kept needs not keep: the caller's progress
// function, the call's arguments.
func (b *resultBox) clear() {
	b.opts, b.call = callOptions{}, Call{}
}

func (r *Registry) newID() string {
	n := r.seq.Add(1)
	b := make([]byte, 0, len(r.prefix)+8)
	b = append(b, r.prefix...)
	b = strconv.AppendUint(b, n, 36)
	return string(b)
}

// fail sets the code and message of a call that did not succeed.
func (res *Result) fail(code codes.Code, msg string) {
	res.Code, res.Message = code, msg
}

func (res *Result) failf(code codes.Code, format string, a ...any) {
	res.Code, res.Message = code, fmt.Sprintf(format, a...)
}

func (res *Result) decide(step, detail string) {
	res.Governance = append(res.Governance, Decision{Step: step, Detail: detail})
}

func (r *Registry) execute(ctx context.Context, box *resultBox, e *entry, name string, args json.RawMessage) {
	res, o := &box.res, &box.opts
	if e == nil {
		err, hint := r.notFound(name)
		res.fail(codes.NotFound, err.Message)
		res.Hint = hint
		return
	}
	res.Tool = e.tool.Name
	if !o.dry {
		e.counters.calls.Add(1)
		e.counters.inFlight.Add(1)
		defer e.counters.inFlight.Add(-1)
		defer e.counters.finish(res)
	} else {
		res.decide("look-up", "would pass: "+e.tool.Name)
	}
	m := &e.tool.Meta
	pol := e.pol.Load()

	if st := e.effectiveState(); st.state == StatePaused {
		res.fail(codes.Paused, pausedMessage(e.tool.Name, &st))
		res.Hint = "calls resume once it is enabled again"
		return
	} else if st.state == StateDeprecated {
		res.decide("state", deprecation(&st))
	} else {
		res.pass(o, "state", "enabled")
	}
	if reason := e.disabledReason(); reason != "" {
		res.fail(codes.Disabled, reason)
		res.Hint = "enable it in the config or at runtime"
		return
	}
	res.pass(o, "enabled", "not disabled by config or at runtime")
	if !m.allowsOrigin(o.origin) {
		res.fail(codes.OriginDenied, originMessage(e, o.origin))
		return
	}
	if len(m.Origins) > 0 {
		res.decide("origin", string(o.origin)+" allowed")
	} else {
		res.pass(o, "origin", "every origin may call")
	}

	box.call = Call{ID: res.CallID, Tool: e.tool.Name, Origin: o.origin, Principal: res.Principal, Consent: o.consent, IdempotencyKey: o.idemKey,
		reg: r, meta: m, progress: o.progress}
	call := &box.call // in the box: the steps below keep pointers to it
	if err := checkAvailable(ctx, e, *call); err != nil {
		res.failf(codes.Unavailable, "%s is unavailable: %v", e.tool.Name, err)
		res.cause = err
		return
	}
	res.pass(o, "availability", "available")

	if !r.decodeArgs(res, e, call, args) {
		return
	}
	res.pass(o, "validation", "the arguments match the input schema")
	if !r.authorize(ctx, res, call) {
		return
	}
	if o.dry && r.authz.Load() == nil {
		res.pass(o, "policy", "no access rules or policies installed")
	}

	switch {
	case !m.NeedsConsent():
		res.pass(o, "consent", "not needed")
	case o.consent:
		res.decide("consent", "given")
	case o.dry:
		if !r.wouldConsent(res, e, call) {
			return
		}
	default:
		if !r.obtainConsent(ctx, res, e, call) {
			return
		}
	}

	if !o.dry {
		if h := r.planChain.Load(); h != nil {
			// What the middleware will ask of shared stores is gathered
			// first, so that the first decision (the key's claim, or the
			// first middleware's) makes them all in one round trip.
			ctx = r.plan(ctx, *h, e, *call)
		}
	}
	if k := r.keyedCall(e, call, o); k != nil {
		if o.dry {
			if !r.explainKey(ctx, res, k) {
				return
			}
		} else {
			if !r.claim(ctx, res, k, pol) {
				return
			}
			defer r.complete(ctx, res, k)
		}
	}

	if o.dry {
		r.explainMiddleware(ctx, res, e, pol, *call, o)
		return
	}

	if h := r.chain.Load(); h != nil {
		r.intercept(ctx, *h, res, e, pol, *call, o)
		return
	}
	r.govern(ctx, res, e, pol, *call, o)
}

// govern runs the steps that spend or wait for resources: rate, deadline,
// slot, locks, main thread, run and output check.
func (r *Registry) govern(ctx context.Context, res *Result, e *entry, pol *toolPolicy, call Call, o *callOptions) {
	bucket, taken := r.takeToken(res, e, pol)
	if res.Code != codes.OK {
		return
	}

	d, src := pol.timeout, ""
	if o.timeout > 0 && o.timeout < d {
		d, src = o.timeout, "caller"
	}
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl); left < d {
			d, src = left, "caller's context"
		}
	}
	res.Timeout = d
	if src == "" {
		res.decide("timeout", pol.timeoutDecision)
	} else {
		res.decide("timeout", d.String()+" ("+src+")")
	}
	if pol.note != "" {
		res.decide("override", pol.note)
	}
	if err := ctx.Err(); err != nil {
		r.refund(bucket, taken)
		r.interrupted(res, ctx, err, false)
		return
	}
	runCtx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	t := &task{done: make(chan outcome, 1)}
	t.releases = t.relBuf[:0]
	if !r.acquire(ctx, runCtx, res, e, pol, call, t) {
		r.refund(bucket, taken)
		return
	}
	if e.tool.Meta.Confine != nil {
		r.runConfined(ctx, runCtx, res, e, call, t)
		r.confinedEffects(res, e)
		return
	}
	r.run(ctx, runCtx, res, e, call, t)
}

// decodeArgs enforces the size cap, decodes, validates and fills defaults.
func (r *Registry) decodeArgs(res *Result, e *entry, call *Call, args json.RawMessage) bool {
	if limit := r.cfg.Load().MaxArgumentBytes; limit > 0 && int64(len(args)) > limit {
		msg := fmt.Sprintf("arguments are %s, over the limit of %s (config max_argument_bytes)", byteSize(int64(len(args))), byteSize(limit))
		res.fail(codes.ValidationError, msg)
		res.Fields = []FieldError{{Path: "", Keyword: "maxArgumentBytes", Message: msg}}
		return false
	}
	if e.in.NoParams() && emptyArgs(args) {
		call.Args = map[string]any{}
		call.raw = json.RawMessage(`{}`)
		return true
	}
	var v any = map[string]any{}
	if !emptyArgs(args) {
		var err error
		if v, err = schema.Decode(args); err != nil {
			res.fail(codes.ValidationError, err.Error())
			res.Fields = []FieldError{{Path: "", Keyword: "json", Message: err.Error()}}
			return false
		}
	}
	if v == nil {
		v = map[string]any{}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		msg := fmt.Sprintf("arguments must be a JSON object, got %s", jsonKind(v))
		res.fail(codes.ValidationError, msg)
		res.Fields = []FieldError{{Path: "", Keyword: "type", Message: msg}}
		return false
	}
	if mayHaveHugeNumber(args) {
		if path, ok := hugeNumber(obj, ""); ok {
			msg := "number out of range: numbers longer than " + strconv.Itoa(maxNumberLen) + " characters or with exponents beyond ±" + strconv.Itoa(maxExponent) + " are refused"
			res.fail(codes.ValidationError, "invalid argument: "+pointerOrRoot(path)+": "+msg)
			res.Fields = []FieldError{{Path: path, Keyword: "range", Message: msg}}
			return false
		}
	}
	if sf, more, stopped := e.in.Validate(obj, r.cfg.Load().MaxFieldErrors); len(sf) > 0 {
		fields := fieldErrors(sf)
		res.Fields, res.MoreFields = fields, more
		res.fail(codes.ValidationError, summarize("argument", fields, more, stopped))
		return false
	}
	call.Args = obj
	if !e.in.ApplyDefaults(obj) && !emptyArgs(args) {
		call.raw = args
	}
	return true
}

// maxExponent and maxNumberLen bound numbers in arguments: far beyond
// float64, and they keep the exact arithmetic of schema checks cheap (a
// 12-byte number like 1e999999, or a million digits, costs that arithmetic
// seconds).
const (
	maxExponent  = 1000
	maxNumberLen = 100
)

// mayHaveHugeNumber reports whether b may hold a number with an exponent (a
// digit followed by e or E) or a run of more than maxNumberLen digits. Text
// in strings can match too; that only costs the walk of hugeNumber.
func mayHaveHugeNumber(b []byte) bool {
	run := 0
	for i, c := range b {
		if c >= '0' && c <= '9' {
			if run++; run > maxNumberLen {
				return true
			}
			continue
		}
		run = 0
		if (c == 'e' || c == 'E') && i > 0 && b[i-1] >= '0' && b[i-1] <= '9' {
			return true
		}
	}
	return false
}

// hugeNumber finds a number whose exponent is beyond ±maxExponent.
func hugeNumber(v any, path string) (string, bool) {
	switch v := v.(type) {
	case json.Number:
		s := string(v)
		if len(s) > maxNumberLen {
			return path, true
		}
		if i := strings.IndexAny(s, "eE"); i >= 0 {
			exp, err := strconv.Atoi(strings.TrimPrefix(s[i+1:], "+"))
			if err != nil || exp > maxExponent || exp < -maxExponent {
				return path, true
			}
		}
	case map[string]any:
		for k, e := range v {
			if p, ok := hugeNumber(e, path+"/"+jsonpointer.Escape(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := hugeNumber(e, path+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

func pointerOrRoot(p string) string {
	if p == "" {
		return "(arguments)"
	}
	return p
}

func emptyArgs(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) == 0 || string(b) == "null" || string(b) == "{}"
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// summarize puts field errors on one line; what names one of them
// ("argument" for the arguments, "field" for an output).
func summarize(what string, fields []FieldError, more int, stopped bool) string {
	var b strings.Builder
	switch {
	case stopped:
		fmt.Fprintf(&b, "at least %d invalid %ss, the first %d listed (config max_field_errors; validation stopped there): ", len(fields)+more, what, len(fields))
	case more > 0:
		fmt.Fprintf(&b, "%d invalid %ss, the first %d listed (config max_field_errors): ", len(fields)+more, what, len(fields))
	case len(fields) == 1:
		b.WriteString("invalid " + what + ": ")
	default:
		fmt.Fprintf(&b, "%d invalid %ss: ", len(fields), what)
	}
	for i, f := range fields {
		if i > 0 {
			b.WriteString("; ")
		}
		if f.Path == "" && what == "field" {
			b.WriteString("(output): " + f.Message) // the whole output, not the arguments
			continue
		}
		b.WriteString(f.String())
	}
	return b.String()
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// interrupted reports a call stopped by its deadline or its caller.
func (r *Registry) interrupted(res *Result, parent context.Context, err error, started bool) {
	res.cause = err
	canceled := false
	if perr := parent.Err(); perr != nil && !errors.Is(perr, context.DeadlineExceeded) {
		canceled, res.cause = true, perr
	}
	switch {
	case !started && canceled:
		res.failf(codes.Canceled, "%s was canceled by its caller before it started", res.Tool)
	case !started:
		res.failf(codes.Timeout, "%s could not start: the caller's deadline had already passed", res.Tool)
	case canceled:
		res.failf(codes.Canceled, "%s was canceled by its caller after %v", res.Tool, res.Run.Round(time.Millisecond))
	default:
		res.failf(codes.Timeout, "%s timed out after %v (deadline %v)", res.Tool, res.Run.Round(time.Millisecond), res.Timeout)
	}
	if res.Abandoned {
		res.Hint = "the tool ignored its context and still runs; it is counted in Stats().Abandoned until it returns"
	}
}

// checked is a tool's output once encoded and checked: the output that
// passed, or the refusal, with its fields, of one that did not.
type checked struct {
	failed       bool
	code         codes.Code
	msg          string
	output, plan json.RawMessage
	invalid      json.RawMessage // the output the output schema refused
	fields       []FieldError
	more         int
}

func (c *checked) failf(code codes.Code, format string, a ...any) {
	c.failed, c.code, c.msg = true, code, fmt.Sprintf(format, a...)
}

// takeOutput puts a checked output in the result.
func (res *Result) takeOutput(c *checked) {
	if c.plan != nil {
		res.Plan = c.plan
	}
	if c.failed {
		res.Code, res.Message = c.code, c.msg
		res.Fields, res.MoreFields, res.InvalidOutput = c.fields, c.more, c.invalid
		return
	}
	res.Output = c.output
}

// checkOutput encodes the tool's output, enforces the size cap and checks it
// against the output schema; the output is kept only when all pass. It
// touches no Result: it runs where the tool ran, which may be after its
// caller left.
func (r *Registry) checkOutput(e *entry, out any) (c checked) {
	if f, ok := out.(Followup); ok {
		out = f.Output
		if f.Plan != nil {
			plan, err := jsonenc.Marshal(f.Plan)
			if err != nil {
				c.failf(codes.OutputInvalid, "the follow-up plan cannot be encoded as JSON: %v", err)
				return c
			}
			c.plan = plan
		}
	}
	var b []byte
	raw := false
	switch v := out.(type) {
	case nil:
		b = []byte("null")
	case json.RawMessage:
		b, raw = v, true
	default:
		var err error
		if b, err = jsonenc.Marshal(v); err != nil {
			c.failf(codes.OutputInvalid, "%s returned output that cannot be encoded as JSON: %v", e.tool.Name, err)
			return c
		}
	}
	// The size cap comes first: an oversized output is neither scanned nor
	// checked against the output schema.
	if limit := r.cfg.Load().MaxOutputBytes; limit > 0 && int64(len(b)) > limit {
		c.failf(codes.OutputInvalid, "output is %s, over the limit of %s (config max_output_bytes)", byteSize(int64(len(b))), byteSize(limit))
		return c
	}
	if raw && !json.Valid(b) {
		c.failf(codes.OutputInvalid, "%s returned json.RawMessage that is not valid JSON", e.tool.Name)
		return c
	}
	if e.out != nil {
		v, err := schema.Decode(b)
		if err != nil {
			// Fail closed: an output the check cannot read is not a checked output.
			c.failf(codes.OutputInvalid, "%s returned output that cannot be checked against its output schema: %v", e.tool.Name, err)
			return c
		}
		if sf, more, stopped := e.out.Validate(v, r.cfg.Load().MaxFieldErrors); len(sf) > 0 {
			fields := fieldErrors(sf)
			c.fields, c.more, c.invalid = fields, more, b
			c.failf(codes.OutputInvalid, "%s returned output that does not match its output schema: %s", e.tool.Name, strings.TrimPrefix(summarize("field", fields, more, stopped), "invalid field: "))
			return c
		}
	}
	c.output = b
	return c
}

// ValidateArgs checks args against the named tool's input schema without
// running anything: the same size cap, decoding and validation as Execute.
// It returns nil when the arguments would pass, else the failing fields
// (the first config max_field_errors of them, by path).
func (r *Registry) ValidateArgs(name string, args json.RawMessage) ([]FieldError, error) {
	e := r.lookup(name)
	if e == nil {
		return nil, r.notFoundError(name)
	}
	var res Result
	var call Call
	if r.decodeArgs(&res, e, &call, args) {
		return nil, nil
	}
	return res.Fields, nil
}
