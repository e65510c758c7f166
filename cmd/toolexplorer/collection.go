package main

import (
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/history/collection"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var collectionCommand = &command{
	name:    "collection",
	args:    "run FILE [--env NAME] [--folder F] [--json]",
	summary: "make every call of a collection file and check what each expects",
	help: `collection run FILE makes each call of the collection file FILE, in
order, through the registry (every step of governance, as run does), and
compares its result with what the call expects: its status (ok when the
call says nothing), its code, and jq filters over its output, each of
which must yield only true. The file is JSON, or YAML when its name ends
in .yaml or .yml (docs/collections.md describes it); the console's saved
calls export to it.

--env NAME chooses the environment whose variables fill the {{name}}
references of the calls' arguments: one of the file's, else one of the
config's environments. A variable may be read from the process's
environment (from_env); a secret's value is never printed. --folder F makes
only the calls filed under F. Calls are made as origin app unless a call
names its own; --consent gives consent to every call (a call may also
carry its own).

Prints one line per call, ✓ or ✗, its folder and name, its outcome and
time, and under a failed call each expectation it missed; then the
counts. With --json, the outcomes as JSON: each call's path, tool,
status, code, call id, run time, passed and failures.

Example:

  $ toolexplorer collection run smoke.yaml --env dev --config toolexplorer.json

Exit status:
  0  every call came to what it expects
  1  a call did not
  2  usage error: a bad flag, a collection file that cannot be read or is
     not valid, an unknown environment or folder
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			env, folder string
			asJSON      bool
			consent     bool
		)
		fs.StringVar(&env, "env", "", "fill the calls' {{variables}} from environment `NAME`")
		fs.StringVar(&folder, "folder", "", "make only the calls filed under `F`")
		fs.BoolVar(&asJSON, "json", false, "print the outcomes as JSON")
		fs.BoolVar(&consent, "consent", false, "consent to the side effects of every call")
		return func(a *app, args []string) int {
			switch {
			case len(args) == 0 || args[0] != "run":
				return a.usageError("collection", "want collection run FILE")
			case len(args) != 2:
				return a.usageError("collection", "want one collection FILE after run")
			}
			f, err := collection.Read(args[1])
			if err != nil {
				return a.usageError("collection", "%s", strings.TrimPrefix(err.Error(), "collection: "))
			}
			vars, code := a.collectionVars(f, env)
			if code != exitOK {
				return code
			}
			calls := f.Calls
			if folder != "" {
				folder = strings.Trim(folder, "/")
				calls = nil
				for _, c := range f.Calls {
					if c.Folder == folder || strings.HasPrefix(c.Folder, folder+"/") {
						calls = append(calls, c)
					}
				}
				if len(calls) == 0 {
					return a.usageError("collection", "no call is filed under %q in %s", folder, args[1])
				}
			}
			a.startNoWorkers()
			if code := a.startLedger(); code != exitOK {
				return code
			}
			opts := []tooling.Option{tooling.WithOrigin(tooling.OriginApp)}
			if consent {
				opts = append(opts, tooling.WithConsent())
			}
			out := collection.Check(a.ctx, a.reg, calls, vars, opts...)
			failed := 0
			for i := range out {
				if !out[i].Passed() {
					failed++
				}
			}
			if interrupted := len(calls) - len(out); interrupted > 0 {
				failed += interrupted
			}
			report := collectionReport{File: args[1], Environment: vars.Env, Passed: len(out) - countFailed(out), Failed: failed}
			for _, o := range out {
				report.Calls = append(report.Calls, reportCall(o, vars.Secrets()))
			}
			if asJSON {
				if c := a.writeJSON(report); c != exitOK {
					return c
				}
			} else {
				report.write(a, len(calls)-len(out))
			}
			if failed > 0 {
				return exitFailed
			}
			return exitOK
		}
	},
}

// collectionVars resolves environment name: the file's, else the
// config's; "" is none.
func (a *app) collectionVars(f *collection.File, name string) (collection.Vars, int) {
	if name == "" {
		return collection.Vars{}, exitOK
	}
	if _, ok := f.Environments[name]; !ok {
		if e, ok := a.cfg.Environments[name]; ok {
			return collection.Resolve(name, environmentOf(e), a.getenv), exitOK
		}
		has := "the collection defines none"
		if len(f.Environments) > 0 {
			has = "the collection has " + strings.Join(slices.Sorted(maps.Keys(f.Environments)), ", ")
		}
		return collection.Vars{}, a.usageError("collection", "no environment %q: %s; %s", name, has, a.configEnvironments())
	}
	vars, err := f.Environment(name, a.getenv)
	if err != nil {
		return vars, a.usageError("collection", "%s", strings.TrimPrefix(err.Error(), "collection: "))
	}
	return vars, exitOK
}

// configEnvironments says which environments the config has, for an error
// about one it lacks.
func (a *app) configEnvironments() string {
	switch {
	case a.configFile == "":
		return "no config file is loaded (--config FILE, or $" + configEnv + ")"
	case len(a.cfg.Environments) == 0:
		return "the config " + a.configFile + " defines none"
	}
	return "the config has " + strings.Join(slices.Sorted(maps.Keys(a.cfg.Environments)), ", ")
}

func countFailed(out []collection.Outcome) int {
	n := 0
	for i := range out {
		if !out[i].Passed() {
			n++
		}
	}
	return n
}

// collectionReport is what collection run prints with --json.
type collectionReport struct {
	File        string       `json:"file"`
	Environment string       `json:"environment,omitempty"`
	Passed      int          `json:"passed"`
	Failed      int          `json:"failed"`
	Calls       []reportLine `json:"calls"`
}

type reportLine struct {
	Path     string     `json:"path"`
	Tool     string     `json:"tool"`
	Status   string     `json:"status,omitempty"`
	Code     codes.Code `json:"code,omitempty"`
	CallID   string     `json:"call_id,omitempty"`
	RunMS    float64    `json:"run_ms"`
	Passed   bool       `json:"passed"`
	Failures []string   `json:"failures,omitempty"`
}

// reportCall is one outcome as the report says it, every secret value
// replaced by [redacted] wherever a message or an output echoed it.
func reportCall(o collection.Outcome, secrets []string) reportLine {
	l := reportLine{Path: o.Call.Path(), Tool: o.Call.Tool, Passed: o.Passed()}
	if r := o.Result; r != nil {
		l.Status, l.Code, l.CallID = r.Status, r.Code, r.CallID
		l.RunMS = float64((r.Wait+r.Run)/time.Microsecond) / 1000
	}
	for _, f := range o.Failures {
		for _, s := range secrets {
			f = strings.ReplaceAll(f, s, "[redacted]")
		}
		l.Failures = append(l.Failures, f)
	}
	return l
}

func (r *collectionReport) write(a *app, notMade int) {
	var b strings.Builder
	fmt.Fprintf(&b, "collection %s", r.File)
	if r.Environment != "" {
		fmt.Fprintf(&b, ", environment %s", r.Environment)
	}
	b.WriteByte('\n')
	for _, l := range r.Calls {
		mark := "✓"
		if !l.Passed {
			mark = "✗"
		}
		outcome := "not made"
		if l.Status != "" {
			outcome = l.Status
			if l.Code != "" && l.Code != codes.OK {
				outcome += " (" + string(l.Code) + ")"
			}
			outcome += " " + roundDuration(time.Duration(l.RunMS*float64(time.Millisecond)))
		}
		fmt.Fprintf(&b, "%s %s  %s  %s\n", mark, l.Path, l.Tool, outcome)
		for _, f := range l.Failures {
			fmt.Fprintf(&b, "    %s\n", indentLines(f, "    "))
		}
	}
	fmt.Fprintf(&b, "%s: %d passed, %d failed", plural(len(r.Calls)+notMade, "call"), r.Passed, r.Failed)
	if notMade > 0 {
		fmt.Fprintf(&b, " (%d not made: interrupted)", notMade)
	}
	b.WriteByte('\n')
	fmt.Fprint(a.stdout, b.String())
}

// environmentOf is a config's environment as a collection's.
func environmentOf(e config.Environment) collection.Environment {
	out := make(collection.Environment, len(e))
	for k, v := range e {
		out[k] = collection.Var{Value: v.Value, FromEnv: v.FromEnv, Secret: v.Secret}
	}
	return out
}

// environments are the config's environments as a collection's.
func environments(envs map[string]config.Environment) map[string]collection.Environment {
	if len(envs) == 0 {
		return nil
	}
	out := make(map[string]collection.Environment, len(envs))
	for name, e := range envs {
		out[name] = environmentOf(e)
	}
	return out
}
