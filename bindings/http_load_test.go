package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// httpToolsFile declares HTTP tools the way a tools file does, every field
// of the source and the binding spelled as users write them.
const httpToolsFile = `sources:
  shop:
    http:
      base_url: %s/api
      headers: {Authorization: "Bearer ${SHOP_TOKEN}", X-Client: "${CLIENT:-tools}"}
      timeout: 2s
      allow_private: true
      allow_hosts: [cdn.example]
      methods: [GET, POST]
      max_response_bytes: 4096
      content_types: [application/json]
tools:
  - name: shop.product
    description: One product.
    input:
      type: object
      properties: {id: {type: string}, fields: {type: array, items: {type: string}}}
      required: [id]
    meta: {effects: [read, network], concurrency: read_only}
    binding:
      http:
        source: shop
        path: /products/{id}
        query: {fields: "{fields}"}
        response: {data: /product, error: error.message}
  - name: shop.order
    description: Order a product.
    input:
      type: object
      properties: {id: {type: string}, qty: {type: integer, default: 1}, note: {type: string}}
      required: [id]
    meta: {effects: [write, network]}
    shadow: true
    binding:
      http:
        source: shop
        method: POST
        path: /orders
        headers: {X-Note: "{note}"}
        body: {product: "{id}", quantity: {$arg: qty}, source: tools}
`

// TestHTTPToolsFile loads HTTP tools from a file and calls them through a
// registry: a read, a 404 with its mapped message, and a write in shadow
// mode that sends nothing and shows no credential.
func TestHTTPToolsFile(t *testing.T) {
	srv, rec := server(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/products/p-404" {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error": {"message": "no product p-404"}}`)
			return
		}
		io.WriteString(w, `{"product": {"id": "p-1", "price": 2.50}}`)
	})
	dir := writeFiles(t, map[string]string{"shop.yaml": fmt.Sprintf(httpToolsFile, srv.URL)})
	const secret = "tok-5ecret-value"
	set, err := Load([]string{dir}, Options{Env: env(map[string]string{"SHOP_TOKEN": secret})})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	r := tooling.NewRegistry()
	r.Register(set.Tools()...)
	ctx := context.Background()

	res, err := r.Execute(ctx, "shop.product", json.RawMessage(`{"id": "p 1/2", "fields": ["name", "price"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Output) != `{"id":"p-1","price":2.50}` {
		t.Errorf("output %s", res.Output)
	}
	uri, _, h, _ := rec.last()
	if uri != "/api/products/p%201%2F2?fields=name&fields=price" || h.Get("Authorization") != "Bearer "+secret || h.Get("X-Client") != "tools" {
		t.Errorf("server saw %s with %v", uri, h)
	}

	_, err = r.Execute(ctx, "shop.product", json.RawMessage(`{"id": "p-404"}`))
	if !errors.Is(err, codes.ToolError) || !strings.Contains(err.Error(), "404 Not Found: no product p-404") {
		t.Errorf("404: %v", err)
	}

	before := rec.count()
	res, err = r.Execute(ctx, "shop.order", json.RawMessage(`{"id": "p-1", "note": "gift"}`), tooling.WithConsent())
	if err != nil {
		t.Fatal(err)
	}
	if rec.count() != before {
		t.Fatal("a shadow call reached the server")
	}
	out := string(res.Output)
	for _, want := range []string{`"method":"POST"`, `"url":"` + srv.URL + `/api/orders"`, `"Authorization":"Bearer ${SHOP_TOKEN}"`,
		`"X-Note":"gift"`, `"body":{"product":"p-1","quantity":1,"source":"tools"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("shadow output lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, secret) {
		t.Error("the credential's value is in the shadow output")
	}
}
