package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

var historyCommand = &command{
	name:     "history",
	args:     "[--json] [--limit N] [--tool NAME] [--search TEXT] | --saved [--json]",
	summary:  "list the calls made by run and by the console",
	noConfig: true,
	help: `Lists the calls kept in the history, the oldest first and the newest last:
time, tool, outcome (ok or the code), duration (queue wait and run) and
arguments. run and the console keep every call they make there: the
request (tool, arguments, origin, consent, the config and tools files) and
the whole result.

The history is the file $` + history.FileEnv + ` names ("off" keeps none),
else toolexplorer/history.jsonl under $XDG_STATE_HOME, else under
~/.local/state: one JSON object per line. It is bounded (32 MiB): past it
the oldest calls are dropped. Outputs over 1 MiB are not kept.

Secrets are never kept: an argument whose schema says "writeOnly": true,
or whose name has a word password, passwd, passphrase, secret, token,
credential(s) or authorization, or the words api key, access key or
private key (api_key, apiKey, access_token, client_secret; not max_tokens),
at any depth, is kept as "[redacted]".

With --json, each call is printed as the JSON object it is kept as, one
per line (JSON Lines).

--saved lists instead the saved calls of the current directory (kept in
.toolexplorer/saved.json by the console's s key), sorted by name.

Examples:

  $ toolexplorer history --limit 10 --tool demo.echo
  $ toolexplorer history --search validation_error --json

Exit status: 0, or 2 for a usage error or a history that cannot be read.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			asJSON, saved bool
			limit         int
			tool, search  string
		)
		fs.BoolVar(&asJSON, "json", false, "print each call as a JSON object, one per line")
		fs.IntVar(&limit, "limit", 20, "show the newest `N` calls (0: all)")
		fs.StringVar(&tool, "tool", "", "only the calls of the tool `NAME`")
		fs.StringVar(&search, "search", "", "only the calls whose tool, code or arguments contain every word of `TEXT`")
		fs.BoolVar(&saved, "saved", false, "list the saved calls of the current directory instead")
		return func(a *app, args []string) int {
			if len(args) > 0 {
				return a.usageError("history", "unexpected argument %q (use --tool or --search)", args[0])
			}
			if limit < 0 {
				return a.usageError("history", "--limit must be 0 or more, got %d", limit)
			}
			if saved {
				return a.listSaved(asJSON)
			}
			path, err := history.DefaultPath(a.getenv)
			if err != nil {
				a.errorf("history: %v", err)
				return exitUsage
			}
			if path == "" {
				a.errorf("history: no history is kept ($%s is off)", history.FileEnv)
				return exitOK
			}
			entries, err := history.Open(path).Last(limit, func(e *history.Entry) bool {
				return (tool == "" || e.Tool == tool) && history.Matches(e, search)
			})
			if err != nil {
				a.errorf("%v", err)
				return exitUsage
			}
			slices.Reverse(entries) // the newest last
			if asJSON {
				out := a.stdout
				if a.rawStdout != nil {
					out = a.rawStdout // JSON escapes control characters itself
				}
				for _, e := range entries {
					b, err := jsonenc.Marshal(e)
					if err != nil {
						a.errorf("cannot encode JSON: %v", err)
						return exitFailed
					}
					if _, err := out.Write(append(b, '\n')); err != nil {
						a.errorf("cannot write output: %v", err)
						return exitFailed
					}
				}
				return exitOK
			}
			if len(entries) == 0 {
				if tool != "" || search != "" {
					fmt.Fprintf(a.stdout, "no calls match in %s\n", path)
				} else {
					fmt.Fprintf(a.stdout, "no calls in %s\n", path)
				}
				return exitOK
			}
			if err := writeHistory(a.stdout, entries); err != nil {
				a.errorf("cannot write output: %v", err)
				return exitFailed
			}
			return exitOK
		}
	},
}

// writeHistory prints entries as a table, one call a line.
func writeHistory(w io.Writer, entries []history.Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tTOOL\tRESULT\tTOOK\tVIA\tARGS")
	for _, e := range entries {
		result, took := "?", ""
		if res := e.Result; res != nil {
			result = "ok"
			if !res.OK() {
				result = string(res.Code)
			}
			took = roundDuration(res.Wait + res.Run)
		}
		args := termtext.Line(string(e.Args))
		if r := []rune(args); len(r) > 80 {
			args = string(r[:77]) + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Time.Local().Format(time.DateTime), e.Tool, result, took, e.Via, args)
	}
	return tw.Flush()
}

// recordCall keeps a call made by run in the history. A history that
// cannot be written is a warning: the call was made all the same.
func (a *app) recordCall(args keptArgs, res *tooling.Result, consent bool, idemKey string) {
	path, err := history.DefaultPath(a.getenv)
	if err != nil {
		fmt.Fprintf(a.stderr, "toolexplorer: warning: the call is not kept in the history: %v\n", err)
		return
	}
	if path == "" || res == nil {
		return
	}
	e := history.Entry{Time: res.Started, Tool: res.Tool, Origin: res.Origin, Consent: consent, Via: history.ViaRun,
		Config: absPath(a.configFile), ToolsFiles: absPaths(a.toolsPaths), ToolDirs: a.toolDirs(), Demo: a.demo, Result: res, IdempotencyKey: idemKey}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	if e.Tool == "" {
		e.Tool = "?"
	}
	var schema []byte
	if t, ok := a.reg.Lookup(res.Tool); ok {
		schema, e.Source = t.Input, t.Source
		e.Server = serverFlagOf(serverFlags(a), t.Source)
	}
	e.SetArgs(schema, args.args)
	e.Env = args.env
	e.RedactValues(args.secrets)
	if err := history.Open(path).Append(e); err != nil {
		fmt.Fprintf(a.stderr, "toolexplorer: warning: the call is not kept in the history: %v\n", err)
	}
}

// listSaved prints the saved calls of the current directory.
func (a *app) listSaved(asJSON bool) int {
	wd, err := os.Getwd()
	if err != nil {
		a.errorf("history: %v", err)
		return exitUsage
	}
	coll := history.OpenSaved(history.SavedFile(wd))
	list, err := coll.List()
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if asJSON {
		for _, s := range list {
			b, err := jsonenc.Marshal(s)
			if err != nil {
				a.errorf("cannot encode JSON: %v", err)
				return exitFailed
			}
			if _, err := a.stdout.Write(append(b, '\n')); err != nil {
				a.errorf("cannot write output: %v", err)
				return exitFailed
			}
		}
		return exitOK
	}
	if len(list) == 0 {
		fmt.Fprintf(a.stdout, "no saved calls in %s\n", coll.Path())
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTOOL\tARGS")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", termtext.Line(s.Path()), s.Tool, termtext.Line(string(s.Args)))
	}
	if err := tw.Flush(); err != nil {
		a.errorf("cannot write output: %v", err)
		return exitFailed
	}
	return exitOK
}
