package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// decodeResult reads the result run --json prints.
func decodeResult(t *testing.T, o outcome) *tooling.Result {
	t.Helper()
	var res tooling.Result
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil {
		t.Fatalf("stdout is not a JSON result: %v\n%s", err, o)
	}
	return &res
}

func outputField(t *testing.T, res *tooling.Result, key string) any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(res.Output, &out); err != nil {
		t.Fatalf("output %s is not an object: %v", res.Output, err)
	}
	return out[key]
}

func TestRun(t *testing.T) {
	argsFile := writeFile(t, "args.json", `{"text": "from a file"}`)
	tests := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		stdout  []string // each must occur in stdout (text form)
		stderr  []string
		checkFn func(t *testing.T, res *tooling.Result) // for --json runs
	}{
		{
			name: "echo ok as JSON",
			args: []string{"run", "demo.echo", "--args", `{"text":"hi","repeat":2}`, "--json"},
			code: exitOK,
			checkFn: func(t *testing.T, res *tooling.Result) {
				if res.Status != "ok" || res.Code != codes.OK {
					t.Errorf("status %s, code %q, want ok", res.Status, res.Code)
				}
				if got := outputField(t, res, "text"); got != "hi hi" {
					t.Errorf("output text %q, want \"hi hi\"", got)
				}
			},
		},
		{
			name: "the local user calls by default",
			args: []string{"run", "demo.echo", "--args", `{"text":"hi"}`, "--json"},
			code: exitOK,
			checkFn: func(t *testing.T, res *tooling.Result) {
				if p := res.Principal; p.Subject != localUser(os.Getenv) || p.Auth != "local" || p.Tenant != "" {
					t.Errorf("principal %+v, want the local user %q", p, localUser(os.Getenv))
				}
			},
		},
		{
			name: "--as and --tenant, before or after the command",
			args: []string{"--tenant", "acme", "run", "--as", "alice", "demo.echo", "--args", `{"text":"hi"}`, "--json"},
			code: exitOK,
			checkFn: func(t *testing.T, res *tooling.Result) {
				if p := res.Principal; p.String() != "alice@acme" || p.Auth != "asserted" {
					t.Errorf("principal %+v, want alice@acme, asserted", p)
				}
			},
		},
		{
			name:   "echo ok as text",
			args:   []string{"run", "demo.echo", "--args", `{"text":"hi","repeat":2}`},
			code:   exitOK,
			stdout: []string{"demo.echo: ok\n", `"text": "hi hi"`, "governance:\n  timeout: 30s (config default)\n"},
		},
		{
			name:   "echo with flags before the name and the exported spelling",
			args:   []string{"run", "--json", "--args", `{"text":"hi"}`, "demo__echo"},
			code:   exitOK,
			stdout: []string{`"tool": "demo.echo"`, `"status": "ok"`},
		},
		{
			name:   "echo with two invalid fields",
			args:   []string{"run", "demo.echo", "--args", `{"repeat":0}`},
			code:   exitRefused,
			stdout: []string{"denied (validation_error)", "\n  /text: is required but missing\n", "\n  /repeat: must be at least 1, got 0\n"},
			stderr: []string{"toolexplorer: run demo.echo: validation_error: "},
		},
		{
			name: "echo with two invalid fields as JSON",
			args: []string{"run", "demo.echo", "--args", `{"repeat":0}`, "--json"},
			code: exitRefused,
			checkFn: func(t *testing.T, res *tooling.Result) {
				paths := map[string]bool{}
				for _, f := range res.Fields {
					paths[f.Path] = true
				}
				if res.Status != "denied" || !paths["/text"] || !paths["/repeat"] {
					t.Errorf("status %s, fields %+v: want denied with /text and /repeat", res.Status, res.Fields)
				}
			},
		},
		{
			name:   "malformed arguments",
			args:   []string{"run", "demo.echo", "--args", `{"text":`},
			code:   exitRefused,
			stdout: []string{"validation_error", "malformed JSON"},
		},
		{
			name:   "arguments from stdin",
			args:   []string{"run", "demo.echo", "--args", "-"},
			stdin:  `{"text":"from stdin","upper":true}`,
			code:   exitOK,
			stdout: []string{`"text": "FROM STDIN"`},
		},
		{
			name:   "arguments file from stdin",
			args:   []string{"run", "demo.echo", "--args-file", "-"},
			stdin:  `{"text":"piped"}`,
			code:   exitOK,
			stdout: []string{`"text": "piped"`},
		},
		{
			name:   "arguments from a file",
			args:   []string{"run", "demo.echo", "--args-file", argsFile},
			code:   exitOK,
			stdout: []string{`"text": "from a file"`},
		},
		{
			name: "timeout of a tool that ignores its context",
			args: []string{"run", "demo.slow", "--args", `{"ms":3000,"ignore_cancel":true}`, "--json"},
			code: exitFailed,
			checkFn: func(t *testing.T, res *tooling.Result) {
				// Abandoned: the call returned at its deadline while the tool still slept.
				if res.Code != codes.Timeout || res.Status != "error" || !res.Abandoned {
					t.Errorf("status %s, code %q, abandoned %v: want error, timeout, abandoned", res.Status, res.Code, res.Abandoned)
				}
			},
		},
		{
			name:   "caller's timeout",
			args:   []string{"run", "demo.slow", "--args", `{"ms":2000}`, "--timeout", "50ms"},
			code:   exitFailed,
			stdout: []string{"error (timeout)", "timeout: 50ms (caller)"},
		},
		{
			name: "panic",
			args: []string{"run", "demo.fail", "--args", `{"mode":"panic"}`, "--json"},
			code: exitFailed,
			checkFn: func(t *testing.T, res *tooling.Result) {
				if res.Code != codes.Panic || !strings.Contains(res.Stack, "demotools") {
					t.Errorf("code %q, stack %q: want panic with the tool's stack", res.Code, res.Stack)
				}
			},
		},
		{
			name:   "panic as text shows the stack",
			args:   []string{"run", "demo.fail", "--args", `{"mode":"panic"}`},
			code:   exitFailed,
			stdout: []string{"error (panic)", "demo panic requested", "stack:\n  goroutine "},
		},
		{
			name:   "tool error",
			args:   []string{"run", "demo.fail", "--args", `{"mode":"error"}`},
			code:   exitFailed,
			stdout: []string{"error (tool_error)", "demo failure requested"},
		},
		{
			name:   "output invalid",
			args:   []string{"run", "demo.fail", "--args", `{"mode":"bad_output"}`},
			code:   exitFailed,
			stdout: []string{"error (output_invalid)", "/ok"},
		},
		{
			name:   "consent required",
			args:   []string{"run", "demo.write_note", "--args", `{"text":"remember"}`},
			code:   exitRefused,
			stdout: []string{"denied (consent_required)", "hint: "},
		},
		{
			name:   "consent given",
			args:   []string{"run", "demo.write_note", "--args", `{"text":"remember"}`, "--consent"},
			code:   exitOK,
			stdout: []string{`"id": "note-`, "consent: given"},
		},
		{
			name:   "origin denied",
			args:   []string{"run", "demo.llm_only"},
			code:   exitRefused,
			stdout: []string{"denied (origin_denied)"},
		},
		{
			name:   "origin allowed",
			args:   []string{"run", "demo.llm_only", "--origin", "llm"},
			code:   exitOK,
			stdout: []string{"demo.llm_only: ok", "call: ", "(origin llm)"},
		},
		{
			name:   "unavailable",
			args:   []string{"run", "demo.unavailable"},
			code:   exitRefused,
			stdout: []string{"denied (unavailable)"},
		},
		{
			name:   "unknown tool",
			args:   []string{"run", "demo.ecoh", "--args", `{"text":"hi"}`},
			code:   exitRefused,
			stdout: []string{"denied (not_found)"},
			stderr: []string{`did you mean "demo.echo"?`},
		},
		{
			name:   "tool name without its group",
			args:   []string{"run", "echo", "--args", `{"text":"hi"}`},
			code:   exitRefused,
			stdout: []string{"echo: denied (not_found)", `no tool named "echo" (did you mean "demo.echo"?)`},
			stderr: []string{`toolexplorer: run echo: not_found: no tool named "echo" (did you mean "demo.echo"?)`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, tt.stdin, tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", o.code, tt.code, o)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(o.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(o.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
				}
			}
			if tt.code == exitOK && o.stderr != "" {
				t.Errorf("stderr of a call that is ok is not empty:\n%s", o.stderr)
			}
			if tt.code != exitOK && strings.Count(o.stderr, "\n") != 1 {
				t.Errorf("stderr of a call that is not ok is not one line:\n%s", o.stderr)
			}
			if tt.checkFn != nil {
				tt.checkFn(t, decodeResult(t, o))
			}
		})
	}
}

// TestRunCanceled: canceled before the tool started, nothing happened: the
// call is refused (status denied, exit 3); canceled while it runs, it failed
// (status error, exit 1).
func TestRunCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := cliContext(t, ctx, "", "run", "demo.echo", "--args", `{"text":"hi"}`, "--json")
	if res := decodeResult(t, o); o.code != exitRefused || res.Code != codes.Canceled || res.Status != "denied" {
		t.Fatalf("canceled before the start: exit %d, code %q, status %q\n%s", o.code, res.Code, res.Status, o)
	}
	// Canceled once the tool runs (not at a fixed time, which a loaded machine may reach
	// before the call starts, nor once the call is merely in flight: between its begin and
	// its run it is still refused); demo.slow would sleep 3000 ms, past its 500 ms deadline.
	// The cancel must come within those 500 ms: on a machine so loaded that it does not, the
	// call ends with timeout and is made again. Calls of demo.slow that earlier tests gave up
	// on may still sleep, and count as running: they end first.
	const attempts = 20
	for attempt := 1; ; attempt++ {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(time.Millisecond) { // a hang guard
			if s, _ := toolStats(tooling.Default(), "demo.slow"); s.Running == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("earlier calls of demo.slow still run")
			}
		}
		ctx, cancel := context.WithCancel(context.Background())
		canceled := make(chan struct{})
		go func() {
			defer close(canceled)
			defer cancel()
			for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(time.Millisecond) {
				if s, _ := toolStats(tooling.Default(), "demo.slow"); s.Running > 0 {
					return
				}
			}
		}()
		o = cliContext(t, ctx, "", "run", "demo.slow", "--args", `{"ms":3000}`, "--json")
		cancel()
		<-canceled
		res := decodeResult(t, o)
		if res.Code == codes.Timeout && attempt < attempts {
			t.Logf("attempt %d: demo.slow reached its 500 ms deadline before the cancel; running it again", attempt)
			continue
		}
		if o.code != exitFailed || res.Code != codes.Canceled || res.Status != "error" {
			t.Fatalf("canceled while running: exit %d, code %q, status %q\n%s", o.code, res.Code, res.Status, o)
		}
		break
	}
}

func TestExitFor(t *testing.T) {
	// Result.Status: which codes are refusals is tooling's to say (and test).
	for status, want := range map[string]int{"ok": exitOK, "denied": exitRefused, "error": exitFailed} {
		if got := exitFor(status); got != want {
			t.Errorf("status %q: exit %d, want %d", status, got, want)
		}
	}
}

// echoCalls counts the calls of demo.echo the default registry has seen.
func echoCalls() uint64 {
	s, _ := toolStats(tooling.Default(), "demo.echo")
	return s.Calls
}

// TestArgsReadInterrupted: Ctrl-C while run or bench waits for arguments on
// a standard input that is never written ends the command at once, and no
// call is made: run exits 3 as for a call canceled before its start, bench
// exits 1 as when interrupted.
func TestArgsReadInterrupted(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"run --args -", []string{"run", "demo.echo", "--args", "-"}, exitRefused},
		{"run --args-file -", []string{"run", "demo.echo", "--args-file", "-", "--json"}, exitRefused},
		{"bench --args -", []string{"bench", "demo.echo", "--args", "-", "-n", "3"}, exitFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdin, w := io.Pipe()
			defer w.Close()
			before := echoCalls()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			time.AfterFunc(50*time.Millisecond, cancel)
			var stdout, stderr bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- run(ctx, tt.args, stdin, &stdout, &stderr) }()
			var code int
			select {
			case code = <-done:
			case <-time.After(2 * time.Minute): // a hang guard
				w.Close() // end standard input, to see what the command does then
				<-done
				t.Fatalf("still reading standard input 2m after the interrupt; then made %d calls", echoCalls()-before)
			}
			o := outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
			if o.code != tt.code {
				t.Errorf("exit %d, want %d\n%s", o.code, tt.code, o)
			}
			want := "toolexplorer: " + tt.args[0] + ": interrupted while reading the arguments from standard input: no call was made\n"
			if o.stderr != want || o.stdout != "" {
				t.Errorf("want nothing on stdout and %q on stderr\n%s", want, o)
			}
			if n := echoCalls() - before; n != 0 {
				t.Errorf("%d calls of demo.echo were made, want none", n)
			}
		})
	}
}

// TestArgsReadInterruptedWithInput: once interrupted, arguments that are
// there to read do not make the call happen anyway.
func TestArgsReadInterruptedWithInput(t *testing.T) {
	before := echoCalls()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := cliContext(t, ctx, `{"text":"hi"}`, "run", "demo.echo", "--args", "-")
	if o.code != exitRefused || !strings.Contains(o.stderr, "no call was made") {
		t.Errorf("exit %d, want %d and no call\n%s", o.code, exitRefused, o)
	}
	if n := echoCalls() - before; n != 0 {
		t.Errorf("%d calls of demo.echo were made, want none", n)
	}
}

// run prints outputs with <, > and & as they are, as text and with --json.
func TestRunOutputNotHTMLEscaped(t *testing.T) {
	for _, args := range [][]string{{}, {"--json"}} {
		o := cli(t, "", append([]string{"run", "demo.echo", "--args", `{"text":"<b>&"}`}, args...)...)
		if o.code != exitOK || !strings.Contains(o.stdout, `"text": "<b>&"`) || strings.Contains(o.stdout, `\u00`) {
			t.Errorf("run %v:\n%s", args, o)
		}
	}
}

// TestRunEscapesControlCharacters: what a tool returns and what a call's
// error says reach the terminal with their control characters escaped,
// in text and in JSON (which stays JSON with the same value).
func TestRunEscapesControlCharacters(t *testing.T) {
	const evil = "\x1b]0;owned\x07\x1b[2K\x1b[1A\rok \u009b2J"
	clean := func(t *testing.T, where, s string) {
		t.Helper()
		if strings.ContainsAny(s, "\x1b\x07\r\u009b") {
			t.Errorf("%s holds control characters: %q", where, s)
		}
	}
	for _, args := range [][]string{{}, {"--json"}} {
		text, _ := json.Marshal(map[string]string{"text": evil})
		o := cli(t, "", append([]string{"run", "demo.echo", "--args", string(text)}, args...)...)
		if o.code != exitOK {
			t.Fatalf("run %v:\n%s", args, o)
		}
		clean(t, "output", o.stdout)
		if len(args) > 0 {
			if got := outputField(t, decodeResult(t, o), "text"); got != evil {
				t.Errorf("JSON output text %q, want %q", got, evil)
			}
		}
		o = cli(t, "", append([]string{"run", "demo." + evil}, args...)...)
		if o.code == exitOK || !strings.Contains(o.stderr+o.stdout, `\x1b]0;owned\x07`) {
			t.Errorf("run of an unknown tool named with escapes:\n%s", o)
		}
		clean(t, "stdout", o.stdout)
		clean(t, "stderr", o.stderr)
	}
}

// run lists the first max_field_errors failing fields and counts the rest.
func TestRunCountsMoreFields(t *testing.T) {
	cfg := writeFile(t, "c.json", `{"max_field_errors": 1}`)
	o := cli(t, "", "--config", cfg, "run", "demo.echo", "--args", `{"text":3,"repeat":"x","extra":true}`)
	if o.code != exitRefused || !strings.Contains(o.stdout, "fields:\n  /extra: ") || !strings.Contains(o.stdout, "  ... and 2 more (config max_field_errors)\n") {
		t.Fatalf("run:\n%s", o)
	}
}

// TestRunJQ: run --jq prints what a jq filter makes of an ok call's
// output, each value as JSON; a filter that does not compile is a usage
// error before any call, one that fails on the output exits 1, and a call
// that is not ok prints its result as without --jq.
func TestRunJQ(t *testing.T) {
	o := cli(t, "", "run", "demo.echo", "--args", `{"text":"hi <b>","repeat":2}`, "--jq", `.text, (.text | length), {t: .text}`)
	if want := "\"hi <b> hi <b>\"\n13\n{\n  \"t\": \"hi <b> hi <b>\"\n}\n"; o.code != exitOK || o.stdout != want {
		t.Fatalf("want %q:\n%s", want, o)
	}
	o = cli(t, "", "run", "demo.echo", "--args", `{"text":"hi"}`, "--jq", `.text |`)
	if o.code != exitUsage || !strings.Contains(o.stderr, "--jq:") {
		t.Fatalf("a filter that does not compile:\n%s", o)
	}
	o = cli(t, "", "run", "demo.echo", "--args", `{"text":"hi"}`, "--jq", `.text | keys`)
	if o.code != exitFailed || !strings.Contains(o.stderr, "--jq:") {
		t.Fatalf("a filter that fails:\n%s", o)
	}
	o = cli(t, "", "run", "demo.echo", "--args", `{"text":"hi"}`, "--jq", ".", "--json")
	if o.code != exitUsage {
		t.Fatalf("--jq with --json:\n%s", o)
	}
	o = cli(t, "", "run", "demo.echo", "--args", `{"repeat":"x"}`, "--jq", ".text")
	if o.code != exitRefused || !strings.Contains(o.stdout, "validation_error") {
		t.Fatalf("a call refused:\n%s", o)
	}
}
