// Package bindings turns tools declared in files (HTTP requests, SQL
// statements, queue messages) into tooling.Tool values that a registry
// governs like tools compiled in.
//
// A tools file (YAML or JSON) names sources, the connections, and tools, each
// with an input schema, the same Meta fields as a Go tool and one binding:
//
//	sources:
//	  shop:
//	    sql: {driver: sqlite, dsn: "${SHOP_DB}"}
//	tools:
//	  - name: shop.list_products
//	    description: List the products under a price.
//	    input:
//	      type: object
//	      properties: {max_price: {type: number}}
//	    meta: {effects: [read], concurrency: read_only}
//	    binding:
//	      sql:
//	        source: shop
//	        statement: SELECT id, name, price FROM products WHERE price <= :max_price
//	        read_only: true
//
// Load reads files and directories of them, strictly: every unknown key,
// wrong type, bad reference and tool a registry would refuse is a Problem
// with its file, line and path, all at once. The Set it returns holds the
// tools; add them with set.Register(registry), replace them with
// set.Reload(registry), which swaps them in one step, and Close the set when
// done. Around each binding the loader adds what a file tool needs besides
// its request: credentials (${NAME}, ${NAME:-default}) resolved at call time
// and redacted from everything shown, shadow mode (per tool, per source, or
// SetShadow for all), retries of transient failures with backoff, and the
// binding's details for observers (tooling.Event.Detail). Lint finds
// credentials written out and text spliced into SQL.
//
// HTTP bindings need nothing more. The SQL drivers and queue clients are
// parts a program links by importing them, as database/sql drivers are:
// bindings/sqlite, bindings/postgres, bindings/redis, bindings/nats (a
// blank import in main). A tools file that names one the program does not
// link is refused when it loads, with the import to add; a host with HTTP
// tools only links no database driver.
//
// Imports: tooling, internal/jsonenc, its internal driver registry, the
// standard library and the YAML parser; never a SQL driver or queue client
// itself, and not config (the command line turns the config into Load's
// arguments). tooling never imports this package; the gate in
// scripts/gate.sh checks it.
package bindings
