package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/lint"
	"github.com/toolexplorer/toolexplorer/tui/form"
)

var lintCommand = &command{
	name:         "lint",
	args:         "[flags]",
	summary:      "check the tools and the config for problems",
	keepWarnings: true,
	help: `Checks every registered tool and the config, and prints one line per problem
and a summary:

  - what MCP, OpenAI or Anthropic would refuse or handle badly: names,
    the root of the input schema, missing descriptions;
  - config names and patterns (whitelist, blacklist, tools) that match no
    tool, and deprecated tools the config still names (whitelist,
    serve.consent, access rules, budgets), with their replacement;
  - input schemas: properties without a description, required names that
    are not properties, defaults that a required property never uses or
    that do not match their own type or enum, a root that accepts unknown
    arguments (additionalProperties is not false);
  - output schemas that do not describe an object (MCP requires it);
  - a missing title, a description longer than OpenAI accepts, empty or
    repeated tags;
  - form coverage: schema locations the console's form cannot render
    natively (it falls back to a raw JSON box there), such as if/then/else,
    not, patternProperties or tuples.

Example:

  $ toolexplorer lint --config gateway.json

Exit status: 0 when nothing is found; 1 when there are problems (config
warnings count); 2 for a usage error or a config file that does not load.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var asJSON bool
		fs.BoolVar(&asJSON, "json", false, "print the problems as JSON")
		return func(a *app, args []string) int {
			if len(args) > 0 {
				return a.usageError("lint", "unexpected argument %q", args[0])
			}
			report := lintReport{Tools: len(a.reg.List(context.Background(), tooling.Filter{})), Problems: a.lint(), Credentials: a.fileEnv}
			report.Count = len(report.Problems)
			code := exitOK
			if report.Count > 0 {
				code = exitFailed
			}
			if asJSON {
				if c := a.writeJSON(report); c != exitOK {
					return c
				}
				return code
			}
			var b strings.Builder
			for _, p := range report.Problems {
				b.WriteString(p.String())
				b.WriteByte('\n')
			}
			files := make([]string, 0, len(report.Credentials))
			for f := range report.Credentials {
				files = append(files, f)
			}
			sort.Strings(files)
			for _, f := range files {
				fmt.Fprintf(&b, "%s: credentials: %s\n", f, strings.Join(report.Credentials[f], ", "))
			}
			b.WriteString(report.summary())
			b.WriteByte('\n')
			if _, err := fmt.Fprint(a.stdout, b.String()); err != nil {
				a.errorf("cannot write output: %v", err)
				return exitFailed
			}
			return code
		}
	},
}

// lintReport is the output of lint --json.
type lintReport struct {
	Tools    int            `json:"tools"`
	Count    int            `json:"count"`
	Problems []lint.Problem `json:"problems"`
	// Credentials lists, per tools file, the variables its ${NAME}
	// references use.
	Credentials map[string][]string `json:"credentials,omitempty"`
}

func (r *lintReport) summary() string {
	tools := map[string]bool{}
	cfg, files := 0, 0
	for _, p := range r.Problems {
		switch {
		case p.Tool != "":
			tools[p.Tool] = true
		case p.Check == "tools_file":
			files++
		default:
			cfg++
		}
	}
	switch r.Count {
	case 0:
		return fmt.Sprintf("lint: no problems (%s checked)", plural(r.Tools, "tool"))
	case 1:
		return fmt.Sprintf("lint: 1 problem (%s checked)", plural(r.Tools, "tool"))
	}
	var parts []string
	if len(tools) > 0 {
		parts = append(parts, plural(len(tools), "tool"))
	}
	if files > 0 {
		parts = append(parts, "the tools files")
	}
	if cfg > 0 {
		parts = append(parts, "the config")
	}
	return fmt.Sprintf("lint: %d problems in %s (%s checked)", r.Count, strings.Join(parts, " and "), plural(r.Tools, "tool"))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// lint gathers every problem: the config's, the tools files', then each
// tool's (those of package lint, then the form's), by tool.
func (a *app) lint() []lint.Problem {
	out := []lint.Problem{}
	for _, w := range a.warnings {
		out = append(out, lint.Problem{Check: "config", Message: w})
	}
	a.serversMu.Lock()
	for _, s := range a.servers {
		var ue *undefinedError
		if errors.As(s.err, &ue) {
			for _, v := range ue.vars {
				out = append(out, lint.Problem{Check: "server_variable", Path: "servers." + s.name, Message: v})
			}
		}
	}
	a.serversMu.Unlock()
	out = append(out, lintToolFiles(a.fileProblems)...)
	out = append(out, a.lintDeprecated()...)
	out = append(out, lintToolFiles(a.fileFindings())...)
	tools := lint.Registry(a.reg)
	for _, t := range a.reg.List(a.ctx, tooling.Filter{}) {
		for _, path := range form.Coverage(t.Input) {
			tools = append(tools, lint.Problem{Tool: t.Name, Check: "form", Path: path,
				Message: "the console's form cannot render this natively and shows a raw JSON box"})
		}
	}
	order := map[string]int{"export": 0, "meta": 1, "input": 2, "output": 3, "form": 4}
	sort.SliceStable(tools, func(i, j int) bool {
		if tools[i].Tool != tools[j].Tool {
			return tools[i].Tool < tools[j].Tool
		}
		return order[tools[i].Check] < order[tools[j].Check]
	})
	return append(out, tools...)
}
