package bindings

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// benchProduct is what the benchmark server answers: a product of a small
// shop, about 400 bytes of JSON.
const benchProduct = `{"product": {"id": "p-1042", "name": "Espresso cups, set of 4", "price": 24.90, "currency": "EUR",
"stock": 38, "tags": ["kitchen", "porcelain", "gift"], "dimensions": {"height_mm": 62, "diameter_mm": 70},
"updated": "2026-11-20T09:14:00Z", "description": "Thick-walled porcelain cups that keep espresso hot."},
"request_id": "r-7f3a9c"}`

var benchHTTPArgs = json.RawMessage(`{"id": "p-1042", "fields": "name,price,stock", "currency": "EUR"}`)

const benchHTTPInput = `{"type": "object", "properties": {
	"id": {"type": "string", "pattern": "^p-[0-9]+$"},
	"fields": {"type": "string", "maxLength": 200},
	"currency": {"enum": ["EUR", "USD"], "default": "EUR"}},
	"required": ["id"], "additionalProperties": false}`

func benchServer(b *testing.B) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, benchProduct)
	}))
	b.Cleanup(srv.Close)
	return srv
}

// benchToolsFile declares the HTTP file tool of the benchmarks.
const benchToolsFile = `sources:
  shop:
    http:
      base_url: %s
      allow_private: true
      headers: {Authorization: "Bearer ${SHOP_TOKEN}"}
tools:
  - name: shop.product
    description: One product of the shop.
    input: %s
    meta: {effects: [read, network], concurrency: read_only}
    binding:
      http:
        source: shop
        path: /products/{id}
        query: {fields: "{fields}", currency: "{currency}"}
        response: {data: /product}
`

// httpTool loads the benchmarks' tools file, as a host does.
func httpTool(b *testing.B, baseURL string) tooling.Tool {
	file := filepath.Join(b.TempDir(), "shop.yaml")
	if err := os.WriteFile(file, fmt.Appendf(nil, benchToolsFile, baseURL, benchHTTPInput), 0o600); err != nil {
		b.Fatal(err)
	}
	set, err := Load([]string{file}, Options{Env: func(name string) (string, bool) {
		return "bench-token", name == "SHOP_TOKEN"
	}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { set.Close() })
	return set.Tools()[0]
}

// BenchmarkHTTPToolExecute is an HTTP file tool called through the whole
// governed pipeline (decode, validate, govern, the binding, the output).
func BenchmarkHTTPToolExecute(b *testing.B) {
	srv := benchServer(b)
	r := tooling.NewRegistry()
	r.Register(httpTool(b, srv.URL))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := r.Execute(ctx, "shop.product", benchHTTPArgs)
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(res.Output, []byte(`"p-1042"`)) {
			b.Fatalf("output %s", res.Output)
		}
	}
}

// BenchmarkHTTPDirect is the same request as a host writes it without the
// registry: encoding/json for the arguments and the response, net/http for
// the request, one client reused.
func BenchmarkHTTPDirect(b *testing.B) {
	srv := benchServer(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
	b.Cleanup(client.CloseIdleConnections)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var in struct {
			ID       string `json:"id"`
			Fields   string `json:"fields"`
			Currency string `json:"currency"`
		}
		if err := json.Unmarshal(benchHTTPArgs, &in); err != nil {
			b.Fatal(err)
		}
		q := url.Values{"fields": {in.Fields}, "currency": {in.Currency}}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/products/"+url.PathEscape(in.ID)+"?"+q.Encode(), nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer bench-token")
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var body struct {
			Product json.RawMessage `json:"product"`
		}
		err = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK {
			b.Fatal(err, resp.Status)
		}
		var out any
		if err := json.Unmarshal(body.Product, &out); err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(out); err != nil {
			b.Fatal(fmt.Errorf("output: %w", err))
		}
	}
}

// BenchmarkHTTPBindingDo is the binding alone, without the loader's
// wrapping and the registry: the arguments as the registry hands them
// over, the request, the response.
func BenchmarkHTTPBindingDo(b *testing.B) {
	srv := benchServer(b)
	src, err := openHTTP("shop", &HTTPSource{BaseURL: srv.URL, AllowPrivate: true, Headers: map[string]string{"Authorization": "Bearer ${SHOP_TOKEN}"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { src.close() })
	hb, err := compileHTTP(&HTTPBinding{
		Source:   "shop",
		Path:     "/products/{id}",
		Query:    map[string]string{"fields": "{fields}", "currency": "{currency}"},
		Response: HTTPResponse{Data: "/product"},
	}, src, Input{Properties: map[string]string{"id": "string", "fields": "string", "currency": ""}, Required: []string{"id"}})
	if err != nil {
		b.Fatal(err)
	}
	var a map[string]any
	d := json.NewDecoder(bytes.NewReader(benchHTTPArgs))
	d.UseNumber()
	if err := d.Decode(&a); err != nil {
		b.Fatal(err)
	}
	env := func(name string) (string, bool) { return "bench-token", name == "SHOP_TOKEN" }
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		out, err := hb.do(ctx, &Request{Tool: "shop.product", Args: a, Env: env})
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(out.Output.(json.RawMessage), []byte(`"p-1042"`)) {
			b.Fatalf("output %s", out.Output)
		}
	}
}
