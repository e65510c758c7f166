package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var explainCommand = &command{
	name:    "explain",
	args:    "NAME [--args JSON | --args-file FILE | --args -] [--arg KEY=VALUE ...] [flags]",
	summary: "say what a call would meet, step by step, without making it",
	help: `Runs the preflight of a call of the tool NAME, with the same flags as run
(--args, --arg, --origin, --consent, --timeout, --idempotency-key; --as
for the principal), and changes nothing: the tool does not run, no rate
token is spent, no lock or idempotency key is taken, no consent is asked.

Prints each step as the call would meet it now: look-up, state, enabled,
origin, availability, validation, policy (naming the rule), consent,
idempotency (would replay, wait or conflict), the config's limits per
caller and budgets (what each leaves; nothing is spent), rate, deadline,
slot, locks or main thread (would wait, and for whom), confinement (the
profile's hash); then the verdict: the call would run, or the code it
would be refused with. Telemetry and the limits shared over Redis are not
consulted. With --json, the result as JSON, its governance being the
steps.

Example: what a call of a tool that writes, made without consent, would
meet:

  $ toolexplorer explain demo.write_note --args '{"text":"x"}'

Exit status:
  0  the call would run (or be replayed)
  2  usage error
  3  the call would be refused
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			cf     callFlags
			asJSON bool
		)
		cf.declare(fs)
		fs.BoolVar(&asJSON, "json", false, "print the result as JSON")
		return func(a *app, args []string) int {
			switch {
			case len(args) == 0:
				return a.usageError("explain", "missing the tool NAME")
			case len(args) > 1:
				return a.usageError("explain", "too many arguments: %s (pass the tool's arguments with --args)", strings.Join(args[1:], " "))
			}
			raw, opts, code := cf.resolve(a, "explain", args[0], fs, exitRefused)
			if code != exitOK {
				return code
			}
			res, _ := a.reg.Explain(a.ctx, args[0], raw, opts...)
			if asJSON {
				if c := a.writeJSON(res); c != exitOK {
					return c
				}
			} else {
				var b strings.Builder
				writeExplanation(&b, res)
				if _, err := io.WriteString(a.stdout, b.String()); err != nil {
					a.errorf("cannot write output: %v", err)
					return exitFailed
				}
			}
			if res.Code != codes.OK && !res.Replayed {
				return exitRefused
			}
			return exitOK
		}
	},
}

// writeExplanation prints the steps of an explained call and its verdict.
func writeExplanation(w io.Writer, res *tooling.Result) {
	for _, d := range res.Governance {
		fmt.Fprintf(w, "  %-12s %s\n", d.Step, d.Detail)
	}
	switch {
	case res.Replayed:
		fmt.Fprintf(w, "%s: would be replayed (%s), not run\n", res.Tool, orText(string(res.Code), "ok"))
	case res.Code == codes.OK:
		fmt.Fprintf(w, "%s: would run\n", res.Tool)
	default:
		fmt.Fprintf(w, "%s: would be refused (%s): %s\n", res.Tool, res.Code, res.Message)
	}
	if res.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", res.Hint)
	}
}
