package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var describeCommand = &command{
	name:    "describe",
	args:    "NAME [flags]",
	summary: "show everything about one tool: meta, availability, schemas",
	help: `Shows everything about the tool NAME (or its exported spelling, like
demo__echo): title, description, every meta field with its zero value
spelled out, whether calls need consent, whether it can run now and why not,
its input and output schemas, and the name it is exported under. A tool
the access rules hide from the caller (--as) is not found, as list leaves
it out.

Examples:

  $ toolexplorer describe demo.echo
  $ toolexplorer describe demo__echo --json

Exit status: 0; 3 when no tool has that name (with a did-you-mean) or the
caller may not see it; 2 for a usage error.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			origin string
			asJSON bool
		)
		fs.StringVar(&origin, "origin", "", "check availability for origin `O` (default: app, or the first origin the tool allows)")
		fs.BoolVar(&asJSON, "json", false, "print the description as JSON")
		return func(a *app, args []string) int {
			switch {
			case len(args) == 0:
				return a.usageError("describe", "missing the tool NAME")
			case len(args) > 1:
				return a.usageError("describe", "too many arguments: %s (describe takes one NAME)", strings.Join(args[1:], " "))
			}
			var o tooling.Origin
			if origin != "" {
				var err error
				if o, err = parseOrigin(a.reg, origin); err != nil {
					return a.usageError("describe", "--origin: %v", err)
				}
			}
			t, ok := a.reg.Lookup(args[0])
			if !ok || !a.reg.Visible(a.principal(), cmp.Or(o, tooling.OriginApp), t.Name) {
				// A tool the caller's access rules hide is not found, as
				// list and tools/list leave it out.
				return a.notFound("describe", args[0])
			}
			info := describeTool(a.ctx, a.reg, a.cfg, t, o)
			info.Remote = a.remoteOf(t.Name)
			info.Binding = a.bindingOf(t.Name)
			if err := a.policyOf(&info, a.principal()); err != nil {
				a.errorf("describe %s: budgets: %v", t.Name, err)
				return exitFailed
			}
			info.caller = a.principal().String()
			if asJSON {
				return a.writeJSON(info)
			}
			var b strings.Builder
			writeDescription(&b, &info)
			if _, err := io.WriteString(a.stdout, b.String()); err != nil {
				a.errorf("cannot write output: %v", err)
				return exitFailed
			}
			return exitOK
		}
	},
}

// notFound reports an unknown tool name with the registry's did-you-mean
// and returns exitRefused. The line names the command and the name, as
// run does: "describe nope: not_found: no tool named ...".
func (a *app) notFound(cmd, name string) int {
	msg := fmt.Sprintf("no tool named %q", name)
	var te *tooling.Error
	if err := a.reg.Availability(a.ctx, name, ""); errors.As(err, &te) && te.Code == codes.NotFound {
		msg = te.Message
	}
	if h := a.serverHint(name); h != "" {
		msg += "; " + h
	}
	a.errorf("%s %s: %s: %s", cmd, name, codes.NotFound, msg)
	return exitRefused
}

func writeDescription(w io.Writer, info *toolInfo) {
	m := &info.Meta
	d := &m.decl
	title := info.Title
	if title == "" {
		title = "(no title)"
	}
	fmt.Fprintf(w, "%s: %s\n", info.Name, title)
	fmt.Fprintf(w, "MCP name %s; OpenAI and Anthropic name %s\n", info.Name, info.ExportName)
	if r := info.Remote; r != nil {
		fmt.Fprintf(w, "remote: tool %q of the MCP server %q\n", r.Name, r.Server)
		if r.Confinement != "" {
			fmt.Fprintf(w, "server confinement: %s\n", r.Confinement)
		}
	}
	if b := info.Binding; b != nil {
		fmt.Fprintf(w, "binding: %s, source %q, declared at %s:%d", b.Kind, b.Source, b.File, b.Line)
		if b.Writes {
			fmt.Fprint(w, ", writes")
		}
		if b.Shadow {
			fmt.Fprint(w, ", shadow mode")
		}
		fmt.Fprintln(w)
		if len(b.Env) > 0 {
			fmt.Fprintf(w, "credentials: %s\n", strings.Join(b.Env, ", "))
		}
		fmt.Fprintf(w, "  %s\n", prettyJSON(b.Binding, "  "))
	}
	fmt.Fprintln(w)
	if info.Description == "" {
		fmt.Fprintf(w, "(no description)\n\n")
	} else {
		fmt.Fprintf(w, "%s\n\n", strings.TrimRight(info.Description, "\n"))
	}

	fmt.Fprintln(w, "Meta:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(tw, "  %s\t%s\n", k, v) }
	row("concurrency", concurrencyText(d.Concurrency))
	row("resources", resourcesText(info))
	row("effects", d.Effects.String())
	if d.Safety == tooling.SafetyAuto {
		row("risk", m.Safety+" (derived from the effects)")
	} else {
		row("risk", m.Safety)
	}
	row("consent", consentText(info))
	timeout := m.timeoutText
	if m.timeoutIgnore != "" {
		timeout += "; " + m.timeoutIgnore
	}
	row("timeout", timeout)
	row("rate", m.rateText)
	if len(m.Origins) == 0 {
		row("origins", "all")
	} else {
		row("origins", strings.Join(m.Origins, ", "))
	}
	row("idempotent", yesNo(d.Idempotent, "yes", "no (do not retry blindly)"))
	if d.IdempotencyKeys {
		row("replay", "by idempotency key: a repeat with a call's key replays its outcome (run --idempotency-key)")
	}
	if len(m.Tags) == 0 {
		row("tags", "none")
	} else {
		row("tags", strings.Join(m.Tags, ", "))
	}
	row("version", orText(m.Version, "unversioned"))
	if st := tooling.State(m.State); st == tooling.StatePaused || st == tooling.StateDeprecated {
		text := string(st)
		if m.Replacement != "" {
			text += ": use " + m.Replacement + " instead"
		}
		if m.StateReason != "" {
			text += " (" + m.StateReason + ")"
		}
		row("state", text)
	}
	if m.Protection != "" {
		row("protected names", m.Protection)
	}
	tw.Flush()

	av := info.Availability
	fmt.Fprintf(w, "\nAvailability (origin %s):\n", av.Origin)
	if av.Available {
		fmt.Fprintln(w, "  available")
	} else {
		fmt.Fprintf(w, "  %s: %s\n", av.Code, av.Reason)
	}

	if len(info.Limits) > 0 || len(info.Budgets) > 0 {
		fmt.Fprintf(w, "\nLimits and budgets (for %s):\n", info.caller)
		for _, l := range info.Limits {
			fmt.Fprintf(w, "  limit %s: %s calls a minute per %s, burst %d\n", l.Name, strconv.FormatFloat(l.PerMinute, 'g', -1, 64), l.Per, l.Burst)
		}
		for _, b := range info.Budgets {
			who := b.Who
			if who == "" {
				who = "(none)"
			}
			parts := make([]string, len(b.Counts))
			for i, c := range b.Counts {
				parts[i] = fmt.Sprintf("%d of %d %s used", c.Used, c.Bound, strings.ReplaceAll(c.What, "_", " "))
			}
			fmt.Fprintf(w, "  budget %s (%s %s, per %s): %s; refills in %s\n", b.Name, b.Per, who, windowText(b.Window), strings.Join(parts, ", "), b.Refill.Round(time.Second))
		}
	}

	fmt.Fprintln(w, "\nInput schema:")
	if len(info.tool.Input) == 0 {
		fmt.Fprintln(w, "  none: the tool takes no arguments")
	} else {
		fmt.Fprintf(w, "  %s\n", prettyJSON(info.Input, "  "))
	}
	fmt.Fprintln(w, "\nOutput schema:")
	if len(info.Output) == 0 {
		fmt.Fprintln(w, "  none: the output is not checked")
	} else {
		fmt.Fprintf(w, "  %s\n", prettyJSON(info.Output, "  "))
	}
}

func concurrencyText(c tooling.Concurrency) string {
	switch c {
	case tooling.Exclusive:
		return "exclusive (calls never overlap with a call sharing a resource)"
	case tooling.ReadOnly:
		return "read_only (calls run in parallel with anything)"
	case tooling.MainThread:
		return "main_thread (calls run one at a time on the main thread)"
	}
	return string(c)
}

func resourcesText(info *toolInfo) string {
	d := &info.Meta.decl
	switch {
	case d.Concurrency != tooling.Exclusive:
		return "none (only exclusive tools hold resources)"
	case len(d.Resources) == 0:
		return "default (the tool's own name: " + info.Name + ")"
	}
	return strings.Join(d.Resources, ", ")
}

func consentText(info *toolInfo) string {
	d := &info.Meta.decl
	switch {
	case !info.NeedsConsent:
		return "not needed"
	case d.Consent:
		return "required (declared)"
	case d.Effects&(tooling.EffectWrite|tooling.EffectProcess) != 0:
		return fmt.Sprintf("required (implied by %s effects)", d.Effects&(tooling.EffectWrite|tooling.EffectProcess))
	}
	return "required (implied by " + info.Meta.Safety + " risk)"
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func orText(s, zero string) string {
	if s == "" {
		return zero
	}
	return s
}

// windowText names a budget's window: "minute", "hour", "day" or the
// duration.
func windowText(d time.Duration) string {
	switch d {
	case time.Minute:
		return "minute"
	case time.Hour:
		return "hour"
	case 24 * time.Hour:
		return "day"
	}
	return d.String()
}
