package bindings

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// BenchmarkLoad1000 loads a tools file of 1,000 HTTP and SQL tools (each
// with an input schema and meta) and adds them to a registry: what a
// program with that many file tools pays at start.
func BenchmarkLoad1000(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`sources:
  api: {http: {base_url: "https://api.example.com/v1", headers: {Authorization: "Bearer ${TOKEN}"}}}
  db: {sql: {driver: sqlite, dsn: "${DB}"}}
tools:
`)
	for i := range 1000 {
		if i%2 == 0 {
			fmt.Fprintf(&sb, `  - name: bench.get_%d
    title: Get %d
    description: Get one item by id.
    input: {type: object, properties: {id: {type: string, description: the item}}, required: [id], additionalProperties: false}
    meta: {effects: [read, network], concurrency: read_only, timeout: 5s, tags: [bench]}
    binding: {http: {source: api, path: "/items/{id}", query: {v: "2"}}}
`, i, i)
		} else {
			fmt.Fprintf(&sb, `  - name: bench.count_%d
    title: Count %d
    description: Count the rows over a price.
    input: {type: object, properties: {min: {type: integer, description: the lowest price}}, additionalProperties: false}
    meta: {effects: [read], concurrency: read_only, tags: [bench]}
    binding: {sql: {source: db, statement: "SELECT count(*) AS n FROM items WHERE price >= :min", read_only: true}}
`, i, i)
		}
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "many.yaml")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := Load([]string{path}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		r := tooling.NewRegistry()
		if err := r.Replace(nil, s.Tools()); err != nil {
			b.Fatal(err)
		}
		_ = s.Close()
	}
	b.StopTimer()
	// What the loaded tools keep: the heap after a load and registration,
	// less the heap before.
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := Load([]string{path}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := tooling.NewRegistry()
	if err := r.Replace(nil, s.Tools()); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc)-float64(before.HeapAlloc), "retained-B")
	runtime.KeepAlive(r)
	_ = s.Close()
}
