package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/toolexplorer/toolexplorer/ledger"
)

const effectsToolsFile = `sources:
  api:
    http: {base_url: "%URL%", allow_private: true}
  db:
    sql: {driver: sqlite, dsn: "%DB%"}
%QUEUE%tools:
  - name: fx.post
    title: Post
    description: Post an item.
    input: {type: object, properties: {name: {type: string, description: its name}}, required: [name], additionalProperties: false}
    meta: {effects: [write, network]}
    binding:
      http: {source: api, method: POST, path: /items, body: {name: "{name}"}}
  - name: fx.insert
    title: Insert
    description: Insert a row.
    input: {type: object, properties: {name: {type: string, description: its name}}, required: [name], additionalProperties: false}
    meta: {effects: [write]}
    binding:
      sql: {source: db, statement: "INSERT INTO items (name) VALUES (:name)"}
%QUEUETOOL%`

const effectsQueueSource = `  events:
    queue: {provider: redis, url: "redis://%REDIS%/0"}
`

const effectsQueueTool = `  - name: fx.publish
    title: Publish
    description: Publish an event.
    input: {type: object, properties: {order: {type: string, description: the order}}, required: [order], additionalProperties: false}
    meta: {effects: [write, network]}
    binding:
      queue: {source: events, stream: "%STREAM%", message: {order: "{order}"}}
`

// TestLedgerRecordsSideEffects: the ledger's end record of a file tool's
// call holds its side effects, read back from the file: the host:port,
// method and bytes of an HTTP request, the digest of an SQL statement and
// the rows it changed, the stream and bytes of a published message (when
// a Redis server is given).
func TestLedgerRecordsSideEffects(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":1}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "fx.db")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	content := strings.NewReplacer("%URL%", srv.URL, "%DB%", dbPath).Replace(effectsToolsFile)
	stream := ""
	if addr := os.Getenv("TOOLEXPLORER_TEST_REDIS"); addr != "" {
		stream = "test:effects:" + rand.Text()[:8]
		c := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, Protocol: 2})
		defer c.Close()
		defer c.Del(context.Background(), stream)
		content = strings.NewReplacer("%QUEUE%", strings.ReplaceAll(effectsQueueSource, "%REDIS%", addr),
			"%QUEUETOOL%", strings.ReplaceAll(effectsQueueTool, "%STREAM%", stream)).Replace(content)
	} else {
		content = strings.NewReplacer("%QUEUE%", "", "%QUEUETOOL%", "").Replace(content)
	}
	tools := filepath.Join(dir, "tools")
	if err := os.Mkdir(tools, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tools, "fx.yaml"), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ledger.jsonl")
	t.Setenv(ledgerEnv, path)
	calls := [][]string{{"fx.post", `{"name":"lamp"}`}, {"fx.insert", `{"name":"lamp"}`}}
	if stream != "" {
		calls = append(calls, []string{"fx.publish", `{"order":"A-1"}`})
	}
	for _, c := range calls {
		if o := cli(t, "", "--tools-dir", tools, "run", c[0], "--consent", "--args", c[1]); o.code != exitOK {
			t.Fatalf("run %s: %v", c[0], o)
		}
	}
	entries, err := ledger.Read(path, ledger.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	effects := map[string]map[string]string{}
	for _, e := range entries {
		if e.End == nil {
			t.Fatalf("a call without its end: %+v", e.Begin)
		}
		effects[e.Begin.Tool] = e.End.Effects
		for k := range e.End.Detail {
			if strings.HasPrefix(k, "effect.") {
				t.Errorf("%s: the effect %s stayed in the detail", e.Begin.Tool, k)
			}
		}
	}
	u, _ := url.Parse(srv.URL)
	want := map[string]string{"host": net.JoinHostPort(u.Hostname(), u.Port()), "method": "POST", "bytes_sent": "15"}
	if !sameMap(effects["fx.post"], want) {
		t.Errorf("fx.post effects %v, want %v", effects["fx.post"], want)
	}
	sum := sha256.Sum256([]byte("INSERT INTO items (name) VALUES (:name)"))
	want = map[string]string{"statement_sha256": hex.EncodeToString(sum[:]), "rows": "1"}
	if !sameMap(effects["fx.insert"], want) {
		t.Errorf("fx.insert effects %v, want %v", effects["fx.insert"], want)
	}
	if stream != "" {
		want = map[string]string{"stream": stream, "bytes": "15"}
		if !sameMap(effects["fx.publish"], want) {
			t.Errorf("fx.publish effects %v, want %v", effects["fx.publish"], want)
		}
	}
	if o := cli(t, "", "ledger", "verify"); o.code != exitOK {
		t.Fatalf("ledger verify: %v", o)
	}
}

func sameMap(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
