package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"
)

// version is set at link time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version from the build info is used.
var version = ""

func versionString() string {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	return fmt.Sprintf("toolexplorer %s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

const exitStatusHelp = `Exit status:
  0  success
  1  the call failed after it started (status error), a bench was
     interrupted, or lint found problems
  2  usage error: bad flags or arguments, unreadable arguments file, bad config file
  3  the call was refused before the tool ran (status denied), run was
     interrupted before the call, or no tool has that name

Ctrl-C (or SIGTERM) asks the command to stop: the call or the bench is
canceled and what happened is reported. A second one ends the program at once.
`

func (a *app) printMainHelp(w io.Writer) {
	var b strings.Builder
	b.WriteString(`toolexplorer lists, inspects and runs the tools registered in this program.

Usage:
  toolexplorer [--config FILE] [--tools-dir DIR] [--server NAME=CMD|URL] COMMAND [flags] [arguments]

Commands:
`)
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	b.WriteString(`
Flags:
  --config FILE   load this config file; every command accepts it too
                  (default: the file $` + configEnv + ` names, else built-in defaults)
  --tools FILE    also load the tools of an MCP tools/list result (or an array of
                  tools) in preview mode: calls are validated and their arguments
                  echoed back; nothing else happens. Every command accepts it too
  --server NAME=COMMAND...  or  --server NAME=URL
                  also add the tools of an MCP server, started as a command
                  (words separated by spaces) or reached at a streamable HTTP
                  URL, as NAME.tool; repeatable. Every command accepts it too;
                  the config's "servers" or "mcpServers" section adds more
  --tools-dir DIR also load the tools files (*.yaml, *.yml, *.json) of DIR, or
                  one file: HTTP, SQL and queue tools declared in files;
                  repeatable. Every command accepts it too, as does the config's
                  "tool_files"
  --shadow        run every write of a tools file's tool in shadow mode: built
                  and shown, never sent
  --demo          also run the demo shop (make run does): the tools files of
                  ` + demoShopFiles + ` on a database and an HTTP API it makes here
  --as SUBJECT    call as SUBJECT instead of the local user, to try a policy
                  as someone else (asserted, not verified); every command
                  accepts it too
  --tenant T      call on behalf of the tenant T; every command accepts it too
  --origin O      the console calls as origin O: ui (the default), app, llm,
                  system or one the tools name; o on the tool list changes it
  --version       print the version and exit
  -h, --help      print this help

`)
	b.WriteString(exitStatusHelp)
	b.WriteString("\nRun 'toolexplorer help COMMAND' for the flags of a command.\n")
	io.WriteString(w, b.String())
}

// printCommandHelp prints a command's usage, description and flags.
func printCommandHelp(w io.Writer, c *command) {
	fs := newFlagSet(c.name)
	var configPath string
	var toolsPaths []string
	var servers []namedServer
	sharedFlags(fs, &configPath, &toolsPaths, &servers)
	(&app{}).toolFileFlags(fs)
	(&app{}).identityFlags(fs)
	c.setup(fs)
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: toolexplorer %s %s\n\n", c.name, c.args)
	b.WriteString(strings.TrimLeft(c.help, "\n"))
	b.WriteString("\nFlags:\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 3, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		if isBoolFlag(f) {
			name = ""
		}
		spelled := "--" + f.Name
		if len(f.Name) == 1 {
			spelled = "-" + f.Name
		}
		if name != "" {
			spelled += " " + name
		}
		fmt.Fprintf(tw, "  %s\t%s\n", spelled, usage)
	})
	fmt.Fprintf(tw, "  -h, --help\tprint this help\n")
	tw.Flush()
	io.WriteString(w, b.String())
}

var helpCommand = &command{
	name:     "help",
	args:     "[COMMAND]",
	summary:  "print the help of toolexplorer or of one command",
	noConfig: true,
	help: `Prints the help of toolexplorer, or of COMMAND.

Example:

  $ toolexplorer help run
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		return func(a *app, args []string) int {
			switch len(args) {
			case 0:
				a.printMainHelp(a.stdout)
				return exitOK
			case 1:
			default:
				return a.usageError("help", "too many arguments: %s", strings.Join(args, " "))
			}
			c := findCommand(args[0])
			if c == nil {
				msg := fmt.Sprintf("unknown command %q", args[0])
				if s := nearest(args[0], commandNames()); s != "" {
					msg += fmt.Sprintf(" (did you mean %q?)", s)
				}
				return a.usageError("", "%s", msg)
			}
			printCommandHelp(a.stdout, c)
			return exitOK
		}
	},
}
