package bindings

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// The PostgreSQL tests run against the server at TOOLEXPLORER_TEST_POSTGRES
// (a DSN; .ci/run starts one). Each test works in a schema of its own,
// dropped at its end.

const postgresEnv = "TOOLEXPLORER_TEST_POSTGRES"

type pgFixture struct {
	db     *sql.DB // a plain connection, to look at the tables behind the tools
	src    *sqlSource
	schema string // the test's own
}

// testPostgres returns a fixture with a products table, or skips the test
// when no server is given (fails under CI, which always gives one).
func testPostgres(t *testing.T) *pgFixture {
	t.Helper()
	dsn := os.Getenv(postgresEnv)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal(postgresEnv + " is not set: CI must start a PostgreSQL server (see .ci/run)")
		}
		t.Skip(postgresEnv + " is not set: set it to the DSN of a PostgreSQL server to run the PostgreSQL tests")
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	schema := "test_" + strings.ToLower(rand.Text()[:10])
	execSQL(t, db, `CREATE SCHEMA `+schema)
	t.Cleanup(func() { db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`) })
	execSQL(t, db, `CREATE TABLE `+schema+`.products (
		id bigserial PRIMARY KEY,
		name text NOT NULL UNIQUE,
		price numeric(10, 2) NOT NULL,
		stock integer,
		ratio double precision,
		photo bytea,
		meta jsonb,
		added timestamptz,
		day date,
		active boolean)`)
	execSQL(t, db, `INSERT INTO `+schema+`.products (name, price, stock, ratio, photo, meta, added, day, active) VALUES
		('apple', 0.5, 10, 0.25, '\x00ff10', '{"tags": ["fruit"], "n": 1}', '2026-01-02 03:04:05+00', '2026-01-02', true),
		('bread', 2.25, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		('cheese', 7, 3, 1.5, NULL, NULL, NULL, NULL, false)`)
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	// The source reaches the server through a credential reference,
	// resolved at call time.
	src, err := openSQL("shop", &SQLSource{Driver: "postgres", DSN: "${" + postgresEnv + "}" + sep + "search_path=" + schema})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.close() })
	return &pgFixture{db: db, src: src, schema: schema}
}

func (f *pgFixture) count(t *testing.T) int {
	t.Helper()
	return countRows(t, f.db, f.schema+".products")
}

func TestPostgresReadKeepsTypes(t *testing.T) {
	f := testPostgres(t)
	b := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `SELECT id, name, price, stock, ratio, photo, meta, added, day, active, price::float8 AS f
			FROM products WHERE price <= :max_price AND name <> :not ORDER BY id`,
		ReadOnly: true,
	}, props(nil, "max_price", "number", "not", "string"))
	o, err := b.do(context.Background(), &Request{Args: map[string]any{"max_price": json.Number("2.25"), "not": ""}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["id","name","price","stock","ratio","photo","meta","added","day","active","f"],"rows":[` +
		`{"id":1,"name":"apple","price":"0.50","stock":10,"ratio":0.25,"photo":"AP8Q","meta":{"n":1,"tags":["fruit"]},"added":"2026-01-02T03:04:05Z","day":"2026-01-02T00:00:00Z","active":true,"f":0.5},` +
		`{"id":2,"name":"bread","price":"2.25","stock":null,"ratio":null,"photo":null,"meta":null,"added":null,"day":null,"active":null,"f":2.25}],"row_count":2}`
	if got := sqlOutputJSON(t, o); got != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
}

func TestPostgresReadOnlyRefusesWrites(t *testing.T) {
	f := testPostgres(t)
	for _, stmt := range []string{
		`INSERT INTO products (name, price) VALUES (:name, 1)`,
		`DELETE FROM products WHERE name <> :name`,
		`WITH gone AS (DELETE FROM products WHERE name <> :name RETURNING id) SELECT count(*) FROM gone`,
	} {
		ro := mustCompileSQL(t, f.src, SQLBinding{Statement: stmt, ReadOnly: true}, props(nil, "name", "string"))
		_, err := ro.do(context.Background(), &Request{Args: map[string]any{"name": "figs"}})
		var te *TransientError
		if err == nil || !strings.Contains(err.Error(), "read-only transaction") || !strings.Contains(err.Error(), "25006") || errors.As(err, &te) {
			t.Errorf("%s in a read-only tool: err %v, want the server's refusal, not transient", stmt, err)
		}
	}
	if n := f.count(t); n != 3 {
		t.Fatalf("%d products after read-only writes, want 3", n)
	}
	// Control: the same write, not read-only, changes the table.
	rw := mustCompileSQL(t, f.src, SQLBinding{Statement: `INSERT INTO products (name, price) VALUES (:name, 1)`}, props(nil, "name", "string"))
	o, err := rw.do(context.Background(), &Request{Args: map[string]any{"name": "figs"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); got != `{"rows_affected":1}` {
		t.Errorf("output %s", got)
	}
	if n := f.count(t); n != 4 {
		t.Errorf("%d products after the write, want 4", n)
	}
}

func TestPostgresShadowRollsBack(t *testing.T) {
	f := testPostgres(t)
	add := mustCompileSQL(t, f.src, SQLBinding{
		Statement: `INSERT INTO products (name, price) VALUES (:name, :price) RETURNING name, price`,
	}, props(nil, "name", "string", "price", "number"))
	args := map[string]any{"name": "figs", "price": json.Number("3.5")}
	o, err := add.do(context.Background(), &Request{Args: args, Shadow: true})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"columns":["name","price"],"params":{"name":"figs","price":3.5},"rolled_back":true,"row_count":1,"rows":[{"name":"figs","price":"3.50"}],` +
		`"rows_affected":1,"shadow":true,"statement":"INSERT INTO products (name, price) VALUES (:name, :price) RETURNING name, price"}`
	if got := sqlOutputJSON(t, o); got != want {
		t.Errorf("output\n got %s\nwant %s", got, want)
	}
	halve := mustCompileSQL(t, f.src, SQLBinding{Statement: `UPDATE products SET price = price / 2 WHERE price > :above`}, props(nil, "above", "number"))
	if o, err = halve.do(context.Background(), &Request{Args: map[string]any{"above": json.Number("1")}, Shadow: true}); err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); !strings.Contains(got, `"rows_affected":2`) {
		t.Errorf("output %s", got)
	}
	var n int
	var sum string
	if err := f.db.QueryRow(`SELECT count(*), sum(price)::text FROM `+f.schema+`.products`).Scan(&n, &sum); err != nil || n != 3 || sum != "9.75" {
		t.Errorf("after shadow writes: %d products summing to %s (%v), want 3 and 9.75", n, sum, err)
	}
	// Control: not in shadow mode, the write lands.
	if _, err := add.do(context.Background(), &Request{Args: args}); err != nil {
		t.Fatal(err)
	}
	if n := f.count(t); n != 4 {
		t.Errorf("%d products after the write, want 4", n)
	}
}

func TestPostgresArgumentsStayData(t *testing.T) {
	f := testPostgres(t)
	attack := `'; DROP TABLE products; --`
	find := mustCompileSQL(t, f.src, SQLBinding{Statement: `SELECT id FROM products WHERE name = :name`, ReadOnly: true}, props(nil, "name", "string"))
	o, err := find.do(context.Background(), &Request{Args: map[string]any{"name": attack}})
	if err != nil || sqlOutputJSON(t, o) != `{"columns":["id"],"rows":[],"row_count":0}` {
		t.Fatalf("output %s, %v", sqlOutputJSON(t, o), err)
	}
	add := mustCompileSQL(t, f.src, SQLBinding{Statement: `INSERT INTO products (name, price) VALUES (:name, 1)`}, props(nil, "name", "string"))
	if _, err := add.do(context.Background(), &Request{Args: map[string]any{"name": attack}}); err != nil {
		t.Fatal(err)
	}
	schema := f.schema
	var name string
	if err := f.db.QueryRow(`SELECT name FROM ` + schema + `.products WHERE id = 4`).Scan(&name); err != nil || name != attack {
		t.Errorf("stored %q, %v", name, err)
	}
	// Control: the value spliced into the text drops the table.
	if _, err := f.db.Exec(`SET search_path = ` + schema + `; SELECT id FROM products WHERE name = '` + attack + `'`); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.Exec(`SELECT 1 FROM ` + schema + `.products`); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("the spliced statement left the table: %v", err)
	}
}

func TestPostgresErrors(t *testing.T) {
	noQueueLeaks(t)
	f := testPostgres(t)
	add := mustCompileSQL(t, f.src, SQLBinding{Statement: `INSERT INTO products (name, price) VALUES (:name, 1)`}, props(nil, "name", "string"))
	_, err := add.do(context.Background(), &Request{Args: map[string]any{"name": "apple"}})
	var te *TransientError
	if err == nil || errors.As(err, &te) || !strings.Contains(err.Error(), "duplicate key value violates unique constraint") || !strings.Contains(err.Error(), "23505") {
		t.Errorf("duplicate name: %v, want the constraint's message, not transient", err)
	}
	// A query past its deadline is stopped on the server and may be tried
	// again.
	sleep := mustCompileSQL(t, f.src, SQLBinding{Statement: `SELECT pg_sleep(600)`, ReadOnly: true}, Input{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := sleep.do(ctx, &Request{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("past the deadline: %v (%T), want a TransientError for the deadline", err, err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the query went on after its deadline")
	}
	var sleeping int
	for range 600 {
		if err := f.db.QueryRow(`SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)' AND state = 'active'`).Scan(&sleeping); err != nil {
			t.Fatal(err)
		}
		if sleeping == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if sleeping != 0 {
		t.Error("the server still runs the query a minute after its deadline")
	}
	// A wrong password: the error names no value of the DSN's credentials.
	u, err := url.Parse(os.Getenv(postgresEnv))
	if err != nil || u.User == nil {
		t.Skipf("%s is not a URL with a user: %v", postgresEnv, err)
	}
	const wrong = "wrong-Pa55word"
	u.User = url.UserPassword(u.User.Username(), wrong)
	src, err := openSQL("shop", &SQLSource{Driver: "postgres", DSN: strings.Replace(u.String(), wrong, "${PGPASS}", 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	b := mustCompileSQL(t, src, SQLBinding{Statement: `SELECT 1`, ReadOnly: true}, Input{})
	_, err = b.do(context.Background(), &Request{Env: func(string) (string, bool) { return wrong, true }})
	if err == nil {
		t.Log("the server takes any password (trust authentication): no wrong password to report")
		return
	}
	if strings.Contains(err.Error(), wrong) || !strings.Contains(err.Error(), "password authentication failed") {
		t.Errorf("wrong password: %v", err)
	}
}

func TestPostgresMaxRows(t *testing.T) {
	f := testPostgres(t)
	b := mustCompileSQL(t, f.src, SQLBinding{Statement: `SELECT g AS n FROM generate_series(1, :n::int) g`, ReadOnly: true, MaxRows: 3}, props(nil, "n", "integer"))
	o, err := b.do(context.Background(), &Request{Args: map[string]any{"n": json.Number("100000")}})
	if err != nil {
		t.Fatal(err)
	}
	if got := sqlOutputJSON(t, o); got != `{"columns":["n"],"rows":[{"n":1},{"n":2},{"n":3}],"row_count":3,"truncated":true,"max_rows":3}` {
		t.Errorf("output %s", got)
	}
}
