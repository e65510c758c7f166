package main

import (
	"context"
	"flag"
	"fmt"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var listCommand = &command{
	name:    "list",
	args:    "[flags]",
	summary: "list the tools, with their concurrency, effects, risk and flags",
	help: `Lists the registered tools, sorted by name: a table of name, concurrency,
effects, risk (low, medium or high, high being the riskiest; "safety" in
the JSON and in Meta), flags and title, or with --json an array of tool
descriptions (the objects describe --json prints).

Flags in the table: consent (calls must carry consent), disabled (by the
config or at runtime), unavailable (the tool's availability check says no),
origin_denied (the origin may not call it), origins=... (who may call it),
idempotent. Availability is checked for --origin, else for the app (or the
first origin the tool allows, for a tool the app may not call). --available
keeps the tools that check says yes for: the rows without disabled,
unavailable or origin_denied.

--effects none selects the tools that declare no effects; it combines with
the names of effects too (--effects 'none|read').

Examples: the tools that write, and those a model may call now:

  $ toolexplorer list --effects write
  $ toolexplorer list --origin llm --available

Exit status: 0, or 2 for a usage error.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			filter, effects, origin string
			tags                    stringList
			available, asJSON       bool
		)
		fs.StringVar(&filter, "filter", "", "only tools whose name, title, description or a parameter name contain every word of `TEXT`")
		fs.Var(&tags, "tag", "only tools with tag `T` (repeat or separate with commas: every tag must match)")
		fs.StringVar(&effects, "effects", "", "only tools with one of the effects `E` (read, write, network, filesystem, process, or none for no effects; joined by |)")
		fs.StringVar(&origin, "origin", "", "only tools origin `O` may call (app, ui, llm, system)")
		fs.BoolVar(&available, "available", false, "only tools that can run now (for --origin, else as the table checks)")
		fs.BoolVar(&asJSON, "json", false, "print a JSON array of tool descriptions")
		return func(a *app, args []string) int {
			if len(args) > 0 {
				return a.usageError("list", "unexpected argument %q (use --filter to search)", args[0])
			}
			f := tooling.Filter{Text: filter, Tags: tags}
			keep := func(tooling.Effects) bool { return true }
			if effects != "" {
				e, none, err := parseEffectsFilter(effects)
				if err != nil {
					return a.usageError("list", "--effects: %v", err)
				}
				keep = func(t tooling.Effects) bool { return t&e != 0 || none && t == 0 }
			}
			if origin != "" {
				o, err := parseOrigin(a.reg, origin)
				if err != nil {
					return a.usageError("list", "--origin: %v", err)
				}
				f.Origin = o
			}
			// Availability is filtered here rather than by the registry,
			// which checks for the app only: --available keeps what the
			// table would show as available.
			infos := []toolInfo{}
			for _, t := range a.reg.List(a.ctx, f) {
				if !keep(t.Meta.Effects) {
					continue
				}
				info := describeTool(a.ctx, a.reg, a.cfg, t, f.Origin)
				info.Remote = a.remoteOf(t.Name)
				info.Binding = a.bindingOf(t.Name)
				if available && !info.Availability.Available {
					continue
				}
				infos = append(infos, info)
			}
			if asJSON {
				return a.writeJSON(infos)
			}
			if len(infos) == 0 {
				fmt.Fprintf(a.stdout, "no tools match (%d registered)\n", len(a.reg.List(context.Background(), tooling.Filter{})))
				return exitOK
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tCONCURRENCY\tEFFECTS\tRISK\tFLAGS\tTITLE")
			for _, info := range infos {
				flags := strings.Join(info.flags(), " ")
				if flags == "" {
					flags = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", info.Name, info.Meta.Concurrency,
					info.tool.Meta.Effects, info.Meta.Safety, flags, info.Title)
			}
			if err := tw.Flush(); err != nil {
				a.errorf("cannot write output: %v", err)
				return exitFailed
			}
			return exitOK
		}
	},
}

// stringList is a flag that may be repeated; each value may also hold
// several comma-separated items.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			*s = append(*s, item)
		}
	}
	return nil
}

// parseEffectsFilter parses the value of list --effects: effect names
// joined by "|" or ",", where "none" stands for the tools without effects.
func parseEffectsFilter(s string) (effects tooling.Effects, none bool, err error) {
	parts := strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' || r == ' ' })
	if len(parts) == 0 {
		return 0, false, fmt.Errorf("no effect in %q: name one (read, write, network, filesystem, process) or none", s)
	}
	for _, p := range parts {
		if strings.EqualFold(p, "none") {
			none = true
			continue
		}
		var e tooling.Effects
		if err := e.UnmarshalText([]byte(p)); err != nil {
			return 0, false, fmt.Errorf("unknown effect %q (want read, write, network, filesystem, process or none)", p)
		}
		effects |= e
	}
	return effects, none, nil
}

// knownOrigins are the origins the registry defines and those the
// registered tools declare.
func knownOrigins(reg *tooling.Registry) []string {
	seen := map[string]bool{}
	out := []string{}
	add := func(o string) {
		if !seen[o] {
			seen[o] = true
			out = append(out, o)
		}
	}
	for _, o := range []tooling.Origin{tooling.OriginApp, tooling.OriginUI, tooling.OriginLLM, tooling.OriginSystem} {
		add(string(o))
	}
	var custom []string
	for _, t := range reg.List(context.Background(), tooling.Filter{}) {
		for _, o := range t.Meta.Origins {
			if !seen[string(o)] {
				custom = append(custom, string(o))
				seen[string(o)] = true
			}
		}
	}
	sort.Strings(custom)
	return append(out, custom...)
}

// parseOrigin accepts the origins knownOrigins lists, so that a typo does
// not pass for a custom origin.
func parseOrigin(reg *tooling.Registry, s string) (tooling.Origin, error) {
	known := knownOrigins(reg)
	for _, o := range known {
		if o == s {
			return tooling.Origin(s), nil
		}
	}
	msg := fmt.Sprintf("unknown origin %q", s)
	if n := nearest(strings.ToLower(s), known); n != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", n)
	}
	return "", fmt.Errorf("%s: use one of %s", msg, strings.Join(known, ", "))
}
