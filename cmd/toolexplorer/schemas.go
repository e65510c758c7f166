package main

import (
	"flag"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/export"
)

var schemasCommand = &command{
	name:    "schemas",
	args:    "--format mcp|openai|anthropic [flags]",
	summary: "print the tools as MCP, OpenAI or Anthropic tool definitions",
	help: `Prints the tools as JSON in the format a model API or an MCP client expects:
an MCP tools/list result, OpenAI function tools, or Anthropic tools. OpenAI
and Anthropic refuse dots in names: there each "." is spelled "__"
(demo.echo is demo__echo), and run accepts both spellings.

Only tools the origin may call are exported (default: llm, since exports are
for language models), and never tools the config or the runtime disables.

Example:

  $ toolexplorer schemas --format openai --tag demo > tools.json

Exit status: 0, or 2 for a usage error.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var format, origin, filter string
		var tags stringList
		fs.StringVar(&format, "format", "", "the export format `F`: mcp, openai or anthropic (required)")
		fs.StringVar(&origin, "origin", string(tooling.OriginLLM), "only tools origin `O` may call")
		fs.StringVar(&filter, "filter", "", "only tools whose name, title, description or a parameter name contain every word of `TEXT`")
		fs.Var(&tags, "tag", "only tools with tag `T` (repeat or separate with commas: every tag must match)")
		return func(a *app, args []string) int {
			if len(args) > 0 {
				return a.usageError("schemas", "unexpected argument %q", args[0])
			}
			if format == "" {
				return a.usageError("schemas", "--format is required: mcp, openai or anthropic")
			}
			f, err := export.ParseFormat(format)
			if err != nil {
				return a.usageError("schemas", "--format: %s", strings.TrimPrefix(err.Error(), "tooling: "))
			}
			o, err := parseOrigin(a.reg, origin)
			if err != nil {
				return a.usageError("schemas", "--origin: %v", err)
			}
			out, err := export.Encode(a.ctx, a.reg, f, export.Options{Origin: o, Filter: tooling.Filter{Text: filter, Tags: tags}})
			if err != nil {
				a.errorf("schemas: %v", err)
				return exitFailed
			}
			if _, err := a.stdout.Write(append(out, '\n')); err != nil {
				a.errorf("cannot write output: %v", err)
				return exitFailed
			}
			return exitOK
		}
	},
}
