// Package bindings turns tools declared in files (HTTP requests, SQL
// statements, queue messages) into tooling.Tool values that a registry
// governs like tools compiled in.
//
// A tools file (YAML or JSON) names sources, the connections, and tools, each
// with an input schema, the same Meta fields as a Go tool and one binding:
//
//	sources:
//	  shop:
//	    sql: {driver: sqlite, dsn: "file:${SHOP_DB}"}
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
// Imports: the standard library, its drivers and clients, config and tooling.
// tooling never imports this package; the gate in scripts/gate.sh checks it.
package bindings
