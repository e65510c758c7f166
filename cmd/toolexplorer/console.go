package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/ledger"
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
	if code := a.startLedger(); code != exitOK {
		return code
	}
	opts := consoleOptions(a)
	if a.ledger != nil {
		opts.Ledger = consoleLedger{a.ledger}
	}
	if path, err := history.DefaultPath(a.getenv); err != nil {
		opts.Problems = append(opts.Problems, "calls are not kept in the history: "+err.Error())
	} else if path != "" {
		opts.History = history.Open(path)
	}
	if wd, err := os.Getwd(); err == nil {
		opts.Saved = history.OpenSaved(history.SavedFile(wd))
	}
	ta, feed := tui.NewAsker(), a.feed.Load()
	if feed == nil {
		feed = tui.NewFeed()
	}
	opts.Asker, opts.Feed = ta, feed
	if opts.Servers != nil {
		opts.Features = consoleFeatures{a}
	}
	var ask asker = ta
	a.asker.Store(&ask)
	a.feed.Store(feed)
	defer func() {
		a.asker.Store(nil)
		a.feed.Store(nil)
		ta.Close()
		feed.Close()
	}()
	ctx := a.ctx
	if a.consoleCtx != nil {
		ctx = a.consoleCtx
	}
	if err := tui.Run(ctx, a.reg, opts); err != nil {
		a.errorf("console: %v", err)
		return exitFailed
	}
	return exitOK
}

// consoleOptions are the console's options for the app as loaded.
func consoleOptions(a *app) tui.Options {
	opts := tui.Options{NoColor: a.getenv("NO_COLOR") != "", Input: a.stdin, Output: a.stdout,
		Problems:   slices.Concat(a.toolProblems, a.serverProblems, a.warnings),
		ToolsFiles: absPaths(a.toolsPaths), ConfigFile: absPath(a.configFile), ToolDirs: a.toolDirs(), Demo: a.demo, Origin: a.consoleOrigin, Principal: a.principal(),
		Servers: servers(a), ServerFlags: serverFlags(a), ToolFiles: toolFiles(a), Keys: a.cfg.Keys, ConfirmDangerous: a.cfg.DangerousToolConfirmation,
		Budgets: consoleBudgets(a.budgets), Environments: environments(a.cfg.Environments)}
	if a.shared.redis != nil {
		opts.SharedState = a.sharedStatus
	}
	return opts
}

// consoleLedger is the app's ledger as the console reads it.
type consoleLedger struct{ l *ledger.Ledger }

func (c consoleLedger) Path() string { return c.l.Path() }

// Read writes the records queued so far, so that the console's last
// calls are in what it reads, then reads every call. When they cannot be
// written, it reads what the file holds and says why the last are not in
// it.
func (c consoleLedger) Read() ([]ledger.Entry, error) {
	syncErr := c.l.Sync()
	entries, err := ledger.Read(c.l.Path(), ledger.Filter{})
	if err == nil && syncErr != nil {
		err = fmt.Errorf("the last calls are not in the ledger yet: %w", syncErr)
	}
	return entries, err
}

// serverFlagOf is the flag among flags (serverFlags) that gave the MCP
// server of a tool from source (tooling.Tool.Source), "" for none.
func serverFlagOf(flags []string, source string) string {
	name, ok := strings.CutPrefix(source, "mcp:")
	if !ok {
		return ""
	}
	for _, f := range flags {
		if strings.HasPrefix(f, name+"=") {
			return f
		}
	}
	return ""
}

// serverFlags are the --server values, NAME=COMMAND... (quoted as the flag
// splits it) or NAME=URL.
func serverFlags(a *app) []string {
	var out []string
	for _, s := range a.flagServers {
		out = append(out, s.name+"="+(&server{cfg: s.server}).target())
	}
	return out
}

// toolFiles are the app's tools files for the console; nil when none are
// loaded.
func toolFiles(a *app) tui.ToolFiles {
	if a.files == nil {
		return nil
	}
	return consoleToolFiles{a, a.hangups}
}

// servers are the app's MCP servers for the console; nil (no interface
// value holding a nil pointer) when there are none.
func servers(a *app) tui.Servers {
	if cs := newConsoleServers(a); cs != nil {
		return cs
	}
	return nil
}

// absPath is path made absolute, so that a command line the console
// copies works from any directory; "" stays "".
// absPaths are paths made absolute, nil for none.
func absPaths(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, absPath(p))
	}
	return out
}

func absPath(path string) string {
	if path == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// isTerminal reports whether v is a file open on a terminal.
func isTerminal(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(f.Fd())
}

// asker asks the person at the console for input: a form of schema, with
// message, on behalf of server (tui.Asker).
type asker interface {
	Ask(ctx context.Context, server, message string, schema json.RawMessage) (map[string]any, bool, error)
}

// consoleAsker is the open console's asker, nil when no console is open.
func (a *app) consoleAsker() asker {
	if p := a.asker.Load(); p != nil {
		return *p
	}
	return nil
}
