package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/toolexplorer/toolexplorer/history/collection"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var runCommand = &command{
	name:    "run",
	args:    "NAME [--args JSON | --args-file FILE | --args -] [--arg KEY=VALUE ...] [flags]",
	summary: "call a tool with JSON arguments and print the result",
	help: `Calls the tool NAME (or its exported spelling, like demo__echo) through the
registry, with every step of governance: enabled, origin, availability,
validation, consent, deadline. The arguments are a JSON object given with
--args, read from a file with --args-file, or from standard input with
"--args -" (or "--args-file -"); no arguments means {}. Each --arg
KEY=VALUE (repeatable) sets one argument on top of those, typed by the
tool's input schema: --arg repeat=3 is the number 3 for an integer
property, --arg upper=true a boolean, JSON for an object or array, the text
itself for a string.

Prints the result: its status and code, the message, each failing field on
its own line, the output, the times, the governance decisions, a hint, and
the stack of a panic. With --json, the whole result as JSON. When the call
is not ok, one line also goes to standard error. With --jq FILTER, only
what the jq filter (gojq: jq's language) makes of an ok call's output, each
value as JSON: --jq '.items[] | .name'. A filter that does not compile is a
usage error (2), one that fails on the output exits 1; a call that is not
ok prints its result as without --jq.

Ctrl-C cancels the call. Before the tool starts, also while the arguments
are read (--args -), nothing runs: exit status 3. Once the tool runs, the
call fails with canceled: exit status 1. A second Ctrl-C ends the program
at once.

Examples:

  $ toolexplorer run demo.echo --args '{"text":"hi"}'
  $ toolexplorer run demo.echo --arg text=hi --arg repeat=3 --jq .text
  $ toolexplorer run demo.write_note --consent --args-file note.json

Exit status:
  0  the call is ok
  1  the call failed after it started (status error: timeout, canceled,
     tool_error, panic, output_invalid, ...)
  2  usage error: bad flags, missing NAME, more than one source of
     arguments, an unreadable arguments file, a bad config file
  3  the call was refused before the tool ran (status denied: not_found,
     disabled, origin_denied, unavailable, validation_error,
     consent_required, idempotency_conflict, canceled, ...), or Ctrl-C came
     while the arguments were read: no call was made

With --idempotency-key KEY, a tool that takes idempotency keys runs the
first call made with KEY and keeps its outcome (config idempotency: in
memory for this process, or in a SQLite file with store: sqlite, so that a
later run with the same key replays it); a repeat with the same arguments
prints that outcome, marked replayed, and exits as it did, without running
the tool; the same key with other arguments is idempotency_conflict.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			cf     callFlags
			asJSON bool
			jq     string
		)
		cf.declare(fs)
		fs.BoolVar(&asJSON, "json", false, "print the whole result as JSON")
		fs.StringVar(&jq, "jq", "", "print what the jq `FILTER` makes of the output")
		return func(a *app, args []string) int {
			switch {
			case len(args) == 0:
				return a.usageError("run", "missing the tool NAME")
			case len(args) > 1:
				return a.usageError("run", "too many arguments: %s (pass the tool's arguments with --args)", strings.Join(args[1:], " "))
			case asJSON && jq != "":
				return a.usageError("run", "--json and --jq do not go together (--jq . prints the output as JSON)")
			}
			var filter *gojq.Code
			if jq != "" {
				var err error
				if filter, err = compileJQ(jq); err != nil {
					return a.usageError("run", "--jq: %v", err)
				}
			}
			// Interrupted before the call: nothing ran, as when the
			// registry refuses a call canceled before its start.
			raw, opts, code := cf.resolve(a, "run", args[0], fs, exitRefused)
			if code != exitOK {
				return code
			}
			a.startNoWorkers()
			if code := a.startLedger(); code != exitOK {
				return code
			}
			res, _ := a.reg.Execute(a.ctx, args[0], raw, opts...)
			if res.Code == codes.NotFound {
				if h := a.serverHint(args[0]); h != "" {
					res.Hint = h
				}
			}
			a.recordCall(cf.kept(raw), res, cf.consent, cf.idemKey)
			code = exitFor(res.Status)
			switch {
			case asJSON:
				if c := a.writeJSON(res); c != exitOK {
					return c
				}
			case filter != nil && res.OK():
				if err := writeJQ(a.ctx, a.stdout, filter, res.Output); err != nil {
					a.errorf("run %s: --jq: %v", res.Tool, err)
					return exitFailed
				}
			default:
				var b strings.Builder
				writeResult(&b, res)
				if _, err := io.WriteString(a.stdout, b.String()); err != nil {
					a.errorf("cannot write output: %v", err)
					return exitFailed
				}
			}
			if !res.OK() {
				a.errorf("run %s: %s: %s", res.Tool, res.Code, res.Message)
			}
			return code
		}
	},
}

// callFlags are the flags that say how to make a call: its arguments,
// origin, consent and deadline. run and bench share them.
type callFlags struct {
	argsJSON, argsFile, origin string
	argPairs                   argPairs
	consent                    bool
	timeout                    time.Duration
	idemKey                    string
	// env is --env, the environment whose variables fill the arguments'
	// {{name}} references; written are the arguments before they were
	// filled and vars the environment's variables, once resolve ran.
	env     string
	written json.RawMessage
	vars    collection.Vars
}

func (cf *callFlags) declare(fs *flag.FlagSet) {
	fs.StringVar(&cf.argsJSON, "args", "", "the arguments as a `JSON` object (\"-\" reads standard input)")
	fs.StringVar(&cf.argsFile, "args-file", "", "read the arguments from `FILE` (\"-\" reads standard input)")
	fs.Var(&cf.argPairs, "arg", "set one argument, `KEY=VALUE`, typed by the input schema (repeatable)")
	fs.StringVar(&cf.origin, "origin", "app", "call as origin `O`: app, ui, llm or system")
	fs.BoolVar(&cf.consent, "consent", false, "consent to the tool's side effects (tools that need consent refuse calls without it)")
	fs.DurationVar(&cf.timeout, "timeout", 0, "shorten the call's deadline to `DUR` (like 500ms or 2s; never lengthens it)")
	fs.StringVar(&cf.env, "env", "", "fill the arguments' {{variables}} from the config's environment `NAME`")
	fs.StringVar(&cf.idemKey, "idempotency-key", "", "make the call with idempotency key `KEY`: a tool that takes keys runs once per key and replays that outcome to a repeat (config idempotency)")
}

// resolve checks the parsed flags of fs and reads the arguments. It
// returns them with the call's options and exitOK. Otherwise it prints
// why, as an error of command cmd, and returns exitUsage for a usage
// error, or interrupted when a.ctx ends before the arguments are read:
// then the command must make no call.
//
// tool names the tool called: --arg values are typed by its input schema.
func (cf *callFlags) resolve(a *app, cmd, tool string, fs *flag.FlagSet, interrupted int) (json.RawMessage, []tooling.Option, int) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["args"] && set["args-file"] {
		return nil, nil, a.usageError(cmd, "give the arguments once: --args or --args-file, not both")
	}
	if cf.timeout < 0 || set["timeout"] && cf.timeout == 0 {
		return nil, nil, a.usageError(cmd, "--timeout must be positive, got %v", cf.timeout)
	}
	o, err := parseOrigin(a.reg, cf.origin)
	if err != nil {
		return nil, nil, a.usageError(cmd, "--origin: %v", err)
	}
	var (
		raw  []byte
		open func() (io.ReadCloser, error)
		from string
	)
	switch {
	case set["args"] && cf.argsJSON == "-", set["args-file"] && cf.argsFile == "-":
		open = func() (io.ReadCloser, error) { return io.NopCloser(a.stdin), nil }
		from = "the arguments from standard input"
	case set["args-file"]:
		open = func() (io.ReadCloser, error) { return os.Open(cf.argsFile) }
		from = "the arguments file"
	case set["args"]:
		raw = []byte(cf.argsJSON)
	}
	if open != nil {
		if raw, err = readArgs(a.ctx, a.cfg.MaxArgumentBytes, open); err != nil {
			if a.ctx.Err() != nil {
				a.errorf("%s: interrupted while reading %s: no call was made", cmd, from)
				return nil, nil, interrupted
			}
			return nil, nil, a.usageError(cmd, "cannot read %s: %v", from, err)
		}
	}
	if len(cf.argPairs) > 0 {
		var schema json.RawMessage
		if t, ok := a.reg.Lookup(tool); ok {
			schema = t.Input
		}
		if raw, err = applyArgPairs(raw, schema, cf.argPairs); err != nil {
			return nil, nil, a.usageError(cmd, "%v", err)
		}
	}
	if cf.env != "" {
		e, ok := a.cfg.Environments[cf.env]
		if !ok {
			return nil, nil, a.usageError(cmd, "--env: no environment %q: %s", cf.env, a.configEnvironments())
		}
		cf.vars = collection.Resolve(cf.env, environmentOf(e), a.getenv)
		cf.written = raw
		if raw, err = cf.vars.Expand(raw); err != nil {
			return nil, nil, a.usageError(cmd, "--env: %v", strings.TrimPrefix(err.Error(), "collection: "))
		}
	}
	opts := []tooling.Option{tooling.WithOrigin(o)}
	if cf.consent {
		opts = append(opts, tooling.WithConsent())
	}
	if cf.timeout > 0 {
		opts = append(opts, tooling.WithTimeout(cf.timeout))
	}
	if cf.idemKey != "" {
		opts = append(opts, tooling.WithIdempotencyKey(cf.idemKey))
	}
	return raw, opts, exitOK
}

// kept is what the history keeps of a call made with arguments sent: the
// arguments as written, their {{variable}} references and all, with the
// environment and its secrets to redact where the result echoes them.
func (cf *callFlags) kept(sent json.RawMessage) keptArgs {
	if cf.env == "" || len(collection.Refs(cf.written)) == 0 {
		return keptArgs{args: sent}
	}
	return keptArgs{args: cf.written, env: cf.env, secrets: cf.vars.Secrets()}
}

// keptArgs are the arguments the history keeps of a call.
type keptArgs struct {
	args    json.RawMessage
	env     string
	secrets []string
}

// readArgs opens a source of arguments and reads it, stopping one byte
// past limit (when positive): enough for the registry to refuse them as
// too large without holding an endless stream in memory.
//
// Once ctx ends, readArgs returns ctx.Err() at once rather than wait for a
// source that may never be written to (a terminal, a pipe, a FIFO): the
// read goes on in the background until the source ends, and what it reads
// is dropped.
func readArgs(ctx context.Context, limit int64, open func() (io.ReadCloser, error)) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		rc, err := open()
		if err != nil {
			done <- read{err: err}
			return
		}
		defer rc.Close()
		var r io.Reader = rc
		if limit > 0 {
			r = io.LimitReader(r, limit+1)
		}
		b, err := io.ReadAll(r)
		done <- read{b, err}
	}()
	select {
	case rd := <-done:
		if err := ctx.Err(); err != nil { // ended together: the interrupt wins
			return nil, err
		}
		return rd.b, rd.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// writeResult prints a result for people.
func writeResult(w io.Writer, res *tooling.Result) {
	replayed := ""
	if res.Replayed {
		replayed = ", replayed: the tool did not run again"
	}
	if res.OK() {
		fmt.Fprintf(w, "%s: ok%s\n", res.Tool, replayed)
	} else {
		fmt.Fprintf(w, "%s: %s (%s)%s\n", res.Tool, res.Status, res.Code, replayed)
		fmt.Fprintf(w, "  %s\n", res.Message)
	}
	if len(res.Fields) > 0 {
		fmt.Fprintln(w, "fields:")
		for _, f := range res.Fields {
			fmt.Fprintf(w, "  %s\n", f)
		}
		if res.MoreFields > 0 {
			fmt.Fprintf(w, "  ... and %d more (config max_field_errors)\n", res.MoreFields)
		}
	}
	if res.Output != nil {
		fmt.Fprintln(w, "output:")
		fmt.Fprintf(w, "  %s\n", prettyJSON(res.Output, "  "))
	}
	if len(res.Plan) > 0 {
		fmt.Fprintln(w, "follow-up plan:")
		fmt.Fprintf(w, "  %s\n", prettyJSON(res.Plan, "  "))
	}
	fmt.Fprintf(w, "call: %s (origin %s)\n", res.CallID, res.Origin)
	if res.Timeout > 0 { // the call reached its deadline step
		fmt.Fprintf(w, "time: wait %s, run %s, deadline %s\n", roundDuration(res.Wait), roundDuration(res.Run), res.Timeout)
	}
	if len(res.Governance) > 0 {
		fmt.Fprintln(w, "governance:")
		for _, d := range res.Governance {
			fmt.Fprintf(w, "  %s: %s\n", d.Step, d.Detail)
		}
	}
	if res.Abandoned {
		fmt.Fprintln(w, "abandoned: the tool had not returned when the call ended")
	}
	if res.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", res.Hint)
	}
	if res.Stack != "" {
		fmt.Fprintln(w, "stack:")
		fmt.Fprintf(w, "  %s\n", indentLines(strings.TrimRight(res.Stack, "\n"), "  "))
	}
}

// roundDuration keeps three significant figures or so: 1.23ms, 45.6µs.
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	case d >= time.Microsecond:
		return d.Round(10 * time.Nanosecond).String()
	}
	return d.String()
}

func indentLines(s, prefix string) string {
	return strings.ReplaceAll(s, "\n", "\n"+prefix)
}
