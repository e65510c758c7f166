package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolexplorer/toolexplorer/bindings"
	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/internal/textdist"
	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/policy"
	sqlitestate "github.com/toolexplorer/toolexplorer/state/sqlite"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/preview"
	"github.com/toolexplorer/toolexplorer/tui"
)

// configEnv names the config file when no --config flag is given.
const configEnv = "TOOLEXPLORER_CONFIG"

// app is what every command works with: the streams, the registry and the
// config in force.
type app struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// rawStdout is stdout before control characters are escaped, for
	// protocols spoken on it (serve).
	rawStdout io.Writer
	getenv    func(string) string
	reg       *tooling.Registry

	// cfg is the config applied to reg, and warnings what Configure said
	// about it (names that match no tool).
	cfg      config.Config
	warnings []string
	// shared is the state shared with other replicas (state.redis).
	shared sharedState
	// configFile is the config file applied, "" for none.
	configFile string
	// toolsPaths are the --tools files, given before the command name and
	// after it, and toolProblems their tools that could not be added, one
	// line each.
	toolsPaths   []string
	toolProblems []string
	// flagServers are the --server flags; servers the servers of them and
	// of the config, connected or not, guarded by serversMu (the console
	// restarts them), and serverProblems what failed, one line each.
	flagServers    []namedServer
	serversMu      sync.Mutex
	servers        []*server
	serverProblems []string
	// restarts are the console's restarts of servers in flight, each with
	// the cancel of its context; closeServers cancels and waits for them.
	restarts      sync.WaitGroup
	restartCancel map[*server]context.CancelFunc
	serversClosed bool
	// supervisors are the goroutines that start again the servers that
	// stop (supervise), under superviseCtx; onToolsChanged is told when the
	// registry's tools change on their own (serve's list refresh).
	supervisors     sync.WaitGroup
	superviseCtx    context.Context
	superviseCancel context.CancelFunc
	onToolsChanged  atomic.Pointer[func()]
	// asker asks the person at the console (a *tui.Asker): the input a
	// server requests during a call, the steps of a sign-in, a server's
	// inputs; nil when no console is open. See consoleAsker.
	asker atomic.Pointer[asker]
	// inputs are the values of ${input:ID} entered at the console, by ID.
	inputsMu sync.Mutex
	inputs   map[string]string
	// consoleMode: the console opens, and the servers are connected for
	// it (consoleConnectOptions); feed is its feed while it is open, and
	// roots the roots the person gives the servers.
	consoleMode bool
	feed        atomic.Pointer[tui.Feed]
	roots       mcp.Roots
	// idemStore is the config's SQLite idempotency store, nil for none.
	idemStore *sqlitestate.Store
	// consoleOrigin is the --origin given without a command: who the
	// console calls as.
	consoleOrigin tooling.Origin
	// flagToolDirs are the --tools-dir flags and flagShadow --shadow; files
	// the tools files loaded (from them and the config), and fileProblems
	// what kept them from loading, for lint.
	flagToolDirs []string
	// demo says the demo shop runs (--demo): its tools files are among
	// flagToolDirs.
	demo       bool
	flagShadow bool
	files      *bindings.Set
	filesMu    sync.Mutex               // guards files across reloads (SIGHUP, the console's L)
	hangups    chan tui.ToolFilesReload // what SIGHUP's reloads said, for the console
	// hungUp, when set, is asked first on SIGHUP: true when the terminal
	// has gone and the program is ending, so there is nothing to reload.
	hungUp func() bool
	// consoleCtx is the console's context, canceled when its terminal goes.
	consoleCtx   context.Context
	fileProblems []bindings.Problem
	fileEnv      map[string][]string // per tools file, the credentials it uses (lint)
	// flagAs and flagTenant are --as and --tenant: who the command line,
	// the console and serve over stdio call as (see principal).
	flagAs, flagTenant string
	// ledger records the calls of run, the console and serve; nil when
	// none is kept or the command makes no call.
	ledger *ledger.Ledger
	// limits and budgets are the config's, installed on the registry's
	// calls; nil when it has none.
	limits  *policy.Limits
	budgets *policy.Budgets
}

// console opens the interactive explorer when toolexplorer runs without a
// command. Nil when the binary has none: then a command is required.
var console func(a *app, configPath string) int

// command is one subcommand.
type command struct {
	name    string
	args    string // what follows the name in the usage line, like "NAME [flags]"
	summary string // one line, for the command list
	help    string // what the command does, its output and its exit statuses
	// setup declares the command's flags on fs and returns the function that
	// runs the command once the flags are parsed and the config is applied;
	// args are the positional arguments.
	setup func(fs *flag.FlagSet) func(a *app, args []string) int
	// keepWarnings: the command reports config warnings itself.
	keepWarnings bool
	// noConfig: the command accepts --config but neither loads nor
	// applies a config.
	noConfig bool
}

// commands lists the subcommands in the order help shows them.
var commands []*command

func init() {
	commands = []*command{listCommand, describeCommand, runCommand, explainCommand, collectionCommand, historyCommand, ledgerCommand, benchCommand, schemasCommand, lintCommand, serveCommand, stateCommand, apikeyCommand, helpCommand}
}

func findCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func commandNames() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// run is the whole program: it parses args (without the program name),
// runs the command they name and returns the exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, reg: tooling.Default()}
	return a.main(args)
}

func (a *app) main(args []string) int {
	fs := flag.NewFlagSet("toolexplorer", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var configPath string
	var toolsPaths []string
	sharedFlags(fs, &configPath, &toolsPaths, &a.flagServers)
	a.toolFileFlags(fs)
	a.identityFlags(fs)
	version := fs.Bool("version", false, "print the version and exit")
	demo := fs.Bool("demo", false, "also run the demo shop: the tools files of "+demoShopFiles+" on a database and an HTTP API the demo makes on this machine")
	origin := fs.String("origin", "", "the console calls as origin `O` (default ui)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			a.printMainHelp(a.stdout)
			return exitOK
		}
		return a.usageError("", "%s", flagError(fs, err))
	}
	if *version {
		fmt.Fprintln(a.stdout, versionString())
		return exitOK
	}
	rest := fs.Args()
	a.toolsPaths = toolsPaths
	a.ctx = tooling.ContextWithPrincipal(a.ctx, a.principal())
	if *demo {
		defer a.startDemoShop()()
	}
	if *origin != "" && len(rest) > 0 {
		return a.usageError("", "--origin before a command is the console's: give it after the command name (%s --origin %s)", rest[0], *origin)
	}
	if len(rest) == 0 {
		if console != nil {
			a.consoleMode = true
			a.feed.Store(tui.NewFeed()) // the servers' first messages come before the console opens
			if code := a.loadTools(a.toolsPaths); code != exitOK {
				return code
			}
			if *origin != "" {
				o, err := parseOrigin(a.reg, *origin)
				if err != nil {
					return a.usageError("", "--origin: %v", err)
				}
				a.consoleOrigin = o
			}
			defer a.closeLedger()
			defer a.closeServers()
			defer a.closeIdempotency()
			defer a.closeState()
			if code := a.loadConfig(configPath, false); code != exitOK {
				return code
			}
			// SIGHUP reloads the tools files; the console lists what is
			// registered. A SIGHUP that comes because the console's terminal
			// went away (its window closed) ends the console instead.
			ctx, cancel := context.WithCancel(a.ctx)
			defer cancel()
			a.consoleCtx = ctx
			a.hungUp = func() bool {
				if isTerminal(a.stdin) {
					return false
				}
				cancel()
				return true
			}
			a.hangups = make(chan tui.ToolFilesReload, 1)
			defer a.reloadOnHangup(consoleToolFiles{a, a.hangups}.hangup)()
			return console(a, configPath)
		}
		a.errorf("a command is required")
		a.printMainHelp(a.stderr)
		return exitUsage
	}
	name := rest[0]
	cmd := findCommand(name)
	if cmd == nil {
		msg := fmt.Sprintf("unknown command %q", name)
		if s := nearest(name, commandNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return a.usageError("", "%s", msg)
	}
	return a.runCommand(cmd, rest[1:], configPath)
}

// sharedFlags declares the flags accepted before the command name and by
// every command: --config, --tools and --server.
func sharedFlags(fs *flag.FlagSet, configPath *string, toolsPaths *[]string, servers *[]namedServer) {
	fs.StringVar(configPath, "config", "", "load the config `FILE` (default: $"+configEnv+")")
	fs.Var((*pathList)(toolsPaths), "tools", "also load the tools of an MCP tools/list `FILE`, in preview mode (repeatable)")
	fs.Var(serverFlag{servers}, "server", "also add the tools of the MCP server `NAME=COMMAND...` or NAME=URL (repeatable)")
}

// toolFileFlags declares --tools-dir and --shadow, accepted before the
// command name and by every command.
func (a *app) toolFileFlags(fs *flag.FlagSet) {
	fs.Var((*stringList)(&a.flagToolDirs), "tools-dir", "also load the tools files (*.yaml, *.yml, *.json) of `DIR`, or one file (repeatable)")
	fs.BoolVar(&a.flagShadow, "shadow", a.flagShadow, "run every write of a tools file's tool in shadow mode: built and shown, never sent")
}

// runCommand parses a command's flags, applies the config and runs it.
// globalConfig is the --config given before the command name.
func (a *app) runCommand(cmd *command, args []string, globalConfig string) int {
	// What a command prints comes in good part from tools (names,
	// descriptions, messages, outputs): control characters in it are shown
	// as escapes, never sent to the terminal as they are.
	a.rawStdout = a.stdout
	a.stdout, a.stderr = termtext.Writer(a.stdout), termtext.Writer(a.stderr)
	fs := newFlagSet(cmd.name)
	var configPath string
	var toolsPaths []string
	sharedFlags(fs, &configPath, &toolsPaths, &a.flagServers)
	a.toolFileFlags(fs)
	a.identityFlags(fs)
	exec := cmd.setup(fs)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(a.stdout, cmd)
			return exitOK
		}
		return a.usageError(cmd.name, "%s", flagError(fs, err))
	}
	a.ctx = tooling.ContextWithPrincipal(a.ctx, a.principal())
	if !cmd.noConfig {
		// The --tools files given after the command name load with those
		// given before it, and the history keeps them all.
		a.toolsPaths = append(a.toolsPaths, toolsPaths...)
		if code := a.loadTools(a.toolsPaths); code != exitOK {
			return code
		}
		if configPath == "" {
			configPath = globalConfig
		}
		defer a.closeLedger()
		defer a.closeServers()
		defer a.closeIdempotency()
		defer a.closeState()
		if code := a.loadConfig(configPath, cmd.keepWarnings); code != exitOK {
			return code
		}
	}
	return exec(a, positional)
}

// loadTools loads the tools of an MCP tools/list file in preview mode. A
// file that cannot be read or parsed is a usage error; a tool in it that
// cannot be added is a warning (one line, kept in toolProblems for the
// console), and the others load.
func (a *app) loadTools(paths []string) int {
	for _, path := range paths {
		_, err := preview.Load(a.reg, path)
		if err == nil {
			continue
		}
		joined, ok := err.(interface{ Unwrap() []error })
		if !ok {
			a.errorf("%v", err)
			return exitUsage
		}
		for _, e := range joined.Unwrap() {
			a.toolProblems = append(a.toolProblems, e.Error())
			fmt.Fprintf(a.stderr, "toolexplorer: warning: %v\n", e)
		}
	}
	return exitOK
}

// pathList is a repeatable flag of file names, each kept whole (commas
// included).
type pathList []string

func (p *pathList) String() string { return strings.Join(*p, " ") }

func (p *pathList) Set(v string) error {
	*p = append(*p, v)
	return nil
}

// loadConfig loads the config file at path (or the one $TOOLEXPLORER_CONFIG
// names, or none), applies it to the registry and prints its warnings
// unless keep is set. It returns exitOK or exitUsage.
func (a *app) loadConfig(path string, keep bool) int {
	fromEnv := false
	if path == "" {
		path = a.getenv(configEnv)
		fromEnv = path != ""
	}
	cfg := config.Default()
	if path != "" {
		var err error
		if cfg, err = config.Load(path); err != nil {
			a.configErrors(err, fromEnv)
			return exitUsage
		}
	}
	a.cfg, a.configFile = cfg, path
	if !a.connectServers(cfg) {
		a.errorf("interrupted while connecting to the MCP servers")
		return exitFailed
	}
	if code := a.loadToolFiles(cfg, keep); code != exitOK {
		return code
	}
	warnings, err := a.reg.Configure(cfg.Settings)
	if err != nil {
		a.configErrors(err, fromEnv)
		return exitUsage
	}
	if err := a.applyAccess(cfg); err != nil {
		a.errorf("config: %s: access: %v", path, err)
		return exitUsage
	}
	a.applyState()
	if err := a.applyBudgets(cfg); err != nil {
		a.errorf("config: %s: limits and budgets: %v", path, err)
		return exitUsage
	}
	if err := a.applyIdempotency(cfg); err != nil {
		a.errorf("config: %s: idempotency: %v", path, err)
		return exitUsage
	}
	a.warnings = warnings
	if !keep {
		for _, w := range a.warnings {
			fmt.Fprintf(a.stderr, "toolexplorer: warning: %s\n", w)
		}
	}
	return exitOK
}

// startNoWorkers applies the config without confined workers started ahead
// of the calls, for a command that makes one call: such a worker would serve
// nothing, and starting it would slow the call down.
func (a *app) startNoWorkers() {
	if a.cfg.Confinement.PoolSize < 0 {
		return
	}
	cfg := a.cfg
	cfg.Confinement.PoolSize = -1
	// Accepted already with a larger pool: no new warning or error.
	_, _ = a.reg.Configure(cfg.Settings)
}

// configErrors prints each problem of a config file on its own line:
// "toolexplorer: config: FILE:LINE:COLUMN: /json/pointer: message".
func (a *app) configErrors(err error, fromEnv bool) {
	suffix := ""
	if fromEnv {
		suffix = " (named by $" + configEnv + ")"
	}
	var list config.Errors
	if !errors.As(err, &list) {
		var one *config.Error
		if !errors.As(err, &one) {
			a.errorf("config: %v%s", err, suffix)
			return
		}
		list = config.Errors{one}
	}
	for _, e := range list {
		a.errorf("%s%s", formatConfigError(e), suffix)
	}
}

func formatConfigError(e *config.Error) string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.Source != "" {
		b.WriteString(e.Source)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
		}
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// errorf prints one line to stderr, prefixed "toolexplorer: ".
func (a *app) errorf(format string, args ...any) {
	msg := strings.TrimRight(fmt.Sprintf(format, args...), "\n")
	fmt.Fprintf(a.stderr, "toolexplorer: %s\n", msg)
}

// usageError prints a usage mistake, on one line with where to read more,
// and returns exitUsage. cmd is the command it concerns, "" for none.
func (a *app) usageError(cmd, format string, args ...any) int {
	msg := fmt.Sprintf(format, args...)
	if cmd != "" {
		a.errorf("%s: %s (see 'toolexplorer help %s')", cmd, msg, cmd)
	} else {
		a.errorf("%s (see 'toolexplorer help')", msg)
	}
	return exitUsage
}

// newFlagSet returns a flag set that reports its errors to the caller
// rather than printing them.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseInterspersed parses flags placed anywhere among the positional
// arguments ("run demo.echo --json" as well as "run --json demo.echo"). A
// lone "-" is positional (it means stdin) and "--" ends the flags.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, positional []string
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if arg == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(arg) < 2 || arg[0] != '-' {
			positional = append(positional, arg)
			continue
		}
		flags = append(flags, arg)
		name := strings.TrimLeft(arg, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	if err := fs.Parse(flags); err != nil {
		return nil, err
	}
	return positional, nil
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagError turns the flag package's messages into ours: flags are spelled
// as the help spells them (-n, --timeout), and a value that does not parse
// says what was expected. fs holds the flags that err is about.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return fmt.Sprintf("unknown flag %s", spellFlag(strings.TrimLeft(name, "-")))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return fmt.Sprintf("flag %s needs a value", spellFlag(strings.TrimLeft(name, "-")))
	}
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// invalid value "abc" for flag -n: parse error
		value, name, reason, ok := cutInvalidValue(rest, " for flag -")
		if !ok {
			return msg
		}
		return fmt.Sprintf("invalid value %s for flag %s: %s", value, spellFlag(name), valueProblem(fs.Lookup(name), value, reason))
	}
	if rest, ok := strings.CutPrefix(msg, "invalid boolean value "); ok {
		value, name, _, ok := cutInvalidValue(rest, " for -")
		if !ok {
			return msg
		}
		return fmt.Sprintf("invalid value %s for flag %s: want true or false", value, spellFlag(name))
	}
	return msg
}

// spellFlag spells a flag's name as the help does: one dash for a
// single letter, two otherwise.
func spellFlag(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// cutInvalidValue splits the rest of the flag package's "invalid value"
// message, `"abc" for flag -n: parse error`, at sep.
func cutInvalidValue(rest, sep string) (value, name, reason string, ok bool) {
	value, after, ok := strings.Cut(rest, sep)
	if !ok {
		return "", "", "", false
	}
	name, reason, ok = strings.Cut(after, ": ")
	return value, name, reason, ok
}

// valueProblem says what is wrong with a flag's value in a person's terms
// rather than the parser's ("parse error").
func valueProblem(f *flag.Flag, quoted, reason string) string {
	if f == nil {
		return reason
	}
	value, err := strconv.Unquote(quoted)
	if err != nil {
		value = quoted
	}
	switch f.Value.(flag.Getter).Get().(type) {
	case time.Duration:
		if _, err := strconv.ParseFloat(value, 64); err == nil {
			return fmt.Sprintf("the unit is missing (like %ss or %sms)", value, value)
		}
		return "want a duration with its unit, like 500ms, 2s or 1m30s"
	case int, int64, uint, uint64:
		if reason == "value out of range" {
			return "out of range"
		}
		return "want a whole number"
	case float64:
		return "want a number"
	}
	return reason
}

// nearest returns the candidate closest to s, if near enough to be a typo
// or a prefix of exactly one candidate.
func nearest(s string, candidates []string) string {
	var prefixed []string
	for _, c := range candidates {
		if s != "" && strings.HasPrefix(c, s) {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	return textdist.Nearest(s, candidates, max(1, len(s)/3))
}
