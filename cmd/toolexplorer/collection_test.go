package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

// checkFile is a collection of demo.echo calls: one that uses a secret
// variable, one filed in a folder, one whose expectation fails when
// failing is set.
func checkFile(t *testing.T, ext string, failing bool) string {
	t.Helper()
	want := "hi"
	if failing {
		want = "bye"
	}
	return writeFile(t, "shop"+ext, `{
  "environments": {"dev": {"greeting": "hi", "token": {"from_env": "COLLECTION_TEST_TOKEN", "secret": true}}},
  "calls": [
    {"name": "greet", "folder": "basics", "tool": "demo.echo", "args": {"text": "{{greeting}}"},
     "expect": {"status": "ok", "jq": [".text == \"`+want+`\"", ".length == 2"]}},
    {"name": "token", "folder": "auth", "tool": "demo.echo", "args": {"text": "{{token}}"},
     "expect": {"jq": [".length > 3"]}},
    {"name": "refused", "tool": "demo.echo", "args": {}, "expect": {"status": "denied", "code": "validation_error"}}
  ]
}`)
}

// collection run exits 0 when every call came to what it expects, with a
// line per call; 1 when one did not, saying which expectation it missed;
// the secret's value never shows.
func TestCollectionRun(t *testing.T) {
	t.Setenv("COLLECTION_TEST_TOKEN", "tok-secret-1234")
	pass := cli(t, "", "collection", "run", checkFile(t, ".json", false), "--env", "dev")
	if pass.code != exitOK {
		t.Fatalf("a passing collection:\n%s", pass)
	}
	for _, want := range []string{", environment dev\n", "✓ basics/greet  demo.echo  ok ", "✓ auth/token  demo.echo  ok ", "✓ refused  demo.echo  denied (validation_error) ", "3 calls: 3 passed, 0 failed"} {
		if !strings.Contains(pass.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, pass.stdout)
		}
	}

	fail := cli(t, "", "collection", "run", checkFile(t, ".json", true), "--env", "dev")
	if fail.code != exitFailed {
		t.Fatalf("a failing collection exits %d, want %d:\n%s", fail.code, exitFailed, fail)
	}
	for _, want := range []string{"✗ basics/greet  demo.echo  ok ", `    jq .text == "bye": gave false, want true`, "3 calls: 2 passed, 1 failed"} {
		if !strings.Contains(fail.stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, fail.stdout)
		}
	}

	// Without the environment, the calls that refer to its variables fail
	// without being made.
	none := cli(t, "", "collection", "run", checkFile(t, ".json", false))
	if none.code != exitFailed || !strings.Contains(none.stdout, "✗ auth/token  demo.echo  not made\n    collection: {{token}} needs an environment, and none is chosen") {
		t.Errorf("without --env:\n%s", none)
	}

	// --json, and --folder.
	js := cli(t, "", "collection", "run", checkFile(t, ".json", true), "--env", "dev", "--json", "--folder", "basics")
	var report struct {
		Environment    string
		Passed, Failed int
		Calls          []struct {
			Path, Tool, Status string
			Passed             bool
			Failures           []string
			CallID             string `json:"call_id"`
		}
	}
	if err := json.Unmarshal([]byte(js.stdout), &report); err != nil || js.code != exitFailed {
		t.Fatalf("--json: %v\n%s", err, js)
	}
	if len(report.Calls) != 1 || report.Calls[0].Path != "basics/greet" || report.Calls[0].Passed || report.Failed != 1 || report.Calls[0].CallID == "" {
		t.Errorf("--json --folder basics: %+v", report)
	}
	for _, o := range []outcome{pass, fail, none, js} {
		if strings.Contains(o.stdout+o.stderr, "tok-secret-1234") {
			t.Errorf("the secret's value was printed:\n%s", o)
		}
	}
}

// A failed expectation that echoes a secret's value names it redacted.
func TestCollectionRunRedactsSecrets(t *testing.T) {
	t.Setenv("COLLECTION_TEST_TOKEN", "tok-secret-1234")
	f := writeFile(t, "c.yaml", `environments:
  dev:
    token: {from_env: COLLECTION_TEST_TOKEN, secret: true}
calls:
  - name: echo
    tool: demo.echo
    args: {text: "{{token}}"}
    expect:
      jq: [.text]
`)
	o := cli(t, "", "collection", "run", f, "--env", "dev")
	if o.code != exitFailed || !strings.Contains(o.stdout, `jq .text: gave "[redacted]", want true`) || strings.Contains(o.stdout, "tok-secret-1234") {
		t.Fatalf("a YAML collection whose expectation echoes the secret:\n%s", o)
	}
}

// Usage errors exit 2: no FILE, a file that is not a collection, an
// unknown environment or folder. The config's environments serve --env.
func TestCollectionRunUsage(t *testing.T) {
	bad := writeFile(t, "bad.json", `{"calls": [{"name": "a", "tool": "demo.echo", "expext": {}}]}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"collection"}, "want collection run FILE"},
		{[]string{"collection", "run"}, "want one collection FILE after run"},
		{[]string{"collection", "run", bad}, `unknown field "expext"`},
		{[]string{"collection", "run", checkFile(t, ".json", false), "--env", "prod"}, `no environment "prod": the collection has dev; no config file is loaded (--config FILE`},
		{[]string{"collection", "run", checkFile(t, ".json", false), "--folder", "nope"}, `no call is filed under "nope"`},
	} {
		o := cli(t, "", tc.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, tc.want) {
			t.Errorf("%q: exit %d, want 2 saying %q:\n%s", tc.args, o.code, tc.want, o)
		}
	}
	cfg := writeFile(t, "config.json", `{"environments": {"staging": {"greeting": "hi", "token": "abcd"}}}`)
	if o := cli(t, "", "collection", "run", checkFile(t, ".json", false), "--env", "staging", "--config", cfg); o.code != exitOK || !strings.Contains(o.stdout, "environment staging") {
		t.Errorf("an environment of the config:\n%s", o)
	}
}

// An environment that neither the collection nor the config has is named
// with those they have, and with the config missing when none is loaded;
// the errors of a collection file name the command once.
func TestCollectionRunNamesTheEnvironmentsThereAre(t *testing.T) {
	t.Setenv(configEnv, "")
	cfg := writeFile(t, "config.json", `{"environments": {"staging": {"greeting": "hi"}, "dev": {"greeting": "hello"}}}`)
	plain := writeFile(t, "plain.json", `{"calls": [{"name": "a", "tool": "demo.echo", "args": {"text": "x"}}]}`)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"collection", "run", plain, "--env", "prod", "--config", cfg}, `no environment "prod": the collection defines none; the config has dev, staging`},
		{[]string{"collection", "run", plain, "--env", "dev"}, `no environment "dev": the collection defines none; no config file is loaded (--config FILE, or $TOOLEXPLORER_CONFIG)`},
		{[]string{"run", "demo.echo", "--args", `{"text":"{{greeting}}"}`, "--env", "dev"}, `--env: no environment "dev": no config file is loaded (--config FILE, or $TOOLEXPLORER_CONFIG)`},
		{[]string{"collection", "run", filepath.Join(t.TempDir(), "missing.yaml")}, "toolexplorer: collection: open "},
	} {
		o := cli(t, "", tc.args...)
		if o.code != exitUsage || !strings.Contains(o.stderr, tc.want) || strings.Contains(o.stderr, "collection: collection:") {
			t.Errorf("%q: exit %d, want 2 saying %q:\n%s", tc.args, o.code, tc.want, o)
		}
	}
}

// run --env fills the {{references}} of the arguments from the config's
// environment; the history keeps the references and the environment,
// never the secret's value, even where the output echoes it.
func TestRunEnv(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	t.Setenv(history.FileEnv, hist)
	t.Setenv("RUN_ENV_TEST_TOKEN", "tok-secret-5678")
	cfg := writeFile(t, "config.json", `{"environments": {"dev": {"who": "bob", "token": {"from_env": "RUN_ENV_TEST_TOKEN", "secret": true}}}}`)
	o := cli(t, "", "run", "demo.echo", "--config", cfg, "--env", "dev", "--args", `{"text":"{{who}} {{token}}"}`, "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, `"text": "bob tok-secret-5678"`) {
		t.Fatalf("run --env:\n%s", o)
	}
	raw, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), "tok-secret-5678") || !strings.Contains(string(raw), `{{who}} {{token}}`) || !strings.Contains(string(raw), `"env":"dev"`) {
		t.Errorf("the history keeps:\n%s", raw)
	}
	if o := cli(t, "", "run", "demo.echo", "--config", cfg, "--env", "prod", "--args", `{}`); o.code != exitUsage || !strings.Contains(o.stderr, `no environment "prod": the config has dev`) {
		t.Errorf("an unknown environment:\n%s", o)
	}
	if o := cli(t, "", "run", "demo.echo", "--config", cfg, "--env", "dev", "--args", `{"text":"{{nope}}"}`); o.code != exitUsage || !strings.Contains(o.stderr, "{{nope}} is not a variable of environment dev") {
		t.Errorf("an unknown variable:\n%s", o)
	}
}

// TestREADMECollections runs the collection of the README's "Variables and
// collections" with its config: every call comes to what it expects in
// environment dev; in prod, whose greeting differs, the greeting misses.
func TestREADMECollections(t *testing.T) {
	blocks := readmeSection(t, "Variables and collections")
	cfg := writeFile(t, "toolexplorer.json", blocks["json"])
	smoke := writeFile(t, "smoke.yaml", blocks["yaml"])
	if !strings.Contains(blocks["sh"], "collection run smoke.yaml --env dev --config toolexplorer.json") {
		t.Fatalf("the README's command changed:\n%s", blocks["sh"])
	}
	t.Setenv("DEV_TOKEN", "dev-token-value")
	if o := cli(t, "", "collection", "run", smoke, "--env", "dev", "--config", cfg); o.code != exitOK || !strings.Contains(o.stdout, "2 calls: 2 passed, 0 failed") {
		t.Fatalf("the README's collection in dev:\n%s", o)
	}
	if o := cli(t, "", "collection", "run", smoke, "--env", "prod", "--config", cfg); o.code != exitFailed || !strings.Contains(o.stdout, `✗ smoke/greet`) {
		t.Fatalf("the README's collection in prod:\n%s", o)
	}
	// The command line the prose shows, as written, the config being the
	// file the collection's command names.
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, _ := strings.Cut(string(readme), "\n## Variables and collections\n")
	_, line, ok := strings.Cut(sec, "`toolexplorer run ")
	line, _, _ = strings.Cut(line, "`")
	args, err := shellWords("run " + line)
	if !ok || err != nil {
		t.Fatalf("the README's run --env command %q: %v", line, err)
	}
	for i, a := range args {
		if a == "toolexplorer.json" {
			args[i] = cfg
		}
	}
	if o := cli(t, "", args...); o.code != exitOK || !strings.Contains(o.stdout, `"text": "hello"`) {
		t.Fatalf("the README's %q:\n%s", args, o)
	}
}
