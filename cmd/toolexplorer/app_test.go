package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui"
)

// The tests call run in process, against the default registry that holds
// the demo tools. Every run applies a config (the default one when none is
// given), so the tests run one after another, never in parallel.

// TestMain hands the main thread over, as main does.
func TestMain(m *testing.M) {
	os.Unsetenv(configEnv)
	tooling.Main(tooling.Default(), func() int {
		// Calls are kept in a history of the tests' own, never the user's.
		os.Unsetenv(history.FileEnv)
		state, err := os.MkdirTemp("", "toolexplorer-state-")
		if err != nil {
			panic(err)
		}
		defer os.RemoveAll(state)
		os.Setenv("XDG_STATE_HOME", state)
		return m.Run()
	})
}

// outcome is what one run of the command line did.
type outcome struct {
	code           int
	stdout, stderr string
}

func cli(t *testing.T, stdin string, args ...string) outcome {
	t.Helper()
	return cliContext(t, context.Background(), stdin, args...)
}

func cliContext(t *testing.T, ctx context.Context, stdin string, args ...string) outcome {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(ctx, args, strings.NewReader(stdin), &stdout, &stderr)
	return outcome{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

func (o outcome) String() string {
	return "exit " + strconv.Itoa(o.code) + "\n--- stdout:\n" + o.stdout + "--- stderr:\n" + o.stderr
}

// writeFile writes content to a file in a new temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestUsageErrors(t *testing.T) {
	argsFile := writeFile(t, "args.json", `{"text":"hi"}`)
	tests := []struct {
		name   string
		args   []string
		stderr []string // each must occur in stderr
	}{
		{"no command", nil, []string{"a command is required", "Usage:"}},
		{"unknown command", []string{"lsit"}, []string{`unknown command "lsit" (did you mean "list"?)`}},
		{"unknown global flag", []string{"--bogus", "list"}, []string{"unknown flag --bogus"}},
		{"config needs a value", []string{"list", "--config"}, []string{"flag --config needs a value"}},
		{"run without NAME", []string{"run"}, []string{"run: missing the tool NAME"}},
		{"run with two names", []string{"run", "demo.echo", "demo.slow"}, []string{"too many arguments: demo.slow"}},
		{"run with two sources", []string{"run", "demo.echo", "--args", "{}", "--args-file", argsFile}, []string{"--args or --args-file, not both"}},
		{"run with a missing args file", []string{"run", "demo.echo", "--args-file", filepath.Join(t.TempDir(), "none.json")}, []string{"cannot read the arguments file", "none.json"}},
		{"run with an unknown flag", []string{"run", "demo.echo", "--argz", "{}"}, []string{"unknown flag --argz"}},
		{"run with an --arg that is not KEY=VALUE", []string{"run", "demo.echo", "--arg", "{}"}, []string{`invalid value "{}" for flag --arg: want key=value`}},
		{"run with a bad timeout", []string{"run", "demo.echo", "--timeout", "soon"}, []string{`invalid value "soon" for flag --timeout`}},
		{"run with a timeout without unit", []string{"run", "demo.echo", "--timeout", "5"}, []string{`invalid value "5" for flag --timeout: the unit is missing (like 5s or 5ms)`}},
		{"run with a bad consent", []string{"run", "demo.echo", "--consent=maybe"}, []string{`invalid value "maybe" for flag --consent: want true or false`}},
		{"run with a zero timeout", []string{"run", "demo.echo", "--timeout", "0s"}, []string{"--timeout must be positive"}},
		{"run with a misspelled origin", []string{"run", "demo.echo", "--origin", "lmm"}, []string{`unknown origin "lmm" (did you mean "llm"?)`}},
		{"describe without NAME", []string{"describe"}, []string{"describe: missing the tool NAME"}},
		{"describe with two names", []string{"describe", "demo.echo", "demo.slow"}, []string{"too many arguments"}},
		{"list with an argument", []string{"list", "echo"}, []string{`unexpected argument "echo"`, "--filter"}},
		{"list with an unknown effect", []string{"list", "--effects", "explode"}, []string{`unknown effect "explode"`, "or none)"}},
		{"list with no effect named", []string{"list", "--effects", "|"}, []string{`--effects: no effect in "|"`}},
		{"schemas without format", []string{"schemas"}, []string{"--format is required"}},
		{"schemas with an unknown format", []string{"schemas", "--format", "xml"}, []string{`unknown format "xml"`}},
		{"lint with an argument", []string{"lint", "demo.echo"}, []string{`unexpected argument "demo.echo"`}},
		{"help of an unknown command", []string{"help", "rnu"}, []string{`unknown command "rnu" (did you mean "run"?)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := cli(t, "", tt.args...)
			if o.code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s", o.code, exitUsage, o)
			}
			if !strings.HasPrefix(o.stderr, "toolexplorer: ") {
				t.Errorf("stderr does not start with \"toolexplorer: \":\n%s", o.stderr)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(o.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
				}
			}
		})
	}
}

func TestHelp(t *testing.T) {
	type check struct {
		args []string
		want string
	}
	checks := []check{
		{[]string{"--help"}, "Commands:"},
		{[]string{"-h"}, "Commands:"},
		{[]string{"help"}, "Exit status:"},
		{[]string{"--version"}, "toolexplorer "},
	}
	for _, c := range commands {
		usage := "Usage: toolexplorer " + c.name
		checks = append(checks,
			check{[]string{c.name, "--help"}, usage},
			check{[]string{c.name, "-h"}, usage},
			check{[]string{"help", c.name}, usage},
			check{[]string{"--config", "/nonexistent.json", c.name, "--help"}, usage},
			// Every command accepts the flags the main help lists for all.
			check{[]string{"help", c.name}, "\n  --config FILE "},
			check{[]string{"help", c.name}, "\n  --tools FILE "},
			check{[]string{"help", c.name}, "\n  --tools-dir DIR "},
			check{[]string{"help", c.name}, "\n  --shadow "},
			check{[]string{"help", c.name}, "\n  --as SUBJECT "},
			check{[]string{"help", c.name}, "\n  --tenant T "},
		)
	}
	checks = append(checks, check{[]string{"run", "demo.echo", "--args", "{}", "--help"}, "--args-file FILE"})
	for _, c := range checks {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			o := cli(t, "", c.args...)
			if o.code != exitOK || o.stderr != "" {
				t.Fatalf("want exit 0 and nothing on stderr\n%s", o)
			}
			if !strings.Contains(o.stdout, c.want) {
				t.Errorf("stdout lacks %q:\n%s", c.want, o.stdout)
			}
		})
	}
}

// TestMainHelpNamesEveryFlag: each flag toolexplorer accepts before a
// command is in its help.
func TestMainHelpNamesEveryFlag(t *testing.T) {
	help := cli(t, "", "--help").stdout
	fs := flag.NewFlagSet("toolexplorer", flag.ContinueOnError)
	var configPath string
	var toolsPath []string
	var servers []namedServer
	sharedFlags(fs, &configPath, &toolsPath, &servers)
	(&app{}).toolFileFlags(fs)
	(&app{}).identityFlags(fs)
	for _, name := range []string{"version", "demo", "origin"} {
		fs.Bool(name, false, "")
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !strings.Contains(help, "\n  --"+f.Name+" ") {
			t.Errorf("the main help does not name --%s:\n%s", f.Name, help)
		}
	})
}

func TestHelpDocumentsExitStatuses(t *testing.T) {
	o := cli(t, "", "help", "run")
	for _, want := range []string{"0  the call is ok", "1  the call failed", "2  usage error", "3  the call was refused"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("help run lacks %q", want)
		}
	}
}

func TestConfig(t *testing.T) {
	misspelled := writeFile(t, "misspelled.json", "{\n  \"defualt_timeout\": \"1s\"\n}\n")
	badValue := writeFile(t, "bad.json", `{"tools": {"demo.slow": {"timeout": "soon"}}, "max_concurrent": 0}`)
	unmatched := writeFile(t, "unmatched.json", `{"blacklist": ["demo.fial"]}`)
	blacklist := writeFile(t, "blacklist.json", `{"blacklist": ["demo.fail"], "tools": {"demo.slow": {"timeout": "100ms"}}}`)
	missing := filepath.Join(t.TempDir(), "missing.json")
	rates := writeFile(t, "rates.json", `{"tools": {"demo.limited": {"rate_per_minute": 1}, "demo.echo": {"rate_per_minute": 5, "burst": 3}}}`)
	raise := writeFile(t, "raise.json", `{"tools": {"demo.limited": {"rate_per_minute": 5}}}`)

	tests := []struct {
		name   string
		env    string
		args   []string
		code   int
		stdout []string
		stderr []string
		quiet  bool // nothing on stderr
	}{
		{name: "misspelled key", args: []string{"list", "--config", misspelled}, code: exitUsage,
			stderr: []string{"toolexplorer: config: " + misspelled + ":2:3: /defualt_timeout: unknown key (did you mean \"default_timeout\"?)"}},
		{name: "misspelled key before the command", args: []string{"--config", misspelled, "run", "demo.echo"}, code: exitUsage,
			stderr: []string{misspelled, "/defualt_timeout"}},
		{name: "misspelled key from the environment", env: misspelled, args: []string{"lint"}, code: exitUsage,
			stderr: []string{misspelled, "/defualt_timeout", "$TOOLEXPLORER_CONFIG"}},
		{name: "one line per problem", args: []string{"describe", "demo.echo", "--config", badValue}, code: exitUsage,
			stderr: []string{"/tools/demo.slow/timeout: ", "/max_concurrent: "}},
		{name: "missing file", args: []string{"list", "--config", missing}, code: exitUsage,
			stderr: []string{missing, "no such file"}},
		{name: "unmatched name warns", args: []string{"run", "demo.echo", "--args", `{"text":"x"}`, "--config", unmatched}, code: exitOK,
			stderr: []string{`toolexplorer: warning: config blacklist: "demo.fial" matches no tool (did you mean "demo.fail"?)`}},
		{name: "unmatched name is a lint problem", args: []string{"lint", "--config", unmatched}, code: exitFailed,
			stdout: []string{`config blacklist: "demo.fial" matches no tool`, "lint: 1 problem"}, quiet: true},
		{name: "blacklist refuses", args: []string{"--config", blacklist, "run", "demo.fail", "--args", `{"mode":"error"}`}, code: exitRefused,
			stdout: []string{"denied (disabled)"}, stderr: []string{"blacklist"}},
		{name: "blacklist shows in list", args: []string{"list", "--config", blacklist, "--filter", "fail"}, code: exitOK,
			stdout: []string{"disabled"}, quiet: true},
		{name: "override shows in describe", env: blacklist, args: []string{"describe", "demo.slow"}, code: exitOK,
			stdout: []string{"100ms (config override; the tool declares 500ms)"}, quiet: true},
		{name: "a rate override shows in describe as the rate in force", args: []string{"describe", "demo.limited", "--config", rates}, code: exitOK,
			stdout: []string{"rate         1/min burst 2 (config override; the tool declares 2/min burst 2)\n"}, quiet: true},
		{name: "a rate override of a tool without a rate", args: []string{"describe", "demo.echo", "--config", rates}, code: exitOK,
			stdout: []string{"rate         5/min burst 3 (config override; the tool declares unlimited)\n"}, quiet: true},
		{name: "a rate override that would raise the rate is said to be ignored", env: raise, args: []string{"describe", "demo.limited"}, code: exitOK,
			stdout: []string{"rate         2/min burst 2; config rate_per_minute 5 ignored: overrides never raise the tool's own rate\n"}, quiet: true},
		{name: "the flag wins over the environment", env: misspelled, args: []string{"describe", "demo.slow", "--config", blacklist}, code: exitOK,
			stdout: []string{"100ms (config override"}, quiet: true},
		{name: "later runs get the default config back", args: []string{"describe", "demo.slow"}, code: exitOK,
			stdout: []string{"timeout      500ms\n"}, quiet: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(configEnv, tt.env)
			o := cli(t, "", tt.args...)
			if o.code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", o.code, tt.code, o)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(o.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
				}
			}
			for _, want := range tt.stderr {
				if !strings.Contains(o.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
				}
			}
			if tt.quiet && o.stderr != "" {
				t.Errorf("stderr is not empty:\n%s", o.stderr)
			}
			if tt.code == exitUsage {
				for _, line := range strings.Split(strings.TrimSuffix(o.stderr, "\n"), "\n") {
					if !strings.HasPrefix(line, "toolexplorer: config: ") {
						t.Errorf("config error line %q does not start with \"toolexplorer: config: \"", line)
					}
				}
			}
		})
	}
}

func TestNoCommandOpensConsole(t *testing.T) {
	defer func(c func(*app, string) int) { console = c }(console)
	var gotConfig string
	console = func(a *app, configPath string) int {
		gotConfig = configPath
		return 7
	}
	cfg := writeFile(t, "cfg.json", `{}`)
	if o := cli(t, "", "--config", cfg); o.code != 7 || gotConfig != cfg {
		t.Fatalf("console got %q and returned %d, want %q and 7\n%s", gotConfig, o.code, cfg, o)
	}
}

// TestConsoleKnowsItsFiles: the console is told the tools file and the
// config file (named by --config or the environment), as absolute paths,
// so that a call it copies as a command line runs against them.
func TestConsoleKnowsItsFiles(t *testing.T) {
	defer func(c func(*app, string) int) { console = c }(console)
	var opts tui.Options
	console = func(a *app, _ string) int {
		opts = consoleOptions(a)
		return 7
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "cfg.json")
	tools := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(cfg, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tools, []byte(`{"tools":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv(configEnv, "cfg.json")
	if o := cli(t, "", "--tools", "tools.json"); o.code != 7 {
		t.Fatalf("exit %d\n%s", o.code, o)
	}
	if !slices.Equal(opts.ToolsFiles, []string{tools}) || opts.ConfigFile != cfg {
		t.Errorf("console told tools %q, config %q; want %q, %q", opts.ToolsFiles, opts.ConfigFile, tools, cfg)
	}
}

func TestNearest(t *testing.T) {
	names := []string{"list", "describe", "run", "schemas", "lint", "help"}
	tests := map[string]string{"lsit": "list", "desc": "describe", "rn": "run", "schema": "schemas", "xyz": "", "l": ""}
	for in, want := range tests {
		if got := nearest(in, names); got != want {
			t.Errorf("nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestHelpProseFitsEightyColumns: the prose of each command's help (its
// lines that are not indented examples or tables) fits a terminal of 80
// columns, so that it never wraps mid-word.
func TestHelpProseFitsEightyColumns(t *testing.T) {
	for _, c := range commands {
		for i, line := range strings.Split(c.help, "\n") {
			if strings.HasPrefix(line, " ") {
				continue
			}
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("help %s, line %d is %d columns:\n%s", c.name, i+1, n, line)
			}
		}
	}
}

// TestConsoleServerFlags: the console is told the --server values, each
// spelled so that --server reads it back as the same server.
func TestConsoleServerFlags(t *testing.T) {
	a := &app{}
	for _, v := range []string{`ev=/usr/bin/everything 'a b' c\"d`, "web=https://example.com/mcp"} {
		s, err := parseServerFlag(v)
		if err != nil {
			t.Fatal(err)
		}
		a.flagServers = append(a.flagServers, s)
	}
	flags := serverFlags(a)
	if len(flags) != 2 {
		t.Fatalf("server flags %q", flags)
	}
	for i, f := range flags {
		s, err := parseServerFlag(f)
		if err != nil || s.name != a.flagServers[i].name || !reflect.DeepEqual(s.server, a.flagServers[i].server) {
			t.Errorf("%q reads back as %+v (%v), want %+v", f, s, err, a.flagServers[i])
		}
	}
}

// TestHelpOfEveryCommandShowsAnExample: the help of each command shows
// how it is typed, and names each flag's value by what it is, never by its
// Go type.
func TestHelpOfEveryCommandShowsAnExample(t *testing.T) {
	goType := regexp.MustCompile(`\n  --?[a-z-]+ (int|uint|string|float|duration|value)\s`)
	for _, c := range commands {
		o := cli(t, "", "help", c.name)
		if o.code != exitOK {
			t.Fatalf("help %s:\n%s", c.name, o)
		}
		if !strings.Contains(o.stdout, "Example") || !strings.Contains(o.stdout, "\n  $ toolexplorer "+c.name+" ") {
			t.Errorf("help %s shows no example of it:\n%s", c.name, o.stdout)
		}
		if m := goType.FindString(o.stdout); m != "" {
			t.Errorf("help %s names a flag's value by its Go type: %q", c.name, strings.TrimSpace(m))
		}
	}
}
