package main

import (
	"slices"

	"github.com/charmbracelet/x/term"

	"github.com/toolexplorer/toolexplorer/tui"
)

func init() { console = runConsole }

// runConsole opens the console when standard input and output are both
// terminals. Otherwise there is nothing to draw on: like a binary without
// a console, it asks for a command, prints the help and exits with the
// usage status.
func runConsole(a *app, _ string) int {
	if !isTerminal(a.stdin) || !isTerminal(a.stdout) {
		a.errorf("a command is required (the console needs a terminal on standard input and output)")
		a.printMainHelp(a.stderr)
		return exitUsage
	}
	opts := tui.Options{NoColor: a.getenv("NO_COLOR") != "", Input: a.stdin, Output: a.stdout,
		Problems: append(slices.Clone(a.toolProblems), a.warnings...)}
	if err := tui.Run(a.ctx, a.reg, opts); err != nil {
		a.errorf("console: %v", err)
		return exitFailed
	}
	return exitOK
}

// isTerminal reports whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}
