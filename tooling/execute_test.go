package tooling_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var errBoom = errors.New("boom")

// codeRegistry holds one tool per way a call can end.
func codeRegistry(t *testing.T) *tooling.Registry {
	t.Helper()
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.ok", Description: "ok", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Input: raw(`{"type":"object","properties":{"n":{"type":"integer","minimum":1}},"required":["n"],"additionalProperties":false}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]int64{"n": callargs.Int(c.Args, "n")}, nil
		}})
	r.Register(tooling.Tool{Name: "t.llm", Meta: tooling.Meta{Origins: []tooling.Origin{tooling.OriginLLM}}, Run: run})
	r.Register(tooling.Tool{Name: "t.offline", Run: run,
		Available: func(context.Context, tooling.Call) error { return errors.New("generator offline") }})
	r.Register(tooling.Tool{Name: "t.write", Meta: tooling.Meta{Effects: tooling.EffectWrite}, Run: run})
	r.Register(tooling.Tool{Name: "t.stuck", Meta: tooling.Meta{Timeout: 100 * time.Millisecond},
		Run: func(context.Context, tooling.Call) (any, error) {
			time.Sleep(400 * time.Millisecond) // ignores its context on purpose
			return "late", nil
		}})
	r.Register(tooling.Tool{Name: "t.wait", Meta: tooling.Meta{Timeout: 5 * time.Second},
		Run: func(ctx context.Context, _ tooling.Call) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	r.Register(tooling.Tool{Name: "t.err", Run: func(context.Context, tooling.Call) (any, error) {
		return nil, fmt.Errorf("wrapped: %w", errBoom)
	}})
	r.Register(tooling.Tool{Name: "t.panic", Run: func(context.Context, tooling.Call) (any, error) {
		panic("kaboom")
	}})
	r.Register(tooling.Tool{Name: "t.bad_output", Output: raw(`{"type":"object","required":["ok"],"properties":{"ok":{"const":true}}}`),
		Run: func(context.Context, tooling.Call) (any, error) { return map[string]any{"ok": "yes"}, nil }})
	r.Register(tooling.Tool{Name: "t.unencodable", Run: func(context.Context, tooling.Call) (any, error) {
		return make(chan int), nil
	}})
	return r
}

func TestExecuteCodes(t *testing.T) {
	r := codeRegistry(t)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		tool     string
		args     string
		opts     []tooling.Option
		code     codes.Code
		sentinel error
		status   string
		msg      string // must occur in the message
	}{
		{"ok", nil, "t.ok", `{"n":2}`, nil, codes.OK, nil, "ok", ""},
		{"exported name", nil, "t__ok", `{"n":2}`, nil, codes.OK, nil, "ok", ""},
		{"not found", nil, "t.okk", `{}`, nil, codes.NotFound, codes.NotFound, "denied", `did you mean "t.ok"`},
		{"origin denied", nil, "t.llm", ``, nil, codes.OriginDenied, codes.OriginDenied, "denied", `origin "app" may not call t.llm (allowed: llm)`},
		{"origin allowed", nil, "t.llm", ``, []tooling.Option{tooling.WithOrigin(tooling.OriginLLM)}, codes.OK, nil, "ok", ""},
		{"unavailable", nil, "t.offline", ``, nil, codes.Unavailable, codes.Unavailable, "denied", "generator offline"},
		{"validation", nil, "t.ok", `{"n":0}`, nil, codes.ValidationError, codes.ValidationError, "denied", "/n: must be at least 1, got 0"},
		{"malformed", nil, "t.ok", `{"n":`, nil, codes.ValidationError, codes.ValidationError, "denied", "malformed JSON"},
		{"not an object", nil, "t.ok", `[1,2]`, nil, codes.ValidationError, codes.ValidationError, "denied", "must be a JSON object, got an array"},
		{"huge number", nil, "t.ok", `{"n":` + strings.Repeat("9", 1000) + `}`, nil, codes.ValidationError, codes.ValidationError, "denied", "/n: number out of range"},
		{"huge exponent", nil, "t.ok", `{"n":1e999999}`, nil, codes.ValidationError, codes.ValidationError, "denied", "/n: number out of range"},
		{"trailing data", nil, "t.ok", `{"n":1} {}`, nil, codes.ValidationError, codes.ValidationError, "denied", "unexpected data after the value"},
		{"consent required", nil, "t.write", ``, nil, codes.ConsentRequired, codes.ConsentRequired, "denied", "needs consent"},
		{"consent given", nil, "t.write", ``, []tooling.Option{tooling.WithConsent()}, codes.OK, nil, "ok", ""},
		{"timeout", nil, "t.stuck", ``, nil, codes.Timeout, codes.Timeout, "error", "timed out"},
		{"caller timeout", nil, "t.wait", ``, []tooling.Option{tooling.WithTimeout(20 * time.Millisecond)}, codes.Timeout, codes.Timeout, "error", "deadline 20ms"},
		{"canceled before", canceled, "t.wait", ``, nil, codes.Canceled, codes.Canceled, "denied", "canceled by its caller before it started"},
		{"tool error", nil, "t.err", ``, nil, codes.ToolError, codes.ToolError, "error", "wrapped: boom"},
		{"panic", nil, "t.panic", ``, nil, codes.Panic, codes.Panic, "error", "t.panic panicked: kaboom"},
		{"output invalid", nil, "t.bad_output", ``, nil, codes.OutputInvalid, codes.OutputInvalid, "error", "/ok: must be true"},
		{"output unencodable", nil, "t.unencodable", ``, nil, codes.OutputInvalid, codes.OutputInvalid, "error", "cannot be encoded as JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			res, err := r.Execute(ctx, tt.tool, raw(tt.args), tt.opts...)
			if res == nil {
				t.Fatal("nil result")
			}
			if res.Code != tt.code || res.Status != tt.status {
				t.Fatalf("code %q status %q, want %q %q (message %q)", res.Code, res.Status, tt.code, tt.status, res.Message)
			}
			if !strings.Contains(res.Message, tt.msg) {
				t.Errorf("message %q does not say %q", res.Message, tt.msg)
			}
			if res.CallID == "" {
				t.Error("no call id")
			}
			if tt.sentinel == nil {
				if err != nil {
					t.Fatalf("err = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("errors.Is(%v, %v) = false", err, tt.sentinel)
			}
			for _, other := range []error{codes.NotFound, codes.Timeout, codes.Panic} {
				if other != tt.sentinel && errors.Is(err, other) {
					t.Errorf("error also matches %v", other)
				}
			}
			var te *tooling.Error
			if !errors.As(err, &te) || te.Result != res || te.Code != tt.code {
				t.Fatalf("errors.As gave %+v", te)
			}
		})
	}
	waitAbandoned(t, r)
}

func TestToolErrorUnwraps(t *testing.T) {
	r := codeRegistry(t)
	_, err := r.Execute(context.Background(), "t.err", nil)
	if !errors.Is(err, errBoom) {
		t.Fatalf("errors.Is(err, errBoom) = false for %v", err)
	}
	// The error unwraps to its code too: errors.Is matches it, errors.As
	// extracts it, and another code does not match.
	var code codes.Code
	if !errors.Is(err, codes.ToolError) || errors.Is(err, codes.Timeout) || !errors.As(err, &code) || code != codes.ToolError {
		t.Fatalf("the code through the error: Is %v, As %q", errors.Is(err, codes.ToolError), code)
	}
}

func TestPanicKeepsStackAndHost(t *testing.T) {
	r := codeRegistry(t)
	for i := 0; i < 3; i++ {
		res, _ := r.Execute(context.Background(), "t.panic", nil)
		if res.Code != codes.Panic || !strings.Contains(res.Stack, "goroutine") || !strings.Contains(res.Stack, "execute_test.go") {
			t.Fatalf("code %q stack %q", res.Code, res.Stack)
		}
	}
	if res := mustExec(t, r, "t.ok", `{"n":1}`); !res.OK() {
		t.Fatal("registry broken after panics")
	}
}

// TestTimeoutReturnsOnTimeWhenToolIgnoresContext: the call ends at its 100 ms deadline, not
// when the tool (asleep for 400 ms) returns. In a synctest bubble the clock only moves when every
// goroutine waits, so the bounds hold on a loaded machine as on an idle one.
func TestTimeoutReturnsOnTimeWhenToolIgnoresContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := codeRegistry(t)
		start := time.Now()
		res, err := r.Execute(context.Background(), "t.stuck", nil)
		took := time.Since(start)
		if !errors.Is(err, codes.Timeout) || !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
		if took < 100*time.Millisecond || took >= 400*time.Millisecond {
			t.Fatalf("returned after %v, want at the 100ms deadline, before the tool's 400ms sleep ends", took)
		}
		if !res.Abandoned || res.Hint == "" {
			t.Errorf("abandoned %v hint %q", res.Abandoned, res.Hint)
		}
		if got := r.Stats().Abandoned; got != 1 {
			t.Errorf("Stats().Abandoned = %d, want 1 while the tool still sleeps", got)
		}
		waitAbandoned(t, r)
	})
}

// TestCancelWhileRunning: a call canceled 30 ms after it started ends canceled, having run
// until the cancel. In a synctest bubble the clock only moves when every goroutine waits, so
// the call's start cannot drift past the cancel on a loaded machine (it did in real time: a
// call that began running late measured a run shorter than the bound).
func TestCancelWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := codeRegistry(t)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(30*time.Millisecond, cancel)
		res, err := r.Execute(ctx, "t.wait", nil)
		if !errors.Is(err, codes.Canceled) || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
		if res.Run != 30*time.Millisecond {
			t.Errorf("run %v, want 30ms: from the start to the cancel", res.Run)
		}
	})
}

func TestCallerDeadlineIsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := codeRegistry(t)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
		defer cancel()
		res, err := r.Execute(ctx, "t.wait", nil)
		if !errors.Is(err, codes.Timeout) {
			t.Fatalf("err = %v", err)
		}
		if res.Timeout != 30*time.Millisecond {
			t.Errorf("timeout %v, want the caller's 30ms", res.Timeout)
		}
	})
}

func TestValidationReportsEveryField(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.search", Run: run, Input: raw(`{
		"type": "object",
		"properties": {
			"text": {"type": "string"},
			"repeat": {"type": "integer", "minimum": 1, "maximum": 10},
			"tags": {"type": "array", "items": {"type": "string", "maxLength": 3}},
			"filter": {"$ref": "#/$defs/filter"}
		},
		"required": ["text"],
		"additionalProperties": false,
		"$defs": {"filter": {"type": "object", "properties": {"date": {"type": "string", "format": "date"}}, "required": ["date"]}}
	}`)})
	tests := []struct {
		args   string
		fields map[string]string // path -> part of message
	}{
		{`{"repeat":0}`, map[string]string{"/text": "required", "/repeat": "at least 1"}},
		{`{"text":1,"repeat":11}`, map[string]string{"/text": "must be a string, got a number", "/repeat": "at most 10"}},
		{`{"text":"a","tags":["ok","long"]}`, map[string]string{"/tags/1": "at most 3 characters"}},
		{`{"text":"a","filter":{}}`, map[string]string{"/filter/date": "required"}},
		{`{"text":"a","filter":{"date":"31/01/2026"}}`, map[string]string{"/filter/date": "valid date, like 2026-01-31"}},
		{`{"text":"a","txet":1}`, map[string]string{"/txet": `did you mean "text"`}},
		{`{"text":"a","repeat":1.5}`, map[string]string{"/repeat": "must be an integer, got a number"}},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			res, err := r.Execute(context.Background(), "t.search", raw(tt.args))
			if !errors.Is(err, codes.ValidationError) {
				t.Fatalf("err = %v", err)
			}
			got := map[string]string{}
			for _, f := range res.Fields {
				got[f.Path] = f.Message
			}
			if len(got) != len(tt.fields) {
				t.Errorf("fields %v, want paths of %v", got, tt.fields)
			}
			for path, want := range tt.fields {
				if !strings.Contains(got[path], want) {
					t.Errorf("field %s: %q does not say %q (all: %v)", path, got[path], want, got)
				}
				if !strings.Contains(res.Message, path) {
					t.Errorf("message %q does not name %s", res.Message, path)
				}
			}
		})
	}
}

func TestArgumentSizeCap(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.text", Run: run, Input: raw(`{"type":"object","properties":{"s":{"type":"string"}}}`)})
	cfg := tooling.Settings{}
	cfg.MaxArgumentBytes = 64
	r.Configure(cfg)
	small := `{"s":"` + strings.Repeat("a", 50) + `"}`
	big := `{"s":"` + strings.Repeat("a", 60) + `"}`
	mustExec(t, r, "t.text", small)
	res, err := r.Execute(context.Background(), "t.text", raw(big))
	if !errors.Is(err, codes.ValidationError) || !strings.Contains(res.Message, "over the limit of 64 bytes") {
		t.Fatalf("err %v message %q", err, res.Message)
	}
}

// sizedOutput returns a JSON string of exactly n bytes, quotes included.
func sizedOutput(n int) string { return `"` + strings.Repeat("a", n-2) + `"` }

func TestOutputSizeCap(t *testing.T) {
	r := tooling.NewRegistry()
	in := raw(`{"type":"object","properties":{"n":{"type":"integer"},"bad":{"type":"boolean"}},"required":["n"]}`)
	// t.sized returns a Go string that encodes to n bytes; t.raw the same
	// as json.RawMessage, or n bytes that are not JSON when bad is set.
	r.Register(tooling.Tool{Name: "t.sized", Input: in, Run: func(_ context.Context, c tooling.Call) (any, error) {
		return strings.Repeat("a", int(callargs.Int(c.Args, "n"))-2), nil
	}})
	r.Register(tooling.Tool{Name: "t.raw", Input: in, Run: func(_ context.Context, c tooling.Call) (any, error) {
		if callargs.Bool(c.Args, "bad") {
			return json.RawMessage(strings.Repeat("{", int(callargs.Int(c.Args, "n")))), nil
		}
		return json.RawMessage(sizedOutput(int(callargs.Int(c.Args, "n")))), nil
	}})
	// t.schema returns a string its output schema refuses.
	r.Register(tooling.Tool{Name: "t.schema", Input: in, Output: raw(`{"type":"object","properties":{"s":{"maxLength":1}}}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return map[string]string{"s": strings.Repeat("a", int(callargs.Int(c.Args, "n"))-len(`{"s":""}`))}, nil
		}})
	r.Register(tooling.Tool{Name: "t.followup", Input: in, Run: func(_ context.Context, c tooling.Call) (any, error) {
		return tooling.Followup{Output: strings.Repeat("a", int(callargs.Int(c.Args, "n"))-2), Plan: map[string]any{"next": "t.sized"}}, nil
	}})
	cfg := tooling.Settings{}
	cfg.MaxOutputBytes = 64
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	const over = "output is 65 bytes, over the limit of 64 bytes (config max_output_bytes)"
	tests := []struct {
		name string
		tool string
		args string
		code codes.Code
		msg  string // the whole message, "" when the call succeeds
	}{
		{"under", "t.sized", `{"n":63}`, codes.OK, ""},
		{"at", "t.sized", `{"n":64}`, codes.OK, ""},
		{"over", "t.sized", `{"n":65}`, codes.OutputInvalid, over},
		{"far over", "t.sized", `{"n":5000}`, codes.OutputInvalid, "output is 4.9 KiB, over the limit of 64 bytes (config max_output_bytes)"},
		{"raw under", "t.raw", `{"n":63}`, codes.OK, ""},
		{"raw at", "t.raw", `{"n":64}`, codes.OK, ""},
		{"raw over", "t.raw", `{"n":65}`, codes.OutputInvalid, over},
		{"raw not JSON, under", "t.raw", `{"n":10,"bad":true}`, codes.OutputInvalid, "t.raw returned json.RawMessage that is not valid JSON"},
		{"raw not JSON, over: the cap comes first", "t.raw", `{"n":65,"bad":true}`, codes.OutputInvalid, over},
		{"schema mismatch, under", "t.schema", `{"n":10}`, codes.OutputInvalid, "t.schema returned output that does not match its output schema: /s: must be at most 1 character long, got 2"},
		{"schema mismatch, over: no schema check", "t.schema", `{"n":65}`, codes.OutputInvalid, over},
		{"follow-up at", "t.followup", `{"n":64}`, codes.OK, ""},
		{"follow-up over", "t.followup", `{"n":65}`, codes.OutputInvalid, over},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{}
			remove := r.Audit(rec.Observe)
			res, err := r.Execute(context.Background(), tt.tool, raw(tt.args))
			remove() // waits for the events already sent
			if res.Code != tt.code {
				t.Fatalf("code %q (%s), want %q", res.Code, res.Message, tt.code)
			}
			if len(rec.events) != 2 {
				t.Fatalf("%d events, want 2", len(rec.events))
			}
			end := rec.events[1]
			if tt.code == codes.OK {
				n := int(argInt(t, tt.args, "n"))
				if err != nil || res.Status != "ok" || len(res.Output) != n || string(res.Output) != sizedOutput(n) {
					t.Fatalf("err %v status %q output %d bytes %q", err, res.Status, len(res.Output), res.Output)
				}
				if end.OutputSize != n {
					t.Fatalf("observer saw an output of %d bytes, want %d", end.OutputSize, n)
				}
				return
			}
			if !errors.Is(err, codes.OutputInvalid) || res.Status != "error" {
				t.Fatalf("err %v status %q", err, res.Status)
			}
			if res.Message != tt.msg {
				t.Fatalf("message %q, want %q", res.Message, tt.msg)
			}
			if res.Output != nil {
				t.Fatalf("output %d bytes, want none", len(res.Output))
			}
			if tt.msg == over && len(res.Fields) != 0 {
				t.Fatalf("fields %v on an oversized output", res.Fields)
			}
			// Only an output the schema refused is kept, apart, for people to see.
			if schemaRefused := len(res.Fields) > 0; schemaRefused != (len(res.InvalidOutput) > 0) {
				t.Fatalf("invalid output %q with fields %v: want it exactly when the schema refused the output", res.InvalidOutput, res.Fields)
			} else if schemaRefused && !json.Valid(res.InvalidOutput) {
				t.Fatalf("invalid output %q is not the JSON the tool returned", res.InvalidOutput)
			}
			if end.Code != codes.OutputInvalid || end.OutputSize != 0 {
				t.Fatalf("observer saw code %q and an output of %d bytes", end.Code, end.OutputSize)
			}
		})
	}
}

// argInt reads the integer at key of a JSON object.
func argInt(t *testing.T, obj, key string) int64 {
	t.Helper()
	var m map[string]int64
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

func TestOutputSizeCapDefault(t *testing.T) {
	if got := (tooling.Settings{}).WithDefaults().MaxOutputBytes; got != 16<<20 {
		t.Fatalf("default MaxOutputBytes = %d, want 16 MiB", got)
	}
	r := tooling.NewRegistry()
	var out json.RawMessage
	r.Register(tooling.Tool{Name: "t.big", Run: func(context.Context, tooling.Call) (any, error) { return out, nil }})
	tests := []struct {
		name string
		size int
		msg  string // "" when the call succeeds
	}{
		{"at the default", 16 << 20, ""},
		{"over the default", 20 << 20, "output is 20.0 MiB, over the limit of 16.0 MiB (config max_output_bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out = json.RawMessage(sizedOutput(tt.size))
			res, err := r.Execute(context.Background(), "t.big", nil)
			if tt.msg == "" {
				if err != nil || len(res.Output) != tt.size {
					t.Fatalf("err %v output %d bytes", err, len(res.Output))
				}
				return
			}
			if !errors.Is(err, codes.OutputInvalid) || res.Message != tt.msg || res.Output != nil {
				t.Fatalf("err %v message %q output %d bytes", err, res.Message, len(res.Output))
			}
		})
	}
}

func TestDefaultsFilledBeforeRun(t *testing.T) {
	r := tooling.NewRegistry()
	var got tooling.Call
	var firstListItem any
	r.Register(tooling.Tool{Name: "t.defaults", Input: raw(`{
		"type": "object",
		"properties": {
			"repeat": {"type": "integer", "default": 1},
			"mode": {"$ref": "#/$defs/mode"},
			"opts": {"type": "object", "properties": {"deep": {"type": "boolean", "default": true}, "list": {"type": "array", "default": [1, 2]}}},
			"absent_obj": {"type": "object", "properties": {"x": {"type": "integer", "default": 5}}}
		},
		"$defs": {"mode": {"type": "string", "default": "fast"}}
	}`), Run: func(_ context.Context, c tooling.Call) (any, error) {
		got = c
		if opts, ok := c.Args["opts"].(map[string]any); ok {
			l := opts["list"].([]any)
			firstListItem = l[0]
			l[0] = "mutated"
		}
		return nil, nil
	}})
	mustExec(t, r, "t.defaults", `{"opts":{}}`)
	if callargs.Int(got.Args, "repeat") != 1 || callargs.String(got.Args, "mode") != "fast" {
		t.Fatalf("args %v", got.Args)
	}
	opts := got.Args["opts"].(map[string]any)
	if opts["deep"] != true {
		t.Fatalf("nested default missing: %v", opts)
	}
	if _, ok := got.Args["absent_obj"]; ok {
		t.Errorf("absent object was created: %v", got.Args)
	}
	var decoded struct {
		Repeat int    `json:"repeat"`
		Mode   string `json:"mode"`
	}
	if err := got.Decode(&decoded); err != nil || decoded.Repeat != 1 || decoded.Mode != "fast" {
		t.Fatalf("Decode: %v %+v (raw %s)", err, decoded, got.Raw())
	}
	// A tool that mutates a default must not change the next call's default.
	mustExec(t, r, "t.defaults", `{"opts":{}}`)
	if firstListItem != json.Number("1") {
		t.Fatalf("default was shared between calls: first item %v", firstListItem)
	}
	// Present values win.
	mustExec(t, r, "t.defaults", `{"repeat":3}`)
	if callargs.Int(got.Args, "repeat") != 3 || string(got.Raw()) == `{"repeat":3}` {
		t.Fatalf("args %v raw %s", got.Args, got.Raw())
	}
}

func TestNoParameterTool(t *testing.T) {
	r := tooling.NewRegistry()
	var args map[string]any
	r.Register(tooling.Tool{Name: "t.none", Run: func(_ context.Context, c tooling.Call) (any, error) {
		args = c.Args
		return nil, nil
	}})
	for _, a := range []string{``, `{}`, `null`, ` { } `} {
		mustExec(t, r, "t.none", a)
		if args == nil || len(args) != 0 {
			t.Fatalf("args %v for %q", args, a)
		}
	}
	res, err := r.Execute(context.Background(), "t.none", raw(`{"x":1}`))
	if !errors.Is(err, codes.ValidationError) || res.Fields[0].Path != "/x" {
		t.Fatalf("extra argument accepted: %v %+v", err, res.Fields)
	}
}

func TestFollowupPlanPassedUntouched(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.plan", Output: raw(`{"type":"object","required":["done"]}`),
		Run: func(context.Context, tooling.Call) (any, error) {
			return tooling.Followup{Output: map[string]bool{"done": true},
				Plan: json.RawMessage(`{"next":[{"tool":"demo.echo","args":{"text":"again"}}]}`)}, nil
		}})
	res := mustExec(t, r, "t.plan", ``)
	if string(res.Output) != `{"done":true}` {
		t.Errorf("output %s", res.Output)
	}
	if string(res.Plan) != `{"next":[{"tool":"demo.echo","args":{"text":"again"}}]}` {
		t.Errorf("plan %s", res.Plan)
	}
	b, _ := json.Marshal(res)
	if !strings.Contains(string(b), `"post_execution_plan":{"next"`) {
		t.Errorf("JSON %s", b)
	}
}

func TestDisabledByConfigAndRuntime(t *testing.T) {
	newReg := func() *tooling.Registry {
		r := tooling.NewRegistry()
		for _, n := range []string{"a.one", "a.two", "b.one"} {
			r.Register(tooling.Tool{Name: n, Run: run})
		}
		return r
	}
	tests := []struct {
		name    string
		mod     func(*tooling.Settings)
		enabled map[string]bool
		reason  string
	}{
		{"defaults", func(*tooling.Settings) {}, map[string]bool{"a.one": true, "a.two": true, "b.one": true}, ""},
		{"master switch", func(c *tooling.Settings) { c.Disabled = true }, map[string]bool{"a.one": false, "b.one": false}, "enabled: false"},
		{"blacklist", func(c *tooling.Settings) { c.Blacklist = []string{"a.*"} }, map[string]bool{"a.one": false, "a.two": false, "b.one": true}, "blacklist"},
		{"whitelist", func(c *tooling.Settings) { c.Whitelist = []string{"a.one"} }, map[string]bool{"a.one": true, "a.two": false, "b.one": false}, "whitelist"},
		{"whitelist wins", func(c *tooling.Settings) { c.Whitelist = []string{"a.one"}; c.Blacklist = []string{"a.one"} }, map[string]bool{"a.one": true}, ""},
		{"override", func(c *tooling.Settings) { c.Tools = map[string]tooling.Override{"b.one": {Disabled: true}} }, map[string]bool{"a.one": true, "b.one": false}, "tools.b.one.disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReg()
			cfg := tooling.Settings{}
			tt.mod(&cfg)
			r.Configure(cfg)
			for name, want := range tt.enabled {
				res, err := r.Execute(context.Background(), name, nil, tooling.WithConsent())
				if want != (err == nil) {
					t.Errorf("%s: err %v, want enabled=%v", name, err, want)
				}
				if !want && (!errors.Is(err, codes.Disabled) || !strings.Contains(res.Message, tt.reason)) {
					t.Errorf("%s: %v, want disabled saying %q", name, err, tt.reason)
				}
			}
		})
	}
	r := newReg()
	if err := r.SetEnabled("a.one", false); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Execute(context.Background(), "a.one", nil); !errors.Is(err, codes.Disabled) {
		t.Fatalf("runtime disable: %v", err)
	}
	_ = r.SetEnabled("a.one", true)
	mustExec(t, r, "a.one", ``)
	if err := r.SetEnabled("a.nope", true); !errors.Is(err, codes.NotFound) {
		t.Fatalf("SetEnabled unknown: %v", err)
	}
}

func TestTimeoutResolution(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.declared", Meta: tooling.Meta{Timeout: time.Second}, Run: run})
	r.Register(tooling.Tool{Name: "t.undeclared", Run: run})
	cfg := tooling.Settings{}
	cfg.DefaultTimeout = 2 * time.Second
	r.Configure(cfg)
	check := func(name string, want time.Duration, opts ...tooling.Option) {
		t.Helper()
		if res := mustExec(t, r, name, ``, opts...); res.Timeout != want {
			t.Errorf("%s: timeout %v, want %v (%v)", name, res.Timeout, want, res.Governance)
		}
	}
	check("t.declared", time.Second)
	check("t.undeclared", 2*time.Second)
	check("t.declared", 300*time.Millisecond, tooling.WithTimeout(300*time.Millisecond))
	check("t.declared", time.Second, tooling.WithTimeout(time.Hour)) // callers cannot lengthen

	cfg.Tools = map[string]tooling.Override{"t.declared": {Timeout: 500 * time.Millisecond}, "t.undeclared": {Timeout: 5 * time.Second}}
	r.Configure(cfg)
	check("t.declared", 500*time.Millisecond)
	check("t.undeclared", 5*time.Second) // the tool declared none: the override replaces the default

	cfg.Tools = map[string]tooling.Override{"t.declared": {Timeout: time.Minute}}
	r.Configure(cfg)
	res := mustExec(t, r, "t.declared", ``)
	if res.Timeout != time.Second {
		t.Errorf("override widened the tool's timeout to %v", res.Timeout)
	}
	found := false
	for _, d := range res.Governance {
		found = found || d.Step == "override" && strings.Contains(d.Detail, "never lengthen")
	}
	if !found {
		t.Errorf("ignored override not reported: %v", res.Governance)
	}
}

// greeter is a dependency a host hands to the tools it builds.
type greeter struct{ greeting string }

// greeterTools builds tools on their dependency, as a host does with
// reg.Register(greeterTools(g)...).
func greeterTools(g *greeter) []tooling.Tool {
	return []tooling.Tool{{Name: "t.greet", Run: func(ctx context.Context, c tooling.Call) (any, error) {
		n, ok := ctx.Value(nameKey{}).(string)
		if !ok {
			n = "nobody"
		}
		return g.greeting + " " + n, nil
	}}}
}

// nameKey is a typed context key: a per-call value a host sets on ctx.
type nameKey struct{}

func TestDependenciesByConstructorAndContext(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(greeterTools(&greeter{greeting: "hello"})...)
	if res := mustExec(t, r, "t.greet", ``); string(res.Output) != `"hello nobody"` {
		t.Errorf("output %s", res.Output)
	}
	ctx := context.WithValue(context.Background(), nameKey{}, "ada")
	if res, err := r.Execute(ctx, "t.greet", nil); err != nil || string(res.Output) != `"hello ada"` {
		t.Errorf("output %s, %v", res.Output, err)
	}
}

func TestConcurrentExecuteIsRaceFree(t *testing.T) {
	r := codeRegistry(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				name := []string{"t.ok", "t.err", "t.panic", "t.okk", "t.llm"}[i%5]
				res, _ := r.Execute(context.Background(), name, raw(`{"n":1}`))
				if res.Status == "" {
					t.Error("empty status")
				}
			}
		}()
	}
	wg.Wait()
	if s := r.Stats(); s.InFlight != 0 {
		t.Fatalf("in flight %d after all calls returned", s.InFlight)
	}
}

func TestValidateWithoutRunning(t *testing.T) {
	r := tooling.NewRegistry()
	ran := false
	r.Register(tooling.Tool{Name: "t.v", Input: raw(`{"type":"object","properties":{"n":{"type":"integer","maximum":3}},"required":["n"]}`),
		Run: func(context.Context, tooling.Call) (any, error) { ran = true; return nil, nil }})
	fields, err := r.ValidateArgs("t.v", raw(`{"n":4}`))
	if err != nil || len(fields) != 1 || fields[0].Path != "/n" {
		t.Fatalf("ValidateArgs: %v %+v", err, fields)
	}
	if fields, _ := r.ValidateArgs("t.v", raw(`{"n":2}`)); fields != nil {
		t.Fatalf("valid args gave %+v", fields)
	}
	if fields, _ := r.ValidateArgs("t.v", raw(`{"n":2.5}`)); len(fields) != 1 || fields[0].Keyword != "type" {
		t.Fatalf("a fraction: %+v", fields)
	}
	if _, err := r.ValidateArgs("t.nope", nil); !errors.Is(err, codes.NotFound) {
		t.Fatalf("unknown tool: %v", err)
	}
	if ran {
		t.Fatal("validation ran the tool")
	}
}

// TestFieldErrorCounts: a count of one is singular in messages ("at
// least 1 item", not "1 items").
func TestFieldErrorCounts(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.c", Input: raw(`{"type":"object","properties":{
		"a":{"type":"array","minItems":1},"b":{"type":"array","maxItems":2},
		"s":{"type":"string","minLength":1},"u":{"type":"string","maxLength":1},
		"o":{"type":"object","minProperties":1},"p":{"type":"object","maxProperties":3}}}`), Run: run})
	fields, err := r.ValidateArgs("t.c", raw(`{"a":[],"b":[1,2,3],"s":"","u":"xy","o":{},"p":{"a":1,"b":2,"c":3,"d":4}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"/a: must have at least 1 item, got 0",
		"/b: must have at most 2 items, got 3",
		"/o: must have at least 1 property, got 0",
		"/p: must have at most 3 properties, got 4",
		"/s: must be at least 1 character long, got 0",
		"/u: must be at most 1 character long, got 2",
	}
	var got []string
	for _, f := range fields {
		got = append(got, f.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("messages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRequiredSets: an anyOf or oneOf whose alternatives only say which
// properties to give is reported as that choice, at the object, not as
// the first alternative's properties being required.
func TestRequiredSets(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.any", Input: raw(`{"type":"object","properties":{"id":{"type":"string"},"name":{"type":"string"},"org":{"type":"string"},
		"q":{"type":"object","properties":{"a/b":{"type":"string"}},"oneOf":[{"required":["a/b"]},{"required":["c"]}]}},
		"anyOf":[{"required":["id"]},{"required":["name","org"]}]}`), Run: run})
	for _, tc := range []struct{ args, want string }{
		{`{}`, `(arguments): needs "id", or "name" and "org"`},
		{`{"name":"x"}`, `(arguments): needs "id", or "org"`},
		{`{"id":"x","q":{}}`, `/q: needs "a/b", or "c"`},
		{`{"id":"x","q":{"a/b":1}}`, `/q/a~1b: must be a string, got a number`},
	} {
		fields, err := r.ValidateArgs("t.any", raw(tc.args))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range fields {
			got = append(got, f.String())
		}
		if strings.Join(got, "; ") != tc.want {
			t.Errorf("%s: %q, want %q", tc.args, got, tc.want)
		}
	}
	if fields, _ := r.ValidateArgs("t.any", raw(`{"name":"x","org":"y"}`)); fields != nil {
		t.Errorf("valid arguments refused: %v", fields)
	}
}

func TestPolicy(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.p", Meta: tooling.Meta{Timeout: time.Second, Effects: tooling.EffectWrite}, Run: run})
	cfg := tooling.Settings{}
	cfg.Tools = map[string]tooling.Override{"t.p": {Timeout: time.Minute}}
	r.Configure(cfg)
	p, err := r.Policy("t.p")
	if err != nil || !p.Enabled || p.Timeout != time.Second || p.TimeoutSource != "tool" || !strings.Contains(p.Note, "never lengthen") {
		t.Fatalf("policy %+v %v", p, err)
	}
	if p.Rate != (tooling.Rate{}) {
		t.Fatalf("rate of a tool that declares none and has no rate override: %+v", p.Rate)
	}
	_ = r.SetEnabled("t.p", false)
	if p, _ := r.Policy("t.p"); p.Enabled || !strings.Contains(p.DisabledReason, "runtime") {
		t.Fatalf("policy after disable %+v", p)
	}
}

// TestPolicyRate: the policy's rate is the one calls are held to, the
// declared rate as a config override narrows it.
func TestPolicyRate(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.decl", Meta: tooling.Meta{Rate: tooling.Rate{PerMinute: 2, Burst: 2, Key: "api"}}, Run: run})
	r.Register(tooling.Tool{Name: "t.none", Run: run})
	for _, tc := range []struct {
		tool string
		ov   tooling.Rate
		want tooling.Rate
	}{
		{"t.decl", tooling.Rate{}, tooling.Rate{PerMinute: 2, Burst: 2, Key: "api"}},
		{"t.decl", tooling.Rate{PerMinute: 1, Burst: 1}, tooling.Rate{PerMinute: 1, Burst: 1, Key: "api"}},
		{"t.decl", tooling.Rate{PerMinute: 10, Burst: 1}, tooling.Rate{PerMinute: 2, Burst: 1, Key: "api"}}, // never raised
		{"t.none", tooling.Rate{}, tooling.Rate{}},
		{"t.none", tooling.Rate{PerMinute: 5}, tooling.Rate{PerMinute: 5, Burst: 1, Key: "t.none"}},
	} {
		if _, err := r.Configure(tooling.Settings{Tools: map[string]tooling.Override{tc.tool: {Rate: tc.ov}}}); err != nil {
			t.Fatal(err)
		}
		if p, err := r.Policy(tc.tool); err != nil || p.Rate != tc.want {
			t.Errorf("%s with override %+v: rate %+v (%v), want %+v", tc.tool, tc.ov, p.Rate, err, tc.want)
		}
	}
}

func TestToolStats(t *testing.T) {
	r := codeRegistry(t)
	for i := 0; i < 10; i++ {
		mustExec(t, r, "t.ok", `{"n":1}`)
	}
	_, _ = r.Execute(context.Background(), "t.ok", raw(`{"n":0}`))
	_, _ = r.Execute(context.Background(), "t.panic", nil)
	s, ok := toolStats(r, "t.ok")
	if !ok || s.Calls != 11 || s.OK != 10 || s.Errors[codes.ValidationError] != 1 || s.InFlight != 0 {
		t.Fatalf("stats %+v", s)
	}
	if s.P50 <= 0 || s.P95 < s.P50 || s.Last <= 0 && s.Errors == nil {
		t.Fatalf("latency p50 %v p95 %v last %v", s.P50, s.P95, s.Last)
	}
	all := r.Stats().Tools
	if len(all) != 2 || all[0].Tool != "t.ok" || all[1].Tool != "t.panic" || all[1].Errors[codes.Panic] != 1 {
		t.Fatalf("all %+v", all)
	}
}

func TestDecodeRefusesCaseTwins(t *testing.T) {
	r := tooling.NewRegistry()
	var decodeErr error
	var got struct{ Path string }
	r.Register(tooling.Tool{Name: "t.path", Input: raw(`{"type":"object","properties":{"path":{"type":"string","pattern":"^/tmp/"}},"required":["path"]}`),
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			decodeErr = c.Decode(&got)
			return nil, decodeErr
		}})
	res, err := r.Execute(context.Background(), "t.path", raw(`{"path":"/tmp/x","PATH":"/etc/passwd"}`))
	if err == nil || got.Path == "/etc/passwd" || !strings.Contains(decodeErr.Error(), "differ only in case") {
		t.Fatalf("Decode let a case twin through: %v %+v %s", err, got, res.Message)
	}
	mustExec(t, r, "t.path", `{"path":"/tmp/x"}`)
	if got.Path != "/tmp/x" {
		t.Fatalf("Decode: %+v", got)
	}
}

func TestConfigureRefusesInvalidConfig(t *testing.T) {
	r := codeRegistry(t)
	_, err := r.Configure(tooling.Settings{Blacklist: []string{"t.ok"}, MaxArgumentBytes: -1})
	if err == nil || err.Error() != "tooling: Configure: MaxArgumentBytes must not be negative, got -1 (0 means the default)" {
		t.Fatalf("invalid settings accepted: %v", err)
	}
	mustExec(t, r, "t.ok", `{"n":1}`) // nothing was applied
	_, err = r.Configure(tooling.Settings{Tools: map[string]tooling.Override{"t.ok": {Rate: tooling.Rate{PerMinute: math.NaN(), Burst: -1, Key: "shared"}}},
		Confinement: tooling.ConfinementBounds{MaxLimits: tooling.Limits{Processes: -2}}})
	for _, want := range []string{`Tools["t.ok"].Rate.Burst must not be negative`, `Tools["t.ok"].Rate.PerMinute must be a finite number`,
		`Tools["t.ok"].Rate.Key must be empty, got "shared"`, "Confinement.MaxLimits has a negative limit"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("Configure: %v; want %q", err, want)
		}
	}
}

// The zero Config is the default configuration: every tool enabled, every
// limit its default.
func TestConfigureZeroConfigIsTheDefault(t *testing.T) {
	r := codeRegistry(t)
	if _, err := r.Configure(tooling.Settings{MaxConcurrent: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Configure(tooling.Settings{}); err != nil {
		t.Fatal(err)
	}
	mustExec(t, r, "t.ok", `{"n":1}`)
	if got := r.Stats().Slots.Limit; got != 256 {
		t.Fatalf("slots after the zero Settings: %d, want 256", got)
	}
}

func TestToolHonouringItsContextIsNotAbandoned(t *testing.T) {
	r := tooling.NewRegistry()
	// Read-only, so that a call reported abandoned (on a machine too busy
	// to schedule the tool in time) holds no lock the next call waits for.
	r.Register(tooling.Tool{Name: "t.wait", Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(ctx context.Context, _ tooling.Call) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}})
	abandoned := 0
	for i := 0; i < 20; i++ {
		res, err := r.Execute(context.Background(), "t.wait", nil, tooling.WithTimeout(5*time.Millisecond))
		if !errors.Is(err, codes.Timeout) {
			t.Fatalf("err %v", err)
		}
		if res.Abandoned {
			abandoned++
		}
	}
	// The tool returns as soon as its context ends; only a machine too
	// busy to schedule it within the grace period makes it look abandoned.
	if abandoned > 5 {
		t.Fatalf("%d of 20 calls of a tool that honours its context were reported abandoned", abandoned)
	}
	waitAbandoned(t, r)
}

// An output that encodes to JSON but that the schema check cannot decode
// (nested deeper than the decoder allows) fails the call: the output
// schema is never skipped.
func TestOutputUncheckableFailsClosed(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.deep", Input: raw(`{"type":"object"}`),
		Output: raw(`{"type":"array","maxItems":0}`),
		Run: func(context.Context, tooling.Call) (any, error) {
			var v any = []any{}
			for range 10001 {
				v = []any{v}
			}
			return v, nil
		}})
	res, err := r.Execute(context.Background(), "t.deep", raw(`{}`))
	if !errors.Is(err, codes.OutputInvalid) || res.Code != codes.OutputInvalid || res.Output != nil {
		t.Fatalf("code %q (%s), output %d bytes; want output_invalid and no output", res.Code, res.Message, len(res.Output))
	}
	if want := "t.deep returned output that cannot be checked against its output schema: "; !strings.HasPrefix(res.Message, want) {
		t.Fatalf("message %q, want it to start with %q", res.Message, want)
	}
}

// Outputs keep <, > and & as they are, in Output and in the Result's JSON.
func TestOutputNotHTMLEscaped(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.html", Input: raw(`{"type":"object"}`), Output: raw(`{"type":"object"}`),
		Run: func(context.Context, tooling.Call) (any, error) {
			return tooling.Followup{Output: map[string]string{"html": "<b>a & b</b>"}, Plan: map[string]string{"next": "<x>"}}, nil
		}})
	res := mustExec(t, r, "t.html", `{}`)
	if string(res.Output) != `{"html":"<b>a & b</b>"}` || string(res.Plan) != `{"next":"<x>"}` {
		t.Fatalf("output %s, plan %s", res.Output, res.Plan)
	}
	b, err := res.MarshalJSON()
	if err != nil || !strings.Contains(string(b), `"output":{"html":"<b>a & b</b>"}`) {
		t.Fatalf("MarshalJSON: %v\n%s", err, b)
	}
}

// A call with more failing fields than config max_field_errors lists the
// first ones in the value's order (items by index) and counts the others.
func TestFieldErrorsCapped(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.ids", Run: run, Input: raw(`{"type":"object","properties":{"ids":{"type":"array","items":{"type":"integer"}}}}`)})
	items := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = `"x"`
		}
		return `{"ids":[` + strings.Join(s, ",") + `]}`
	}
	// Validation stops once it has the first 100: more is a lower bound.
	res, _ := r.Execute(context.Background(), "t.ids", raw(items(10000)))
	if res.Code != codes.ValidationError || len(res.Fields) != 100 || res.MoreFields < 1 || res.MoreFields > 9900 {
		t.Fatalf("%s: %d fields, %d more; want 100 and 1 to 9900", res.Code, len(res.Fields), res.MoreFields)
	}
	for i, f := range res.Fields {
		if want := fmt.Sprintf("/ids/%d", i); f.Path != want || f.Message != "must be an integer, got a string" {
			t.Fatalf("field %d: %s, want %s: must be an integer, got a string", i, f, want)
		}
	}
	if !strings.HasPrefix(res.Message, fmt.Sprintf("at least %d invalid arguments, the first 100 listed (config max_field_errors; validation stopped there): /ids/0: ", 100+res.MoreFields)) {
		t.Fatalf("message %.200s", res.Message)
	}

	cfg := tooling.Settings{}
	cfg.MaxFieldErrors = 3
	if _, err := r.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	res, _ = r.Execute(context.Background(), "t.ids", raw(items(12)))
	var paths []string
	for _, f := range res.Fields {
		paths = append(paths, f.Path)
	}
	if strings.Join(paths, " ") != "/ids/0 /ids/1 /ids/2" || res.MoreFields < 1 {
		t.Fatalf("fields %v, %d more; want /ids/0 /ids/1 /ids/2 and more", paths, res.MoreFields)
	}
	b, _ := res.MarshalJSON()
	if !strings.Contains(string(b), fmt.Sprintf(`"more_fields":%d`, res.MoreFields)) {
		t.Fatalf("JSON without more_fields: %s", b)
	}
	// At or under the cap: every field, nothing more.
	res, _ = r.Execute(context.Background(), "t.ids", raw(items(3)))
	if len(res.Fields) != 3 || res.MoreFields != 0 {
		t.Fatalf("%d fields, %d more; want 3 and 0", len(res.Fields), res.MoreFields)
	}
	fields, _ := r.ValidateArgs("t.ids", raw(items(12)))
	if len(fields) != 3 {
		t.Fatalf("ValidateArgs: %d fields, want 3", len(fields))
	}
}

// Failing fields come in the order of the value: array items by index
// (/tags/2 before /tags/10), a place before the places inside it.
func TestFieldErrorsInDocumentOrder(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.tags", Run: run, Input: raw(`{"type":"object","properties":{
		"tags":{"type":"array","items":{"type":"string"}},
		"rows":{"type":"array","items":{"type":"object","properties":{"n":{"type":"integer"}}}}}}`)})
	tags := `["a","b",2,"d","e","f","g","h","i","j",10,"l"]`
	rows := `[{"n":0},{"n":1},{"n":"two"},{},{},{},{},{},{},{},{"n":"ten"},11]`
	res, _ := r.Execute(context.Background(), "t.tags", raw(`{"tags":`+tags+`,"rows":`+rows+`}`))
	var paths []string
	for _, f := range res.Fields {
		paths = append(paths, f.Path)
	}
	want := "/rows/2/n /rows/10/n /rows/11 /tags/2 /tags/10"
	if got := strings.Join(paths, " "); got != want {
		t.Fatalf("fields %s, want %s", got, want)
	}
	fields, _ := r.ValidateArgs("t.tags", raw(`{"tags":`+tags+`}`))
	if len(fields) != 2 || fields[0].Path != "/tags/2" || fields[1].Path != "/tags/10" {
		t.Fatalf("ValidateArgs: %v, want /tags/2 then /tags/10", fields)
	}
}

// An unknown property is matched against the properties of the schema that
// refused it, wherever that schema is: nested, under $defs, in array items.
func TestUnknownPropertyHintsInSubschemas(t *testing.T) {
	r := tooling.NewRegistry()
	r.Register(tooling.Tool{Name: "t.nested", Run: run, Input: raw(`{"type":"object",
		"properties":{
			"owner":{"$ref":"#/$defs/person"},
			"rows":{"type":"array","items":{"type":"object","properties":{"width":{"type":"integer"},"height":{"type":"integer"}},"additionalProperties":false}}},
		"$defs":{"person":{"type":"object","properties":{"name":{"type":"string"},"email":{"type":"string"}},"additionalProperties":false}}}`)})
	res, _ := r.Execute(context.Background(), "t.nested", raw(`{"owner":{"nmae":"x"},"rows":[{"width":1},{"hieght":2},{"x":3}]}`))
	got := map[string]string{}
	for _, f := range res.Fields {
		got[f.Path] = f.Message
	}
	want := map[string]string{
		"/owner/nmae":    `is not an allowed property (did you mean "name"?)`,
		"/rows/1/hieght": `is not an allowed property (did you mean "height"?)`,
		"/rows/2/x":      `is not an allowed property (allowed: height, width)`,
	}
	if len(got) != len(want) {
		t.Fatalf("fields %v, want %v", got, want)
	}
	for p, m := range want {
		if got[p] != m {
			t.Errorf("%s: %q, want %q", p, got[p], m)
		}
	}
}
