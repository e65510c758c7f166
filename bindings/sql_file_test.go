package bindings

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// sqlShopYAML declares a read tool and a write tool over the SQLite file
// named by SHOP_DB.
const sqlShopYAML = `sources:
  shop:
    sql: {driver: sqlite, dsn: "${SHOP_DB}"}
tools:
  - name: shop.list_products
    description: List the products up to a price.
    input:
      type: object
      properties:
        max_price: {type: number}
      required: [max_price]
      additionalProperties: false
    meta: {effects: [read], concurrency: read_only}
    binding:
      sql:
        source: shop
        statement: SELECT id, name, price FROM products WHERE price <= :max_price ORDER BY id
        read_only: true
  - name: shop.add_product
    description: Add a product.
    input:
      type: object
      properties:
        name: {type: string}
        price: {type: number}
      required: [name, price]
    meta: {effects: [write]}
    binding:
      sql:
        source: shop
        statement: INSERT INTO products (name, price) VALUES (:name, :price) RETURNING id
`

// sqlShop loads sqlShopYAML over a products table of n rows into a
// registry.
func sqlShop(t testing.TB, n int, opts Options) (*tooling.Registry, *sql.DB, *Set) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "shop.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	execSQL(t, db, `CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, price REAL NOT NULL)`)
	for i := 1; i <= n; i++ {
		execSQL(t, db, `INSERT INTO products (name, price) VALUES (?, ?)`, fmt.Sprintf("product %d", i), float64(i)/2)
	}
	file := filepath.Join(dir, "shop.yaml")
	if err := os.WriteFile(file, []byte(sqlShopYAML), 0o600); err != nil {
		t.Fatal(err)
	}
	opts.Env = func(name string) (string, bool) {
		if name == "SHOP_DB" {
			return path, true
		}
		return "", false
	}
	set, err := Load([]string{file}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { set.Close() })
	r := tooling.NewRegistry()
	for _, tool := range set.Tools() {
		if err := r.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return r, db, set
}

func TestSQLToolsFromAFile(t *testing.T) {
	r, db, set := sqlShop(t, 3, Options{})
	ctx := context.Background()
	res, err := r.Execute(ctx, "shop.list_products", json.RawMessage(`{"max_price": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Output); got != `{"columns":["id","name","price"],"rows":[{"id":1,"name":"product 1","price":0.5},{"id":2,"name":"product 2","price":1}],"row_count":2}` {
		t.Errorf("output %s", got)
	}
	// The write asks for consent; in shadow mode it changes nothing.
	args := json.RawMessage(`{"name": "x'); DROP TABLE products; --", "price": 9}`)
	if res, _ := r.Execute(ctx, "shop.add_product", args); res.Code != codes.ConsentRequired {
		t.Fatalf("a write without consent: %s %s", res.Code, res.Message)
	}
	set.SetShadow(true)
	res, err = r.Execute(ctx, "shop.add_product", args, tooling.WithConsent())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Output), `"shadow":true`) || !strings.Contains(string(res.Output), `"rows_affected":1`) {
		t.Errorf("shadow output %s", res.Output)
	}
	if n := countRows(t, db, "products"); n != 3 {
		t.Errorf("%d products after a shadow write, want 3", n)
	}
	set.SetShadow(false)
	if res, err = r.Execute(ctx, "shop.add_product", args, tooling.WithConsent()); err != nil {
		t.Fatal(err)
	}
	if got := string(res.Output); got != `{"columns":["id"],"rows":[{"id":4}],"row_count":1,"rows_affected":1}` {
		t.Errorf("output %s", got)
	}
	var name string
	if err := db.QueryRow(`SELECT name FROM products WHERE id = 4`).Scan(&name); err != nil || name != "x'); DROP TABLE products; --" {
		t.Errorf("stored %q, %v", name, err)
	}
}

func TestSQLToolThatWritesMustSayIt(t *testing.T) {
	dir := writeFiles(t, map[string]string{"bad.yaml": strings.Replace(sqlShopYAML, "meta: {effects: [write]}", "meta: {effects: [read]}", 1)})
	_, err := Load([]string{dir}, Options{Env: func(string) (string, bool) { return filepath.Join(dir, "x.db"), true }})
	if err == nil || !strings.Contains(err.Error(), "read_only") {
		t.Errorf("a write declared as a read: %v", err)
	}
}
