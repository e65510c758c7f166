package tooling_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// toolSchema is an input schema of about 1 KB, like a typical tool's: a
// dozen properties with types, bounds, a pattern, an enum and a nested object.
func toolSchema(i int) json.RawMessage {
	return json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{
"path":{"type":"string","description":"the file to read, relative to the workspace %d","minLength":1,"maxLength":4096},
"offset":{"type":"integer","minimum":0,"description":"where to start, in bytes"},
"limit":{"type":"integer","minimum":1,"maximum":1048576,"default":65536},
"encoding":{"type":"string","enum":["utf-8","latin-1","binary"],"default":"utf-8"},
"follow":{"type":"boolean","description":"follow symbolic links"},
"pattern":{"type":"string","pattern":"^[a-z*?]+$"},
"tags":{"type":"array","items":{"type":"string","maxLength":32},"maxItems":16,"uniqueItems":true},
"owner":{"type":"object","properties":{"name":{"type":"string"},"uid":{"type":"integer","minimum":0}},"required":["name"],"additionalProperties":false},
"mode":{"type":"string","format":"date-time"},
"depth":{"type":"integer","minimum":0,"maximum":64},
"dry_run":{"type":"boolean","default":false}},
"required":["path"],"additionalProperties":false}`, i))
}

// BenchmarkRegister10k registers 10,000 tools with a 1 KB input schema
// each into a new registry, and reports the heap the registry keeps per tool.
func BenchmarkRegister10k(b *testing.B) {
	const n = 10000
	tools := make([]tooling.Tool, n)
	for i := range tools {
		tools[i] = tooling.Tool{Name: fmt.Sprintf("bench.tool_%d", i), Description: "reads a file", Input: toolSchema(i),
			Run: func(context.Context, tooling.Call) (any, error) { return nil, nil }}
	}
	var heap uint64
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := tooling.NewRegistry()
		r.Register(tools...)
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(r)
	}
	b.ReportMetric(float64(heap)/n, "heap-B/tool")
}

// BenchmarkRegister10kCalled registers 10,000 tools as BenchmarkRegister10k
// does, then calls each once, as a gateway's clients come to do, and reports
// the heap the registry keeps per tool then (heap-B/tool), the median time
// of a tool's first call (first-ns) and of its second (later-ns), and their
// ratio (x-later-first).
func BenchmarkRegister10kCalled(b *testing.B) {
	const n = 10000
	tools := make([]tooling.Tool, n)
	for i := range tools {
		tools[i] = tooling.Tool{Name: fmt.Sprintf("bench.tool_%d", i), Description: "reads a file", Input: toolSchema(i),
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run:  func(context.Context, tooling.Call) (any, error) { return nil, nil }}
	}
	args := json.RawMessage(`{"path":"a.txt","limit":10,"tags":["x"],"owner":{"name":"n"}}`)
	ctx := context.Background()
	var heap uint64
	first, later := make([]int64, n), make([]int64, n)
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := tooling.NewRegistry()
		r.Register(tools...)
		for pass, times := range [][]int64{first, later} {
			for i := range tools {
				start := time.Now()
				res, _ := r.Execute(ctx, tools[i].Name, args)
				times[i] = time.Since(start).Nanoseconds()
				if !res.OK() {
					b.Fatalf("pass %d: %s: %s %s", pass, tools[i].Name, res.Code, res.Message)
				}
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(r)
	}
	slices.Sort(first)
	slices.Sort(later)
	b.ReportMetric(float64(heap)/n, "heap-B/tool")
	b.ReportMetric(float64(first[n/2]), "first-ns")
	b.ReportMetric(float64(later[n/2]), "later-ns")
	b.ReportMetric(float64(first[n/2])/float64(later[n/2]), "x-later-first")
}
