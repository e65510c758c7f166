package bindings

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The SQLite benchmarks read 10 of the 20 rows of the products table of
// sqlShopYAML: the file tool through the whole pipeline, and the same query
// as a host writes it with database/sql.

var benchSQLArgs = json.RawMessage(`{"max_price": 5}`)

// BenchmarkSQLiteToolExecute is the tools file's read tool called through
// Registry.Execute (decode, validate, govern, the binding in a read-only
// transaction on a query_only connection, the output as JSON).
func BenchmarkSQLiteToolExecute(b *testing.B) {
	r, _, _ := sqlShop(b, 20, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := r.Execute(ctx, "shop.list_products", benchSQLArgs)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(res.Output, []byte(`"row_count":10`)) {
			b.Fatalf("output %s", res.Output)
		}
	}
}

// BenchmarkSQLiteDirect is the same query without the registry: the
// arguments decoded with encoding/json, the query on a database/sql pool
// of the same file, the rows scanned into maps and written as JSON.
func BenchmarkSQLiteDirect(b *testing.B) {
	_, db, _ := sqlShop(b, 20, Options{})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var in struct {
			MaxPrice float64 `json:"max_price"`
		}
		if err := json.Unmarshal(benchSQLArgs, &in); err != nil {
			b.Fatal(err)
		}
		out, err := directQuery(ctx, db, in.MaxPrice)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(out, []byte(`"product 10"`)) {
			b.Fatalf("output %s", out)
		}
	}
}

func directQuery(ctx context.Context, db *sql.DB, maxPrice float64) ([]byte, error) {
	rows, err := db.QueryContext(ctx, `SELECT id, name, price FROM products WHERE price <= ? ORDER BY id`, maxPrice)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var id int64
		var name string
		var price float64
		if err := rows.Scan(&id, &name, &price); err != nil {
			return nil, err
		}
		out = append(out, map[string]any{"id": id, "name": name, "price": price})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return json.Marshal(out)
}

// BenchmarkSQLiteToolRun is the file tool's Run alone, without the
// registry: the loader's wrapping and the binding.
func BenchmarkSQLiteToolRun(b *testing.B) {
	_, _, set := sqlShop(b, 20, Options{})
	var run func(context.Context, tooling.Call) (any, error)
	for _, t := range set.Tools() {
		if t.Name == "shop.list_products" {
			run = t.Run
		}
	}
	args := map[string]any{"max_price": json.Number("5")}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := run(ctx, tooling.Call{Tool: "shop.list_products", Args: args}); err != nil {
			b.Fatal(err)
		}
	}
}
