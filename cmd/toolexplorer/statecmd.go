package main

import (
	"flag"
	"fmt"

	"github.com/toolexplorer/toolexplorer/tooling"
)

var stateCommand = &command{
	name:    "state",
	args:    "NAME enabled|paused|deprecated [--reason R] [--replacement TOOL] [--pid PID]",
	summary: "pause, deprecate or enable a tool of a running serve",
	help: `Changes the state of the tool NAME in the serve that runs now, as the local
user (or --as): paused refuses its new calls with code paused and the
reason (calls running finish) and takes it out of the served list;
deprecated lets it run and says so, naming the --replacement; enabled
takes either back. The serve records the change in its ledger, with who
made it, and its MCP clients get notifications/tools/list_changed.

It reaches the serve through its control socket, under the user's state
directory (toolexplorer/control, only the user can connect); with several
serve processes running, --pid names one. The change lasts as long as that
serve runs; the config's tools.NAME.state makes it lasting.

Examples, with a serve running:

  $ toolexplorer state demo.kv_get deprecated --replacement demo.echo --reason "reads the old store"
  $ toolexplorer state demo.kv_get enabled

Exit status:
  0  the serve changed the state
  1  no serve answered, or it refused the change (an unknown tool or
     replacement)
  2  usage error
`,
	noConfig: true,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			reason, replacement string
			pid                 int
		)
		fs.StringVar(&reason, "reason", "", "the reason `R`, shown to callers and in describe")
		fs.StringVar(&replacement, "replacement", "", "the `TOOL` to use instead of a deprecated one")
		fs.IntVar(&pid, "pid", 0, "the process id `PID` of the serve to change, when several run")
		return func(a *app, args []string) int {
			if len(args) != 2 {
				return a.usageError("state", "want NAME and a state (enabled, paused or deprecated)")
			}
			st := tooling.State(args[1])
			switch st {
			case tooling.StateEnabled, tooling.StatePaused, tooling.StateDeprecated:
			default:
				return a.usageError("state", "unknown state %q (want enabled, paused or deprecated)", args[1])
			}
			if replacement != "" && st != tooling.StateDeprecated {
				return a.usageError("state", "--replacement goes with deprecated")
			}
			ans, err := a.sendControl(controlRequest{Tool: args[0], State: st, Reason: reason, Replacement: replacement, Principal: a.principal()}, pid)
			if err == nil && ans.Error != "" {
				err = fmt.Errorf("the serve refused: %s", ans.Error)
			}
			if err != nil {
				a.errorf("state: %v", err)
				return exitFailed
			}
			fmt.Fprintf(a.stdout, "%s: %s\n", args[0], ans.State)
			return exitOK
		}
	},
}
