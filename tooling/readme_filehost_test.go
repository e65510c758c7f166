package tooling_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// driverModules are the modules of the SQL drivers and queue clients that
// bindings/sqlite, bindings/postgres, bindings/redis and bindings/nats link.
var driverModules = []string{"modernc.org/sqlite", "github.com/jackc/pgx", "github.com/redis/go-redis", "github.com/nats-io/nats.go"}

// checkFileToolsProgram checks the front page's host (README.md, "A host
// with tools from a file"): its binary links no database driver or queue
// client, it serves the HTTP tools of a file to an MCP client over stdio,
// and it refuses a file with a SQL source, naming the import to add.
func checkFileToolsProgram(t *testing.T, bin, src string) {
	t.Helper()
	dir := filepath.Dir(bin)

	// What the binary links, by module. The control, the same program
	// with the SQLite driver imported, proves that the check sees a driver
	// that is linked.
	const imports = "import (\n"
	if !strings.Contains(src, imports) {
		t.Fatalf("the front page's host has no %q", imports)
	}
	control := readmeModule(t, map[string]string{"main.go": strings.Replace(src, imports, imports+"\t_ \"github.com/toolexplorer/toolexplorer/bindings/sqlite\"\n", 1)})
	if out, err := goIn(control, "build", "-o", "host", "."); err != nil {
		t.Fatalf("the front page's host with the SQLite driver does not build: %v\n%s", err, out)
	}
	if linked := linkedDrivers(t, filepath.Join(control, "host")); !slices.Contains(linked, "modernc.org/sqlite") {
		t.Fatalf("the front page's host with the SQLite driver imported links %v, not modernc.org/sqlite: the check sees no driver", linked)
	}
	if linked := linkedDrivers(t, bin); len(linked) > 0 {
		t.Errorf("the front page's host links %v, drivers it does not use", linked)
	}

	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"greeting": %q}`, "hello, "+strings.TrimPrefix(r.URL.Path, "/greet/"))
	}))
	defer api.Close()
	tools := filepath.Join(dir, "greet.json")
	writeFile(t, tools, `{
  "sources": {"api": {"http": {"base_url": "`+api.URL+`", "allow_private": true}}},
  "tools": [{
    "name": "api.greet",
    "description": "Greets someone.",
    "input": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    "meta": {"effects": ["read", "network"], "concurrency": "read_only"},
    "binding": {"http": {"source": "api", "path": "/greet/{name}", "response": {"data": "/greeting"}}}
  }]
}`)

	// A generous bound, so that a program that hangs fails the test
	// instead of stalling it: killed, its stdout ends.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, tools)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	// call sends a request and returns the result of its reply, skipping
	// the notifications the server sends meanwhile.
	call := func(id int, method, params string) string {
		t.Helper()
		fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		for lines.Scan() {
			var reply struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(lines.Bytes(), &reply); err != nil {
				t.Fatalf("%s: reply %q: %v", method, lines.Text(), err)
			}
			if reply.ID == nil || *reply.ID != id {
				continue
			}
			if reply.Error != nil {
				t.Fatalf("%s: error %s", method, reply.Error)
			}
			return string(reply.Result)
		}
		t.Fatalf("%s: no reply, stdout ended (%v); stderr:\n%s", method, lines.Err(), stderr.String())
		return ""
	}
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}`)
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if list := call(2, "tools/list", `{}`); !strings.Contains(list, `"name":"api.greet"`) {
		t.Errorf("tools/list does not list api.greet: %s", list)
	}
	if res := call(3, "tools/call", `{"name":"api.greet","arguments":{"name":"ada"}}`); !strings.Contains(res, "hello, ada") || strings.Contains(res, `"isError":true`) {
		t.Errorf("tools/call api.greet: %s", res)
	}
	stdin.Close()
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Errorf("the program, after its client went away: %v; stderr:\n%s", err, stderr.String())
	}

	// A file that needs a driver the program does not link.
	sqlTools := filepath.Join(dir, "shop.yaml")
	writeFile(t, sqlTools, `sources:
  shop: {sql: {driver: sqlite, dsn: "file:shop.db"}}
tools:
  - name: shop.count
    description: Counts the products.
    input: {type: object}
    meta: {effects: [read]}
    binding: {sql: {source: shop, statement: SELECT count(*) FROM products, read_only: true}}
`)
	out, err := exec.CommandContext(ctx, bin, sqlTools).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "github.com/toolexplorer/toolexplorer/bindings/sqlite") {
		t.Errorf("a tools file with a SQLite source: %v, want exit 1 naming the import of bindings/sqlite:\n%s", err, out)
	}
}

// linkedDrivers returns the driver modules that the binary at bin links,
// as go version -m lists its modules.
func linkedDrivers(t *testing.T, bin string) []string {
	t.Helper()
	out, err := goIn(filepath.Dir(bin), "version", "-m", bin)
	if err != nil {
		t.Fatalf("go version -m: %v\n%s", err, out)
	}
	var linked []string
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "dep" {
			continue
		}
		for _, m := range driverModules {
			if f[1] == m || strings.HasPrefix(f[1], m+"/") {
				linked = append(linked, f[1])
			}
		}
	}
	return linked
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
