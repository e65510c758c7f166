package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

const secretToolsFile = `sources:
  api:
    http:
      base_url: "%URL%"
      allow_private: true
      headers:
        Authorization: "Bearer ${FILES_TEST_TOKEN}"
tools:
  - name: filetest.get
    title: Get
    description: Get one item; the server echoes the request's headers.
    input:
      type: object
      properties: {id: {type: string, description: the item}}
      required: [id]
      additionalProperties: false
    meta: {effects: [read, network], concurrency: read_only}
    binding:
      http: {source: api, path: "/items/{id}"}
  - name: filetest.create
    title: Create
    description: Create an item (shadow mode).
    input:
      type: object
      properties: {name: {type: string, description: its name}}
      required: [name]
      additionalProperties: false
    meta: {effects: [write, network]}
    shadow: true
    binding:
      http: {source: api, method: POST, path: /items, body: {name: "{name}"}}
  - name: filetest.fail
    title: Fail
    description: A server error that quotes the request's headers.
    meta: {effects: [read, network], concurrency: read_only}
    binding:
      http: {source: api, path: /fail}
`

// writeToolsDir writes the tools file against the server at url.
func writeToolsDir(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	content := strings.ReplaceAll(secretToolsFile, "%URL%", url)
	if err := os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// echoServer answers with the Authorization header it got, in the body of
// a success and of a 500: the worst a server can do with a credential.
func echoServer(t *testing.T, got *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		got.Store(auth)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/fail" {
			w.WriteHeader(http.StatusInternalServerError)
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"auth": auth, "path": r.URL.Path, "message": "echo " + auth})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestToolFilesListDescribe(t *testing.T) {
	var got atomic.Value
	dir := writeToolsDir(t, echoServer(t, &got).URL)
	t.Setenv("FILES_TEST_TOKEN", "x-token-value")
	o := cli(t, "", "--tools-dir", dir, "list", "--filter", "filetest")
	if o.code != exitOK || !strings.Contains(o.stdout, "http:api shadow") || !strings.Contains(o.stdout, "filetest.get") {
		t.Fatalf("list:\n%s", o)
	}
	o = cli(t, "", "describe", "--tools-dir", dir, "filetest.create", "--json")
	var info struct {
		Binding struct {
			Kind, Source string
			Env          []string
			Binding      json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(o.stdout), &info); err != nil || info.Binding.Kind != "http" || info.Binding.Source != "api" ||
		strings.Join(info.Binding.Env, ",") != "FILES_TEST_TOKEN" || !strings.Contains(string(info.Binding.Binding), `"POST"`) {
		t.Fatalf("describe --json: %v\n%s", err, o)
	}
	// The tools are gone from the registry when the command ends.
	if _, ok := tooling.Default().Lookup("filetest.get"); ok {
		t.Fatal("a tools file's tool outlived its command")
	}
}

func TestToolFilesLint(t *testing.T) {
	dir := t.TempDir()
	broken := `sources:
  db:
    http:
      base_url: "http://user:hunter22@example.com/"
      headers: {Authorization: "Bearer abcdefghijklmnop"}
tools:
  - name: broken.one
    binding:
      http: {source: db, pathh: /x}
`
	if err := os.WriteFile(filepath.Join(dir, "broken.yaml"), []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}
	o := cli(t, "", "lint", "--tools-dir", dir)
	f := filepath.Join(dir, "broken.yaml")
	for _, want := range []string{
		f + `:9: tools[0].binding.http.pathh: unknown key "pathh"`,
		f + `:4: sources.db.http.base_url: looks like a password in a URL written out`,
		f + `:5: sources.db.http.headers.Authorization: looks like a bearer token written out`,
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("lint lacks %q:\n%s", want, o)
		}
	}
	if o.code != exitFailed {
		t.Fatalf("lint exit %d", o.code)
	}
	var got atomic.Value
	ok := writeToolsDir(t, echoServer(t, &got).URL)
	o = cli(t, "", "lint", "--tools-dir", ok, "--json")
	var rep lintReport
	if err := json.Unmarshal([]byte(o.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Credentials[filepath.Join(ok, "api.yaml")], ",") != "FILES_TEST_TOKEN" {
		t.Fatalf("credentials %v", rep.Credentials)
	}
	for _, p := range rep.Problems {
		if p.Check == "tools_file" {
			t.Fatalf("a clean tools file has a problem: %+v", p)
		}
	}
}

type eventLog struct {
	mu  sync.Mutex
	all []tooling.Event
}

func (l *eventLog) Observe(_ context.Context, ev tooling.Event) {
	l.mu.Lock()
	l.all = append(l.all, ev)
	l.mu.Unlock()
}

// TestNoSecretInAnyOutput runs every command on tools files whose
// credential a server echoes back, and looks for the credential's value in
// every byte written: stdout and stderr, results, errors, events, the
// call history.
func TestNoSecretInAnyOutput(t *testing.T) {
	const secret = "s3cr3t-Zq81-never-shown"
	var got atomic.Value
	dir := writeToolsDir(t, echoServer(t, &got).URL)
	t.Setenv("FILES_TEST_TOKEN", secret)
	events := &eventLog{}
	remove := tooling.Default().Audit(events.Observe)

	runs := [][]string{
		{"list"}, {"list", "--json"},
		{"describe", "filetest.get"}, {"describe", "filetest.create", "--json"},
		{"schemas", "--format", "mcp"}, {"schemas", "--format", "openai"}, {"schemas", "--format", "anthropic"},
		{"run", "filetest.get", "--args", `{"id":"7"}`}, {"run", "filetest.get", "--args", `{"id":"7"}`, "--json"},
		{"run", "filetest.create", "--consent", "--args", `{"name":"x"}`, "--json"},
		{"run", "filetest.fail", "--json"}, {"run", "filetest.fail"},
		{"lint"}, {"lint", "--json"},
	}
	var all strings.Builder
	for _, args := range runs {
		o := cli(t, "", append([]string{"--tools-dir", dir}, args...)...)
		all.WriteString(o.stdout + o.stderr)
		if strings.Contains(o.stdout+o.stderr, secret) {
			t.Errorf("%v shows the secret:\n%s", args, o)
		}
	}
	remove()
	// The attack is real: the server got the secret, and echoed it into
	// what the tool returned, where it shows as its reference.
	if got.Load() != "Bearer "+secret {
		t.Fatalf("the server got %q: the secret never left", got.Load())
	}
	if !strings.Contains(all.String(), "Bearer ${FILES_TEST_TOKEN}") {
		t.Fatalf("no output shows the echoed credential as its reference:\n%s", all.String())
	}
	if len(events.all) == 0 {
		t.Fatal("no events observed")
	}
	for _, ev := range events.all {
		b, _ := json.Marshal(ev)
		if strings.Contains(string(b), secret) {
			t.Errorf("an event shows the secret: %s", b)
		}
	}
	state := os.Getenv("XDG_STATE_HOME")
	_ = filepath.WalkDir(state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
}
