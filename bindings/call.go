package bindings

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// fileTool is one tool of a tools file: its binding wrapped with
// credentials, shadow mode, retries and the ledger.
type fileTool struct {
	set         *Set
	name        string
	kind        string
	source      string
	pos         Pos
	path        string // in its file, like "tools[3]"
	b           binding
	tool        tooling.Tool
	shadow      bool // the tool or its source says shadow: true
	idempotent  bool
	vars        []string // every ${NAME} of the binding and its source
	required    []string // those without a default
	binding     json.RawMessage
	fingerprint string
}

func (ft *fileTool) addVars(s string) {
	names, defaulted := envVars(s)
	for _, n := range names {
		if !slices.Contains(ft.vars, n) {
			ft.vars = append(ft.vars, n)
			slices.Sort(ft.vars)
		}
		if !defaulted[n] && !slices.Contains(ft.required, n) {
			ft.required = append(ft.required, n)
			slices.Sort(ft.required)
		}
	}
}

// available says the tool cannot run while a variable it needs is unset.
func (ft *fileTool) available(context.Context, tooling.Call) error {
	for _, n := range ft.required {
		if _, ok := ft.set.env(n); !ok {
			return &MissingEnvError{Name: n}
		}
	}
	return nil
}

// The retry policy: attempts in all, and the backoff between them.
var (
	maxAttempts     = 4
	initialInterval = 100 * time.Millisecond
	maxInterval     = 5 * time.Second
)

// run is the tool's Run: one call of the binding, in shadow mode when
// asked, retried on a *TransientError when the call may be repeated,
// reported in the Result's governance and the end Event's Detail.
func (ft *fileTool) run(ctx context.Context, c tooling.Call) (any, error) {
	if !ft.set.enter() {
		// The set was replaced between the call's look-up and now: the
		// call runs on the tool that replaced this one.
		if next := ft.set.next.Load(); next != nil {
			for _, nt := range next.tools {
				if nt.name == ft.name {
					return nt.run(ctx, c)
				}
			}
		}
		return nil, errors.New("its tools file was reloaded and the tool removed while the call started")
	}
	defer ft.set.leave()
	shadow := ft.b.writes() && (ft.shadow || ft.set.shadow.Load())
	req := &Request{Tool: c.Tool, Args: c.Args, Shadow: shadow, IdempotencyKey: c.IdempotencyKey, Env: ft.set.env}
	sec := resolvedSecrets(ft.vars, ft.set.env)
	mode := "active"
	if shadow {
		mode = "shadow"
	}
	retry := !ft.b.writes() || ft.idempotent || c.IdempotencyKey != ""
	bo := backoff.NewExponentialBackOff()
	bo.InitialInterval, bo.MaxInterval = initialInterval, maxInterval
	bo.Reset()

	start := time.Now()
	var out Outcome
	var err error
	attempts := 0
	for {
		attempts++
		out, err = ft.b.do(ctx, req)
		var te *TransientError
		if err == nil || !errors.As(err, &te) || ctx.Err() != nil {
			break
		}
		if !retry {
			c.Decide("retry", "none: a write is retried only when the tool is idempotent or the call carries an idempotency key")
			break
		}
		if attempts >= maxAttempts {
			c.Decide("retry", fmt.Sprintf("gave up after %d attempts", attempts))
			break
		}
		wait := bo.NextBackOff()
		if te.After > wait {
			wait = te.After
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			c.Decide("retry", fmt.Sprintf("gave up after %d attempts: the next, in %v, would pass the deadline", attempts, wait.Round(time.Millisecond)))
			break
		}
		c.Decide("retry", fmt.Sprintf("attempt %d failed (%s); attempt %d in %v", attempts, sec.redact(err.Error()), attempts+1, wait.Round(time.Millisecond)))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
		if ctx.Err() != nil {
			break
		}
	}
	elapsed := time.Since(start)

	var output json.RawMessage
	status := out.Status
	if err == nil {
		o := out.Output
		if shadow {
			o = markShadow(o)
		}
		var b []byte
		var merr error
		if raw, ok := o.(json.RawMessage); ok {
			b = raw // the registry checks that it is JSON
		} else {
			b, merr = json.Marshal(o)
		}
		switch {
		case merr != nil:
			err = fmt.Errorf("the %s binding's output cannot be written as JSON: %v", ft.kind, merr)
		case len(sec) > 0:
			output = sec.redactJSON(b)
		default:
			output = b
		}
	}
	if err != nil {
		status = "error"
		var me *MissingEnvError
		if errors.As(err, &me) {
			status = "unavailable"
		}
	}
	if shadow {
		c.Decide("shadow", "a write in shadow mode: built and returned, not sent")
	}
	c.Decide("binding", fmt.Sprintf("%s via source %s, %s mode: %s (%s)", ft.kind, ft.source, mode, sec.redact(status), plural(attempts, "attempt")))
	c.SetDetail("binding", ft.kind)
	c.SetDetail("source", ft.source)
	c.SetDetail("mode", mode)
	c.SetDetail("attempts", strconv.Itoa(attempts))
	c.SetDetail("status", sec.redact(status))
	c.SetDetail("elapsed_ms", strconv.FormatFloat(float64(elapsed.Microseconds())/1000, 'f', 3, 64))
	c.SetDetail("response_bytes", strconv.Itoa(out.ResponseBytes))
	if output != nil {
		sum := sha256.Sum256(output)
		c.SetDetail("response_sha256", hex.EncodeToString(sum[:]))
	}
	for k, v := range out.Effects {
		c.SetDetail("effect."+k, sec.redact(v))
	}
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, redactedError{msg: sec.redact(err.Error()), err: err}
	}
	return output, nil
}

// redactedError is a binding's error with credentials shown as ${NAME}.
type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }

// Unwrap gives only errors whose text is known to be free of credentials.
func (e redactedError) Unwrap() error {
	var me *MissingEnvError
	if errors.As(e.err, &me) {
		return me
	}
	return nil
}

// markShadow marks a shadow call's output: "shadow": true in an object, or
// the output wrapped in one.
func markShadow(o any) any {
	if _, isMap := o.(map[string]any); !isMap {
		if b, err := json.Marshal(o); err == nil && len(b) > 0 && b[0] == '{' {
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil {
				if _, taken := m["shadow"]; !taken {
					m["shadow"] = json.RawMessage("true")
				}
				return m
			}
		}
	}
	if m, ok := o.(map[string]any); ok {
		if _, taken := m["shadow"]; !taken {
			c := make(map[string]any, len(m)+1)
			for k, v := range m {
				c[k] = v
			}
			c["shadow"] = true
			return c
		}
	}
	return map[string]any{"shadow": true, "request": o}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}
