package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var runCommand = &command{
	name:    "run",
	args:    "NAME [--args JSON | --args-file FILE | --args -] [flags]",
	summary: "call a tool with JSON arguments and print the result",
	help: `Calls the tool NAME (or its exported spelling, like demo__echo) through the
registry, with every step of governance: enabled, origin, availability,
validation, consent, deadline. The arguments are a JSON object given with
--args, read from a file with --args-file, or from standard input with
"--args -" (or "--args-file -"); no arguments means {}.

Prints the result: its status and code, the message, each failing field on
its own line, the output, the times, the governance decisions, a hint, and
the stack of a panic. With --json, the whole result as JSON. When the call
is not ok, one line also goes to standard error.

Exit status:
  0  the call is ok
  1  the call failed after it started (status error: timeout, canceled,
     tool_error, panic, output_invalid, ...)
  2  usage error: bad flags, missing NAME, more than one source of
     arguments, an unreadable arguments file, a bad config file
  3  the call was refused before the tool ran (status denied: not_found,
     disabled, origin_denied, unavailable, validation_error,
     consent_required, ...)
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			argsJSON, argsFile, origin string
			consent, asJSON            bool
			timeout                    time.Duration
		)
		fs.StringVar(&argsJSON, "args", "", "the arguments as a `JSON` object (\"-\" reads standard input)")
		fs.StringVar(&argsFile, "args-file", "", "read the arguments from `FILE` (\"-\" reads standard input)")
		fs.StringVar(&origin, "origin", "app", "call as origin `O`: app, ui, llm or system")
		fs.BoolVar(&consent, "consent", false, "consent to the tool's side effects (tools that need consent refuse calls without it)")
		fs.DurationVar(&timeout, "timeout", 0, "shorten the call's deadline to `DUR` (like 500ms or 2s; never lengthens it)")
		fs.BoolVar(&asJSON, "json", false, "print the whole result as JSON")
		return func(a *app, args []string) int {
			switch {
			case len(args) == 0:
				return a.usageError("run", "missing the tool NAME")
			case len(args) > 1:
				return a.usageError("run", "too many arguments: %s (pass the tool's arguments with --args)", strings.Join(args[1:], " "))
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if set["args"] && set["args-file"] {
				return a.usageError("run", "give the arguments once: --args or --args-file, not both")
			}
			if timeout < 0 || set["timeout"] && timeout == 0 {
				return a.usageError("run", "--timeout must be positive, got %v", timeout)
			}
			o, err := parseOrigin(a.reg, origin)
			if err != nil {
				return a.usageError("run", "--origin: %v", err)
			}
			var raw []byte
			switch {
			case set["args"] && argsJSON == "-", set["args-file"] && argsFile == "-":
				if raw, err = readArgs(a.stdin, a.cfg.MaxArgumentBytes); err != nil {
					return a.usageError("run", "cannot read the arguments from standard input: %v", err)
				}
			case set["args-file"]:
				f, err := os.Open(argsFile)
				if err == nil {
					raw, err = readArgs(f, a.cfg.MaxArgumentBytes)
					f.Close()
				}
				if err != nil {
					return a.usageError("run", "cannot read the arguments file: %v", err)
				}
			case set["args"]:
				raw = []byte(argsJSON)
			}

			opts := []tooling.Option{tooling.WithOrigin(o)}
			if consent {
				opts = append(opts, tooling.WithConsent())
			}
			if timeout > 0 {
				opts = append(opts, tooling.WithTimeout(timeout))
			}
			res, _ := a.reg.Execute(a.ctx, args[0], raw, opts...)
			code := exitFor(res.Status)
			if asJSON {
				if c := a.writeJSON(res); c != exitOK {
					return c
				}
			} else {
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

// readArgs reads arguments, stopping one byte past limit (when positive):
// enough for the registry to refuse them as too large without holding an
// endless stream in memory.
func readArgs(r io.Reader, limit int64) ([]byte, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	return io.ReadAll(r)
}

// writeResult prints a result for people.
func writeResult(w io.Writer, res *tooling.Result) {
	if res.OK() {
		fmt.Fprintf(w, "%s: ok\n", res.Tool)
	} else {
		fmt.Fprintf(w, "%s: %s (%s)\n", res.Tool, res.Status, res.Code)
		fmt.Fprintf(w, "  %s\n", res.Message)
	}
	if len(res.Fields) > 0 {
		fmt.Fprintln(w, "fields:")
		for _, f := range res.Fields {
			fmt.Fprintf(w, "  %s\n", f)
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
