// Package collection is the file of a collection of saved calls that a
// team keeps in its repository, the environments of variables its calls
// use, and the check that makes every call of a collection and compares
// each outcome with what the call expects.
//
// A collection file is JSON (or YAML, by its .yaml or .yml extension):
//
//	{
//	  "environments": {
//	    "dev":  {"base": "http://127.0.0.1:8080", "token": {"from_env": "SHOP_TOKEN", "secret": true}},
//	    "prod": {"base": "https://shop.example", "token": {"from_env": "SHOP_PROD_TOKEN", "secret": true}}
//	  },
//	  "calls": [
//	    {"name": "list orders", "folder": "orders", "tool": "shop.list_orders",
//	     "args": {"base": "{{base}}", "auth": "Bearer {{token}}"},
//	     "expect": {"status": "ok", "jq": [".items | length > 0"]}}
//	  ]
//	}
//
// A variable is a string, or an object with "value" or "from_env" (the
// name of an environment variable of the process that reads it) and
// "secret". {{name}} in a string of a call's arguments is replaced by the
// variable's value before the call is made (Expand); a name the
// environment does not define is an error, never an empty string. A
// secret's value is never written back: what is kept of a call keeps the
// {{name}} reference.
//
// A call's expectation (Expect) is its status (default ok), its code,
// and jq filters (gojq: jq's language) over its output, each of which must
// yield only true. Check makes every call and reports, call by call, what
// was expected and what came.
//
// collection imports tooling and the standard library, gojq and a YAML
// decoder.
package collection
