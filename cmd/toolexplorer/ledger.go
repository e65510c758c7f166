package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// ledgerEnv names the ledger's file, over the config and the default
// place; "off" keeps none.
const ledgerEnv = "TOOLEXPLORER_LEDGER"

var ledgerCommand = &command{
	name:    "ledger",
	args:    "[--tool T] [--code C] [--subject S] [--since D] [--json] | verify [--key FILE] [--json]",
	summary: "list the calls in the ledger, or verify that it is intact",
	help: `Lists the calls recorded in the ledger, the oldest first: when each began,
the tool and its version, who called (subject@tenant, how authenticated),
how it ended (ok, a code, or interrupted for a call whose process died in
it) and how long it ran. run, the console and serve (over stdio and HTTP,
with or without --server) record every call they make there, refusals
included: its id, principal, tool and version, origin, the digest of the
policy (the config's access and budgets keys) and of the confinement
profile, SHA-256 digests and sizes of the arguments and output (never the
arguments or output themselves), what the tool reported of its side
effects, mode shadow for shadow calls, and the digest of its idempotency
key.

--tool, --code (a code, ok, or interrupted), --subject (anonymous for
calls without one) and --since (a duration like 1h, or an RFC 3339 time)
select calls. With --json, each call is printed as a JSON object, one per
line: {"begin": RECORD, "end": RECORD, "status": ...}.

'toolexplorer ledger verify' checks that no record was edited, deleted,
reordered or cut off the end: each record carries the SHA-256 of the one
before, checkpoints in the file and the head beside it (LEDGER.head) are
signed with the ledger's ed25519 key (LEDGER.key, mode 0600, made on first
use; --key names a key or its .pub). It names the first bad record. It
cannot see a change made with the key, nor records cut off together with
the head put back as it was earlier.

The ledger is the file $` + ledgerEnv + ` names ("off" keeps none), else the
config's ledger.path, else toolexplorer/ledger.jsonl under $XDG_STATE_HOME,
else under ~/.local/state. Records reach the file in batches as they come;
it is fsynced at most every ledger.sync_interval (default 100ms) and
rotated past ledger.max_bytes (default 64 MiB) into LEDGER.000001, ...
When it cannot be written (a full disk), calls are refused with code
unavailable, naming the ledger, or with ledger.on_failure "continue" they go
on and the records lost are counted and said.

Examples:

  $ toolexplorer ledger --subject alice --since 1h
  $ toolexplorer ledger verify

Exit status: 0, 1 when verify finds a bad record, 2 for a usage error or a
ledger that cannot be read.
`,
	setup: func(fs *flag.FlagSet) func(a *app, args []string) int {
		var (
			f                    ledger.Filter
			code, since, keyFile string
			asJSON               bool
		)
		fs.StringVar(&f.Tool, "tool", "", "only calls of tool `NAME`")
		fs.StringVar(&code, "code", "", "only calls that ended with `CODE` (ok, interrupted, or a code)")
		fs.StringVar(&f.Subject, "subject", "", "only calls made by `SUBJECT` (anonymous for none)")
		fs.StringVar(&since, "since", "", "only calls since `D`: a duration back from now (1h) or an RFC 3339 time")
		fs.BoolVar(&asJSON, "json", false, "print JSON")
		fs.StringVar(&keyFile, "key", "", "verify with the key in `FILE` (a key or its .pub; default: the ledger's)")
		return func(a *app, args []string) int {
			path, keyPath, _, err := a.ledgerPaths()
			if err != nil {
				a.errorf("ledger: %v", err)
				return exitUsage
			}
			if path == "" {
				a.errorf("ledger: no ledger is kept ($%s is off, or the config's ledger.enabled is false)", ledgerEnv)
				return exitUsage
			}
			if len(args) > 0 {
				if args[0] != "verify" || len(args) > 1 {
					return a.usageError("ledger", "unexpected argument %q (the only subcommand is verify)", args[0])
				}
				if keyFile == "" {
					keyFile = keyPath + ".pub"
					if _, err := os.Stat(keyFile); err != nil {
						keyFile = keyPath // a key given without its .pub
					}
				}
				return a.verifyLedger(path, keyFile, asJSON)
			}
			f.Code = codes.Code(code)
			if since != "" {
				if d, err := time.ParseDuration(since); err == nil && d > 0 {
					f.Since = time.Now().Add(-d)
				} else if t, err := time.Parse(time.RFC3339, since); err == nil {
					f.Since = t
				} else {
					return a.usageError("ledger", "--since %q is neither a duration (1h) nor an RFC 3339 time", since)
				}
			}
			entries, err := ledger.Read(path, f)
			if err != nil {
				a.errorf("%v", err)
				return exitUsage
			}
			if asJSON {
				for _, e := range entries {
					b, err := jsonenc.Marshal(struct {
						Begin  ledger.Record  `json:"begin"`
						End    *ledger.Record `json:"end"`
						Status string         `json:"status"`
					}{e.Begin, e.End, e.Status})
					if err != nil {
						a.errorf("%v", err)
						return exitFailed
					}
					fmt.Fprintf(a.rawStdout, "%s\n", b)
				}
				return exitOK
			}
			if len(entries) == 0 {
				if f != (ledger.Filter{}) {
					fmt.Fprintf(a.stdout, "no calls match in %s\n", path)
				} else {
					fmt.Fprintf(a.stdout, "no calls in %s\n", path)
				}
				return exitOK
			}
			tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tCALL\tTOOL\tWHO\tOUTCOME\tRUN")
			for _, e := range entries {
				tool := e.Begin.Tool
				if e.Begin.Version != "" {
					tool += "@" + e.Begin.Version
				}
				who := "anonymous"
				if p := e.Begin.Principal; p != nil {
					who = p.String()
					if p.Auth != "" {
						who += " (" + p.Auth + ")"
					}
				}
				outcome, run := e.Status, ""
				if e.End != nil {
					if e.End.Code != codes.OK {
						outcome = string(e.End.Code)
					}
					if e.End.Mode != "" {
						outcome += " " + e.End.Mode
					}
					if e.End.Replayed {
						outcome += " replayed"
					}
					run = fmt.Sprintf("%.3fms", e.End.RunMS)
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Begin.Time.Local().Format("2006-01-02 15:04:05"), e.Begin.Call,
					tool, who, outcome, run)
			}
			tw.Flush()
			return exitOK
		}
	},
}

func (a *app) verifyLedger(path, keyFile string, asJSON bool) int {
	pub, err := ledger.LoadPublicKey(keyFile)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	rep, err := ledger.Verify(path, pub)
	if err != nil {
		a.errorf("%v", err)
		return exitUsage
	}
	if asJSON {
		if c := a.writeJSON(rep); c != exitOK {
			return c
		}
	} else if rep.OK() {
		fmt.Fprintf(a.stdout, "ok: %d records in %d files, %d signed checkpoints, the signed head at record %d\n",
			rep.Records, len(rep.Files), rep.Checkpoints, rep.LastSeq)
	}
	if !rep.OK() {
		a.errorf("ledger verify: %s: %v", path, rep.Problem)
		return exitFailed
	}
	return exitOK
}

// ledgerPaths are the ledger's file and key, "" when none is kept;
// chosen says the file was named ($TOOLEXPLORER_LEDGER or the config), not
// the default place.
func (a *app) ledgerPaths() (path, key string, chosen bool, err error) {
	c := a.cfg.Ledger
	switch env := a.getenv(ledgerEnv); {
	case env == "off":
		return "", "", false, nil
	case env != "":
		path, chosen = env, true
	case c.Disabled:
		return "", "", false, nil
	case c.Path != "":
		path, chosen = c.Path, true
	default:
		dir := a.getenv("XDG_STATE_HOME")
		if dir == "" || !filepath.IsAbs(dir) {
			home := a.getenv("HOME")
			if home == "" {
				return "", "", false, fmt.Errorf("no state directory: set XDG_STATE_HOME, HOME or $%s", ledgerEnv)
			}
			dir = filepath.Join(home, ".local", "state")
		}
		path = filepath.Join(dir, "toolexplorer", "ledger.jsonl")
	}
	key = c.Key
	if key == "" {
		key = path + ".key"
	}
	return path, key, chosen, nil
}

// startLedger opens the ledger and attaches it to the registry, so that
// every call the command makes from now on is recorded. A ledger named by
// $TOOLEXPLORER_LEDGER or the config that cannot be opened is an error:
// no call is made unrecorded. At the default place (a program started
// without a home, or confined so that it cannot write there), it is a
// warning, and the calls go on unrecorded, as they did before there was a
// ledger.
func (a *app) startLedger() int {
	path, key, chosen, err := a.ledgerPaths()
	if err == nil && path != "" {
		c := a.cfg.Ledger
		opts := ledger.Options{Path: path, KeyPath: key, Policy: policyDigest(a), MaxBytes: c.MaxBytes, SyncInterval: c.SyncInterval}
		if strings.EqualFold(c.OnFailure, "continue") {
			opts.OnFailure = ledger.Continue
		}
		var l *ledger.Ledger
		if l, err = ledger.Open(opts); err == nil {
			l.Attach(a.reg)
			a.ledger = l
			return exitOK
		}
	}
	switch {
	case err == nil:
		return exitOK
	case chosen:
		a.errorf("%v (set $%s=off, or the config's ledger.enabled false, to keep none)", err, ledgerEnv)
		return exitFailed
	}
	fmt.Fprintf(a.stderr, "toolexplorer: warning: calls are not recorded in the ledger: %v\n", strings.TrimPrefix(err.Error(), "ledger: "))
	return exitOK
}

// closeLedger writes what the ledger holds and says what it lost.
func (a *app) closeLedger() {
	if a.ledger == nil {
		return
	}
	if err := a.ledger.Close(); err != nil {
		a.errorf("%v", err)
	}
	a.ledger = nil
}

// policyDigest is the SHA-256 of the policy in force: the config's
// access, budgets and limits keys as JSON, then the content of each Cedar
// file access names.
func policyDigest(a *app) string {
	h := sha256.New()
	b, _ := json.Marshal(struct {
		Access  any `json:"access"`
		Budgets any `json:"budgets"`
		Limits  any `json:"limits"`
	}{a.cfg.Access, a.cfg.Budgets, a.cfg.Limits})
	h.Write(b)
	for _, f := range a.cfg.Access.Cedar {
		data, err := os.ReadFile(f)
		if err != nil {
			data = []byte(err.Error())
		}
		fmt.Fprintf(h, "\ncedar %q %d\n", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}
