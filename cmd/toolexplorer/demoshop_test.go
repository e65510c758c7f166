package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDemoShop runs the demo shop's tools as make run offers them: the SQL
// reads on the database the demo made, the order in shadow mode (no row
// added), and the HTTP tools on the demo's API when its port is free.
func TestDemoShop(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)

	o := cli(t, "", "--demo", "list", "--tag", "shop")
	for _, want := range []string{"shop.list_products", "sql:shop_db", "shop.place_order", "sql:shop_db shadow", "shop.shipping_quote", "http:shop_api"} {
		if !strings.Contains(o.stdout, want) {
			t.Fatalf("list lacks %q:\n%s", want, o)
		}
	}
	o = cli(t, "", "--demo", "run", "shop.list_products", "--args", `{"max_price_cents": 700}`, "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, `"Espresso cup"`) || strings.Contains(o.stdout, `"Scale"`) {
		t.Fatalf("list_products:\n%s", o)
	}
	o = cli(t, "", "--demo", "run", "shop.place_order", "--consent", "--args", `{"product_id": 2, "quantity": 3}`, "--json")
	var res struct {
		Output map[string]any
	}
	if err := json.Unmarshal([]byte(o.stdout), &res); err != nil || res.Output["shadow"] != true {
		t.Fatalf("place_order: %v\n%s", err, o)
	}
	dbs, _ := filepath.Glob(filepath.Join(cache, "*", "demo-shop.db"))
	if len(dbs) != 1 {
		t.Fatalf("the demo database is not in the cache directory: %v", dbs)
	}
	db, err := sql.Open("sqlite", dbs[0])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var orders int
	if err := db.QueryRow("SELECT count(*) FROM orders").Scan(&orders); err != nil || orders != 0 {
		t.Fatalf("orders after a shadow order: %d, %v", orders, err)
	}
	o = cli(t, "", "--demo", "run", "shop.shipping_quote", "--args", `{"country": "FR", "weight_grams": 1200}`, "--json")
	if strings.Contains(o.stderr, "cannot listen") {
		t.Skipf("the demo API's port is taken here: %s", o.stderr)
	}
	if o.code != exitOK || !strings.Contains(o.stdout, `"days": 2`) {
		t.Fatalf("shipping_quote:\n%s", o)
	}
	if _, err := os.Stat(filepath.Join("examples", "tools", "shop.yaml")); err != nil {
		t.Fatal(err)
	}
}

// TestDemoAnywhere: --demo loads the demo shop's tools from any directory
// (the binary embeds them), where it warned that they were in
// examples/tools and loaded none of them.
func TestDemoAnywhere(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "examples", "tools", "shop.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	o := cli(t, "", "--demo", "list", "--tag", "shop")
	for _, want := range []string{"shop.list_products", "sql:shop_db", "shop.shipping_quote"} {
		if !strings.Contains(o.stdout, want) {
			t.Fatalf("list lacks %q:\n%s", want, o)
		}
	}
	if strings.Contains(o.stderr, "warning") {
		t.Fatalf("warnings:\n%s", o)
	}
	o = cli(t, "", "--demo", "run", "shop.list_products", "--args", `{"max_price_cents": 700}`, "--json")
	if o.code != exitOK || !strings.Contains(o.stdout, `"Espresso cup"`) {
		t.Fatalf("list_products:\n%s", o)
	}
	got, _ := filepath.Glob(filepath.Join(cache, "*", "demo-tools", "shop.yaml"))
	if len(got) != 1 {
		t.Fatalf("no demo-tools/shop.yaml in the cache directory: %v", got)
	}
	if data, err := os.ReadFile(got[0]); err != nil || string(data) != string(want) {
		t.Fatalf("the cached shop.yaml differs from examples/tools/shop.yaml (%v)", err)
	}
}
