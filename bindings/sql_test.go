package bindings

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// sqlFixture is a SQLite database on a real file with a products table,
// and a source over it.
type sqlFixture struct {
	path string
	db   *sql.DB // a plain connection, to look at the table behind the tools
	src  *sqlSource
}

func newSQLite(t testing.TB) *sqlFixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shop.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	execSQL(t, db, `CREATE TABLE products (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		price REAL NOT NULL,
		photo BLOB,
		note TEXT,
		added DATETIME)`)
	execSQL(t, db, `INSERT INTO products (id, name, price, photo, note, added) VALUES
		(1, 'apple', 0.5, x'00ff10', NULL, '2026-01-02 03:04:05'),
		(2, 'bread', 2.25, NULL, 'fresh', NULL),
		(3, 'cheese', 7, NULL, NULL, NULL),
		(4, 'dates', 4.5, NULL, NULL, NULL),
		(5, 'eggs', 3, NULL, NULL, NULL)`)
	src, err := openSQL("shop", &SQLSource{Driver: "sqlite", DSN: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.close() })
	return &sqlFixture{path: path, db: db, src: src}
}

func execSQL(t testing.TB, db *sql.DB, stmt string, args ...any) {
	t.Helper()
	if _, err := db.Exec(stmt, args...); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

func countRows(t testing.TB, db *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func mustCompileSQL(t testing.TB, src *sqlSource, b SQLBinding, in Input) binding {
	t.Helper()
	bd, err := compileSQL(&b, src, in)
	if err != nil {
		t.Fatalf("compileSQL(%q): %v", b.Statement, err)
	}
	return bd
}

// outputJSON is the output as the registry encodes it.
func sqlOutputJSON(t testing.TB, o Outcome) string {
	t.Helper()
	b, err := json.Marshal(o.Output)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSQLiteReadKeepsTypes(t *testing.T) {
	f := newSQLite(t)
	b := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `SELECT id, name, price, photo, note, added FROM products WHERE price <= :max_price ORDER BY id`,
		ReadOnly:  true,
	}, props(nil, "max_price", "number"))
	o, err := b.do(context.Background(), &Request{Args: map[string]any{"max_price": json.Number("2.25")}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["id","name","price","photo","note","added"],"rows":[` +
		`{"id":1,"name":"apple","price":0.5,"photo":"AP8Q","note":null,"added":"2026-01-02T03:04:05Z"},` +
		`{"id":2,"name":"bread","price":2.25,"photo":null,"note":"fresh","added":null}],"row_count":2}`
	if got := sqlOutputJSON(t, o); got != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
	if o.Status != "2 rows" || o.ResponseBytes == 0 {
		t.Errorf("status %q, response bytes %d", o.Status, o.ResponseBytes)
	}
	if b.writes() || b.kind() != "sql" || b.source() != "shop" {
		t.Errorf("writes %v kind %q source %q", b.writes(), b.kind(), b.source())
	}
}

func TestSQLiteArgumentsStayData(t *testing.T) {
	f := newSQLite(t)
	attack := `'; DROP TABLE products; --`
	find := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `SELECT id FROM products WHERE name = :name`, ReadOnly: true,
	}, props(nil, "name", "string"))
	o, err := find.do(context.Background(), &Request{Args: map[string]any{"name": attack}})
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); got != `{"columns":["id"],"rows":[],"row_count":0}` {
		t.Errorf("output %s", got)
	}
	add := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `INSERT INTO products (name, price) VALUES (:name, :price)`,
	}, props(nil, "name", "string", "price", "number"))
	if _, err := add.do(context.Background(), &Request{Args: map[string]any{"name": attack, "price": json.Number("1")}}); err != nil {
		t.Fatal(err)
	}
	// The value is stored as it was given, and the table is still there.
	var name string
	if err := f.db.QueryRow(`SELECT name FROM products WHERE id = 6`).Scan(&name); err != nil || name != attack {
		t.Errorf("stored name %q, %v", name, err)
	}
	if n := countRows(t, f.db, "products"); n != 6 {
		t.Errorf("%d products after the insert, want 6", n)
	}
	// Control: the same value spliced into the text drops the table.
	if _, err := f.db.Exec(`SELECT id FROM products WHERE name = '` + attack + `'`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Exec(`SELECT 1 FROM products`); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("the spliced statement left the table: %v", err)
	}
}

func TestSQLiteReadOnlyRefusesWrites(t *testing.T) {
	for name, dsn := range map[string]string{"plain": "", "query_only=0": "?_query_only=0", "pragma": "?_pragma=query_only(0)"} {
		t.Run(name, func(t *testing.T) {
			f := newSQLite(t)
			src, err := openSQL("shop", &SQLSource{Driver: "sqlite", DSN: "file:" + f.path + dsn})
			if err != nil {
				t.Fatal(err)
			}
			defer src.close()
			for _, stmt := range []string{
				`INSERT INTO products (name, price) VALUES (:name, 1)`,
				`DELETE FROM products WHERE name <> :name`,
				`WITH x AS (SELECT 1) UPDATE products SET price = 0 WHERE name <> :name`,
			} {
				ro := mustCompileSQL(t, src, SQLBinding{Statement: stmt, ReadOnly: true}, props(nil, "name", "string"))
				_, err := ro.do(context.Background(), &Request{Args: map[string]any{"name": "figs"}})
				if err == nil || !strings.Contains(err.Error(), "readonly") {
					t.Errorf("%s in a read-only tool: err %v, want the database's refusal", stmt, err)
				}
				var te *TransientError
				if errors.As(err, &te) {
					t.Errorf("a refused write is not worth another attempt: %v", err)
				}
			}
			if n := countRows(t, f.db, "products"); n != 5 {
				t.Fatalf("%d products after read-only writes, want 5", n)
			}
			// Control: the same write, not read-only, changes the table.
			rw := mustCompileSQL(t, src, SQLBinding{Statement: `INSERT INTO products (name, price) VALUES (:name, 1)`}, props(nil, "name", "string"))
			if !rw.writes() {
				t.Error("a statement that is not read-only must say it writes")
			}
			o, err := rw.do(context.Background(), &Request{Args: map[string]any{"name": "figs"}})
			if err != nil {
				t.Fatal(err)
			}
			if got := sqlOutputJSON(t, o); got != `{"rows_affected":1}` || o.Status != "1 row affected" {
				t.Errorf("output %s status %q", got, o.Status)
			}
			if n := countRows(t, f.db, "products"); n != 6 {
				t.Errorf("%d products after the write, want 6", n)
			}
		})
	}
}

func TestSQLiteShadowRollsBack(t *testing.T) {
	f := newSQLite(t)
	order := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `INSERT INTO products (name, price) VALUES (:name, :price) RETURNING id, name`,
	}, props(nil, "name", "string", "price", "number"))
	args := map[string]any{"name": "figs", "price": json.Number("3.5")}
	o, err := order.do(context.Background(), &Request{Args: args, Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["id","name"],"params":{"name":"figs","price":3.5},"rolled_back":true,"row_count":1,"rows":[{"id":6,"name":"figs"}],` +
		`"rows_affected":1,"shadow":true,"statement":"INSERT INTO products (name, price) VALUES (:name, :price) RETURNING id, name"}`
	if got := sqlOutputJSON(t, o); got != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
	if o.Status != "shadow: 1 row would change" {
		t.Errorf("status %q", o.Status)
	}
	discount := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `UPDATE products SET price = price / 2 WHERE price > :above`,
	}, props(nil, "above", "number"))
	o, err = discount.do(context.Background(), &Request{Args: map[string]any{"above": json.Number("1")}, Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); !strings.Contains(got, `"rows_affected":4`) || !strings.Contains(got, `"shadow":true`) {
		t.Errorf("output %s", got)
	}
	// Nothing changed.
	var n int
	var sum float64
	if err := f.db.QueryRow(`SELECT count(*), sum(price) FROM products`).Scan(&n, &sum); err != nil || n != 5 || sum != 17.25 {
		t.Errorf("after shadow writes: %d products, prices summing to %v (%v); want 5 and 17.25", n, sum, err)
	}
	// Control: the same write, not in shadow mode, changes the table.
	if _, err := order.do(context.Background(), &Request{Args: args}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, f.db, "products"); n != 6 {
		t.Errorf("%d products after the real write, want 6", n)
	}
}

func TestSQLiteMaxRows(t *testing.T) {
	f := newSQLite(t)
	b := mustCompileSQL(t, f.src, SQLBinding{Statement: `SELECT id FROM products ORDER BY id`, ReadOnly: true, MaxRows: 2}, Input{})
	o, err := b.do(context.Background(), &Request{})
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); got != `{"columns":["id"],"rows":[{"id":1},{"id":2}],"row_count":2,"truncated":true,"max_rows":2}` {
		t.Errorf("output %s", got)
	}
	if o.Status != "2 rows (cut at max_rows)" {
		t.Errorf("status %q", o.Status)
	}
	// Exactly max_rows rows is not a cut.
	b = mustCompileSQL(t, f.src, SQLBinding{Statement: `SELECT id FROM products`, ReadOnly: true, MaxRows: 5}, Input{})
	if o, err = b.do(context.Background(), &Request{}); err != nil || strings.Contains(sqlOutputJSON(t, o), "truncated") {
		t.Errorf("5 rows with max_rows 5: %s, %v", sqlOutputJSON(t, o), err)
	}
	// A write's RETURNING counts every row it changed, and shows max_rows.
	b = mustCompileSQL(t, f.src, SQLBinding{Statement: `UPDATE products SET note = 'x' RETURNING id`, MaxRows: 2}, Input{})
	if o, err = b.do(context.Background(), &Request{Shadow: true}); err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); !strings.Contains(got, `"max_rows":2,`) || !strings.Contains(got, `"row_count":2,"rows":[{"id":1},{"id":2}],"rows_affected":5,`) || !strings.Contains(got, `"truncated":true`) {
		t.Errorf("output %s", got)
	}
}

func TestSQLiteBindsArgumentTypes(t *testing.T) {
	f := newSQLite(t)
	b := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `SELECT typeof(:i) AS i, typeof(:n) AS n, typeof(:s) AS s, typeof(:b) AS b, typeof(:absent) AS absent, :obj AS obj`,
		ReadOnly:  true,
	}, props(nil, "i", "integer", "n", "number", "s", "string", "b", "boolean", "absent", "string", "obj", "object"))
	o, err := b.do(context.Background(), &Request{Args: map[string]any{
		"i": json.Number("7"), "n": json.Number("7.5"), "s": "7", "b": true,
		"obj": map[string]any{"a": []any{json.Number("1")}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["i","n","s","b","absent","obj"],"rows":[{"i":"integer","n":"real","s":"text","b":"integer","absent":"null","obj":"{\"a\":[1]}"}],"row_count":1}`
	if got := sqlOutputJSON(t, o); got != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
}

func TestSQLiteConstraintIsAToolError(t *testing.T) {
	f := newSQLite(t)
	add := mustCompileSQL(t, f.src, SQLBinding{Statement: `INSERT INTO products (name, price) VALUES (:name, 1)`}, props(nil, "name", "string"))
	_, err := add.do(context.Background(), &Request{Args: map[string]any{"name": "apple"}})
	var te *TransientError
	if err == nil || errors.As(err, &te) || !strings.Contains(err.Error(), "UNIQUE constraint failed: products.name") {
		t.Errorf("duplicate name: %v, want the constraint's message, not transient", err)
	}
}

func TestSQLiteCancelStopsTheQuery(t *testing.T) {
	noQueueLeaks(t)
	f := newSQLite(t)
	// A query that never ends unless it is interrupted.
	forever := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c`,
		ReadOnly:  true,
	}, Input{})
	for _, tc := range []struct {
		name      string
		ctx       func() (context.Context, context.CancelFunc)
		transient bool
		is        error
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 50*time.Millisecond)
		}, true, context.DeadlineExceeded},
		{"cancel", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			return ctx, cancel
		}, false, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := forever.do(ctx, &Request{})
				done <- err
			}()
			select {
			case err := <-done:
				var te *TransientError
				if !errors.Is(err, tc.is) || errors.As(err, &te) != tc.transient {
					t.Errorf("err %v (%T), want %v, transient %v", err, err, tc.is, tc.transient)
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("the query went on after its context ended")
			}
		})
	}
	// The source still serves calls.
	b := mustCompileSQL(t, f.src, SQLBinding{Statement: `SELECT count(*) AS n FROM products`, ReadOnly: true}, Input{})
	if o, err := b.do(context.Background(), &Request{}); err != nil || !strings.Contains(sqlOutputJSON(t, o), `"n":5`) {
		t.Errorf("after the canceled calls: %v", err)
	}
}

func TestSQLCompileRefuses(t *testing.T) {
	src, err := openSQL("db", &SQLSource{Driver: "sqlite", DSN: filepath.Join(t.TempDir(), "x.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	pg, err := openSQL("pg", &SQLSource{Driver: "postgres", DSN: "postgres://u:${PW}@127.0.0.1/db"})
	if err != nil {
		t.Fatal(err)
	}
	in := props(nil, "name", "string", "n", "integer")
	for _, tc := range []struct {
		src  *sqlSource
		stmt string
		want string // in the error
	}{
		{src, `SELECT * FROM t WHERE a = :nope`, ":nope is not a property of the input"},
		{src, `SELECT * FROM t WHERE a = '${name}'`, `"${name}" is text interpolation`},
		{src, `SELECT * FROM t WHERE a = {{name}}`, `"{{name}}" is text interpolation`},
		{src, `SELECT * FROM t WHERE a = '{name}'`, `"{name}" is text interpolation`},
		{src, `SELECT * FROM t WHERE a = { n }`, `"{ n }" is text interpolation`},
		{src, `SELECT * FROM t WHERE a = {other}`, `"{other}" is text interpolation`},
		{src, `SELECT * FROM t WHERE a = '%s'`, `"%s" is a format verb`},
		{src, `SELECT * FROM t WHERE a = %(name)s`, `"%(name)s" is a format verb`},
		{src, `SELECT * FROM t WHERE a = '" + name + "'`, `concatenates text`},
		{src, `SELECT * FROM t WHERE a = '' + name`, `concatenates text`},
		{src, `SELECT * FROM t WHERE a LIKE '%:name%'`, `:name inside the string literal '%:name%' is text, never bound`},
		{src, `SELECT 1; DROP TABLE t`, "one statement only"},
		{src, `SELECT 1; -- fine` + "\n" + `SELECT 2`, "one statement only"},
		{src, `SELECT * FROM t WHERE a = ?`, "positional placeholder ?"},
		{src, `SELECT * FROM t WHERE a = ?1`, "positional placeholder ?1"},
		{src, `SELECT * FROM t WHERE a = @name`, "placeholder @name: write it as :name"},
		{src, `SELECT * FROM t WHERE a = $name`, "placeholder $name: write it as :name"},
		{src, `SELECT * FROM t WHERE a = 'open`, "unterminated string literal"},
		{src, `SELECT * FROM t /* open`, "unterminated comment"},
		{src, `  ;`, "the statement is empty"},
		{src, ``, "statement: missing"},
		{pg, `SELECT * FROM t WHERE a = $1`, "positional placeholder $1"},
		{pg, `SELECT $$ :name $$ || :nope`, ":nope is not a property"},
	} {
		_, err := compileSQL(&SQLBinding{Statement: tc.stmt}, tc.src, in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.stmt, err, tc.want)
		}
	}
	// An array literal that names no property is SQL, not a template.
	if _, err := compileSQL(&SQLBinding{Statement: `SELECT * FROM t WHERE tags @> '{sale}' AND a = :name`}, pg, in); err != nil {
		t.Errorf("an array literal: %v", err)
	}
	if _, err := compileSQL(&SQLBinding{Statement: `SELECT 1`, MaxRows: -1}, src, in); err == nil || !strings.Contains(err.Error(), "max_rows") {
		t.Errorf("max_rows -1: %v", err)
	}
}

func TestSQLCompileTranslatesPlaceholders(t *testing.T) {
	in := props(nil, "name", "string", "n", "integer")
	for _, tc := range []struct {
		driver, stmt, text string
		params             []string
	}{
		{"postgres", `SELECT :n::int, a FROM t WHERE b = :name OR c = :name -- :x` + "\n",
			`SELECT $1::int, a FROM t WHERE b = $2 OR c = $2 -- :x`, []string{"n", "name"}},
		{"sqlite", `SELECT a FROM t WHERE b = :name AND c = ':n' || :n AND d = '12:30';`,
			`SELECT a FROM t WHERE b = ?1 AND c = ':n' || ?2 AND d = '12:30'`, []string{"name", "n"}},
		{"postgres", `SELECT $tag$ :n $tag$, E'it\'s' || :n, "col:n" FROM t WHERE a LIKE '%' || :name || '%'`,
			`SELECT $tag$ :n $tag$, E'it\'s' || $1, "col:n" FROM t WHERE a LIKE '%' || $2 || '%'`, []string{"n", "name"}},
		{"postgres", `SELECT arr[1:2], a ? 'k', '{}'::jsonb FROM t`, `SELECT arr[1:2], a ? 'k', '{}'::jsonb FROM t`, nil},
	} {
		st, err := parseSQL(tc.stmt, tc.driver)
		if tc.stmt == `SELECT a FROM t WHERE b = :name AND c = ':n' || :n AND d = '12:30';` {
			// ':n' inside quotes is reported by the lint.
			if err == nil || !strings.Contains(err.Error(), ":n inside the string literal") {
				t.Errorf("%s: %v", tc.stmt, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.stmt, err)
			continue
		}
		if st.text != tc.text || strings.Join(st.params, ",") != strings.Join(tc.params, ",") {
			t.Errorf("%s:\n got %q %q\nwant %q %q", tc.stmt, st.text, st.params, tc.text, tc.params)
		}
		src := &sqlSource{driver: tc.driver}
		if _, err := compileSQL(&SQLBinding{Statement: tc.stmt}, src, in); err != nil {
			t.Errorf("compile %s: %v", tc.stmt, err)
		}
	}
}

func TestSQLInterpolationAcceptsPlainSQL(t *testing.T) {
	for _, stmt := range []string{
		`SELECT id, name FROM products WHERE price <= :max_price`,
		`SELECT * FROM t WHERE a LIKE '%' || :q || '%' AND b LIKE '%smith%'`,
		`SELECT '{"a":1}'::jsonb, price + 1, "col" + 2 FROM t`,
		`UPDATE t SET at = '2026-01-02 03:04:05' WHERE id = :id`,
		`SELECT * FROM t WHERE tags @> '{sale}' AND ids = '{1,2}'`,
	} {
		if p := sqlInterpolation(stmt); len(p) > 0 {
			t.Errorf("%s: %q", stmt, p)
		}
	}
}

func TestSQLSourceRefuses(t *testing.T) {
	for _, tc := range []struct {
		s    SQLSource
		want string
	}{
		{SQLSource{DSN: "x.db"}, "driver: missing"},
		{SQLSource{Driver: "mysql", DSN: "x"}, `"mysql" is not a SQL driver`},
		{SQLSource{Driver: "sqlite"}, "dsn: missing"},
		{SQLSource{Driver: "sqlite", DSN: ":memory:"}, "in-memory"},
		{SQLSource{Driver: "sqlite", DSN: "file::memory:?cache=shared"}, "in-memory"},
		{SQLSource{Driver: "postgres", DSN: "x", MaxOpenConns: -1}, "must not be negative"},
	} {
		if _, err := openSQL("s", &tc.s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err %v, want %q", tc.s, err, tc.want)
		}
	}
}

func TestSQLCredentialsAtCallTime(t *testing.T) {
	noQueueLeaks(t)
	dir := t.TempDir()
	src, err := openSQL("shop", &SQLSource{Driver: "sqlite", DSN: "${SHOP_DIR}/${SHOP_FILE:-shop.db}"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	b := mustCompileSQL(t, src, SQLBinding{Statement: `SELECT 1 AS one`, ReadOnly: true}, Input{})
	env := map[string]string{}
	req := &Request{Env: func(name string) (string, bool) { v, ok := env[name]; return v, ok }}
	_, err = b.do(context.Background(), req)
	var me *MissingEnvError
	if !errors.As(err, &me) || me.Name != "SHOP_DIR" {
		t.Fatalf("err %v, want a MissingEnvError for SHOP_DIR", err)
	}
	env["SHOP_DIR"] = dir
	if o, err := b.do(context.Background(), req); err != nil || !strings.Contains(sqlOutputJSON(t, o), `"one":1`) {
		t.Fatalf("with SHOP_DIR set: %v", err)
	}
	// A changed value opens new pools on the new database.
	env["SHOP_FILE"] = "other.db"
	if _, err := b.do(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); err != nil {
		t.Errorf("the new DSN's database: %v", err)
	}
	// A closed source refuses calls.
	src.close()
	if _, err := b.do(context.Background(), req); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("after close: %v", err)
	}
}

func TestSQLConnectionErrorIsTransientAndHidesSecrets(t *testing.T) {
	const secret = "s3cr3t-Pa55"
	// Nothing listens on port 1 of the loopback address.
	src, err := openSQL("pg", &SQLSource{Driver: "postgres", DSN: "postgres://app:${PW}@127.0.0.1:1/shop?connect_timeout=5"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	b := mustCompileSQL(t, src, SQLBinding{Statement: `SELECT 1`, ReadOnly: true}, Input{})
	_, err = b.do(context.Background(), &Request{Env: func(string) (string, bool) { return secret, true }})
	var te *TransientError
	if !errors.As(err, &te) {
		t.Fatalf("err %v (%T), want a TransientError", err, err)
	}
	if strings.Contains(err.Error(), secret) {
		t.Errorf("the error shows the password: %v", err)
	}
}

func TestLintReportsSQLInterpolation(t *testing.T) {
	dir := writeFiles(t, map[string]string{"shop.yaml": `sources:
  shop:
    sql: {driver: sqlite, dsn: shop.db}
tools:
  - name: shop.find
    binding:
      sql:
        source: shop
        statement: SELECT * FROM products WHERE name = '${name}'
  - name: shop.like
    binding:
      sql:
        source: shop
        statement: SELECT * FROM products WHERE name LIKE '%:q%' OR price + 1 > :p
`})
	rep := Lint([]string{dir})
	file := filepath.Join(dir, "shop.yaml")
	want := []string{
		file + `:9: tools[0].binding.sql.statement: "${name}" is text interpolation: pass the value as a :name placeholder`,
		file + `:14: tools[1].binding.sql.statement: :q inside the string literal '%:q%' is text, never bound: write the placeholder outside the quotes ('%' || :q || '%')`,
	}
	var got []string
	for _, p := range rep.Problems {
		got = append(got, p.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lint:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzSQLJSONValues checks the output's JSON writer against jsonenc's
// encoding of the same strings and numbers.
func FuzzSQLJSONValues(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnew\nline\r", "\x00\x1f\x7f", "<a href='x'>&amp;</a>",
		"\u2028\u2029", "caf\xc3\xa9 \xff\xfe broken", "emoji 😀", "\xed\xa0\x80"} {
		f.Add(s, 0.0)
	}
	for _, x := range []float64{0, math.Copysign(0, -1), 1, -1.5, 1e-7, 1e-6, 123456789, 1e20, 1e21, 1.7976931348623157e308, 5e-324, 0.1 + 0.2} {
		f.Add("", x)
	}
	f.Fuzz(func(t *testing.T, s string, x float64) {
		want, err := jsonenc.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("string %q: got %s, want %s", s, got, want)
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		want, err = jsonenc.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONFloat(nil, x); string(got) != string(want) {
			t.Errorf("float %v: got %s, want %s", x, got, want)
		}
	})
}

func TestSQLiteBusyIsTransient(t *testing.T) {
	f := newSQLite(t)
	src, err := openSQL("shop", &SQLSource{Driver: "sqlite", DSN: f.path + "?_busy_timeout=1"})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	// Another connection holds the write lock.
	conn, err := f.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	add := mustCompileSQL(t, src, SQLBinding{Statement: `INSERT INTO products (name, price) VALUES (:name, 1)`}, props(nil, "name", "string"))
	_, err = add.do(context.Background(), &Request{Args: map[string]any{"name": "figs"}})
	var te *TransientError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "locked") {
		t.Errorf("a write while another holds the lock: %v (%T), want a TransientError", err, err)
	}
	if _, err := conn.ExecContext(context.Background(), `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	// Once the lock is released, the same call succeeds.
	if _, err := add.do(context.Background(), &Request{Args: map[string]any{"name": "figs"}}); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
}
