package bindings

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// One tool of a SQLite source attaching another database file would leave
// it attached to the pooled connection, where the next call of any tool
// reads it. The control shows the attack is real on the driver's own
// pooled connection; the tools file that does it is refused at load, and
// lint says why.
func TestSQLiteAttachIsRefused(t *testing.T) {
	dir := t.TempDir()
	secretDB := filepath.Join(dir, "secret.db")
	sdb, err := sql.Open("sqlite", secretDB)
	if err != nil {
		t.Fatal(err)
	}
	execSQL(t, sdb, `CREATE TABLE secret (v TEXT)`)
	execSQL(t, sdb, `INSERT INTO secret VALUES ('TOP-SECRET-DB-ROW')`)
	sdb.Close()
	mainDB := filepath.Join(dir, "main.db")

	// The control: on one pooled connection, ATTACH in one call is seen by
	// the next.
	db, err := sql.Open("sqlite", mainDB)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`ATTACH DATABASE ? AS s`, secretDB); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRow(`SELECT v FROM s.secret`).Scan(&got); err != nil || got != "TOP-SECRET-DB-ROW" {
		t.Fatalf("control: %q, %v", got, err)
	}
	db.Close()

	file := filepath.Join(dir, "tools.yaml")
	const tools = `sources:
  db: {sql: {driver: sqlite, dsn: "${MAIN_DB}"}}
tools:
  - name: db.attach
    input: {type: object, properties: {path: {type: string}}, required: [path]}
    meta: {effects: [write]}
    binding: {sql: {source: db, statement: "ATTACH DATABASE :path AS s"}}
  - name: db.read
    meta: {effects: [read], concurrency: read_only}
    binding: {sql: {source: db, statement: "SELECT v FROM s.secret", read_only: true}}
`
	if err := os.WriteFile(file, []byte(tools), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(name string) (string, bool) { return mainDB, name == "MAIN_DB" }
	set, err := Load([]string{file}, Options{Env: env})
	if err == nil {
		set.Close()
		t.Fatal("a tools file with ATTACH loaded")
	}
	if msg := err.Error(); !strings.Contains(msg, "tools.yaml:7: tools[0].binding.sql.statement") || !strings.Contains(msg, "ATTACH changes which databases the connection sees") {
		t.Errorf("load error: %v", err)
	}
	rep := Lint([]string{file})
	found := false
	for _, p := range rep.Problems {
		found = found || strings.Contains(p.Message, "ATTACH changes which databases") && p.Pos.Line == 7
	}
	if !found {
		t.Errorf("lint: %+v", rep.Problems)
	}

	// The reader alone cannot reach the other file.
	reader := strings.Replace(tools, tools[strings.Index(tools, "  - name: db.attach"):strings.Index(tools, "  - name: db.read")], "", 1)
	if err := os.WriteFile(file, []byte(reader), 0o600); err != nil {
		t.Fatal(err)
	}
	_, r := loadInto(t, map[string]string{"r.yaml": reader}, Options{Env: env})
	res, _ := r.Execute(context.Background(), "db.read", nil)
	if res.OK() || strings.Contains(string(res.Output)+res.Message, "TOP-SECRET-DB-ROW") {
		t.Errorf("the reader: %s %s %s", res.Code, res.Message, res.Output)
	}
}

func TestSQLiteStateChange(t *testing.T) {
	for stmt, refused := range map[string]bool{
		"ATTACH DATABASE :path AS s":                 true,
		"attach 'x.db' as s":                         true,
		"/* hi */ ATTACH :p AS s":                    true,
		"DETACH s":                                   true,
		"detach database s;":                         true,
		"EXPLAIN ATTACH :p AS s":                     true,
		"PRAGMA query_only = 0":                      true,
		"pragma query_only=false":                    true,
		"PRAGMA foreign_keys = OFF":                  true,
		"PRAGMA main.journal_mode = DELETE":          true,
		"PRAGMA cache_size(100)":                     true,
		"PRAGMA optimize":                            true,
		"EXPLAIN QUERY PLAN PRAGMA user_version = 1": true,
		"PRAGMA user_version":                        false,
		"PRAGMA table_info(products)":                false,
		"PRAGMA main.index_list('products')":         false,
		"PRAGMA integrity_check":                     false,
		"SELECT * FROM pragma_table_info('t')":       false,
		"SELECT 'ATTACH' AS word":                    false,
		`SELECT "attach" FROM t`:                     false,
		"SELECT * FROM t WHERE id = :id":             false,
		"INSERT INTO t (a) VALUES (:a)":              false,
	} {
		if got := sqliteStateChange(stmt) != ""; got != refused {
			t.Errorf("%q: refused %v, want %v", stmt, got, refused)
		}
	}
}
