package schema

import (
	"encoding/json"
	"runtime"
	"sync"
	"testing"
)

// TestGraphCompiledOnlyWhenAValueNeedsIt: a schema compiled for calls keeps
// no library graph while the quick check accepts the values; the first value
// it refuses compiles the graph, once, from many goroutines at once, and the
// errors are those of a schema compiled at once. The graph reuses the
// expressions of the quick check (one pause state each).
func TestGraphCompiledOnlyWhenAValueNeedsIt(t *testing.T) {
	const text = `{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$","maxLength":8},
"n":{"type":"integer","minimum":1}},"required":["name"],"additionalProperties":false}`
	s := compileTestSchema(t, text)
	if !s.HasQuick() {
		t.Fatal("no quick check for a schema of common keywords")
	}
	if s.full.Load() != nil {
		t.Fatal("the library graph is kept after compiling")
	}
	good, _ := Decode([]byte(`{"name":"abc","n":2}`))
	if f, _, _ := s.Validate(good, 10); len(f) != 0 {
		t.Fatalf("a valid value fails: %v", f)
	}
	if s.full.Load() != nil {
		t.Fatal("a valid value compiled the library graph")
	}
	bad, _ := Decode([]byte(`{"name":"ABC","n":0,"x":1}`))
	want, _, _ := compileTestSchema(t, text).withGraph(t).Validate(bad, 10)
	var wg sync.WaitGroup
	got := make([][]FieldError, 8)
	for i := range got {
		wg.Go(func() { got[i], _, _ = s.Validate(bad, 10) })
	}
	wg.Wait()
	for i := range got {
		if len(got[i]) != 3 || !equalFields(got[i], want) {
			t.Errorf("goroutine %d: %v, want the 3 fields %v", i, got[i], want)
		}
	}
	g := s.full.Load()
	if g == nil {
		t.Fatal("no graph kept after a value needed it")
	}
	if g2, _ := s.graph(); g2 != g {
		t.Error("the graph is compiled again")
	}
	if re := g.Properties["name"].Pattern; re != s.quick.props["name"].pattern {
		t.Errorf("the graph's expression %p is not the quick check's %p", re, s.quick.props["name"].pattern)
	}
}

// withGraph compiles s's library graph now, as a schema did when it kept it.
func (s *Schema) withGraph(t *testing.T) *Schema {
	mustGraph(t, s)
	return s
}

func equalFields(a, b []FieldError) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCompiledSchemaKeepsNoGraph: what a schema compiled for calls keeps
// on the heap is a small part of what the library graph takes.
func TestCompiledSchemaKeepsNoGraph(t *testing.T) {
	raw := json.RawMessage(`{"type":"object","properties":{
"path":{"type":"string","minLength":1,"maxLength":4096},"offset":{"type":"integer","minimum":0},
"limit":{"type":"integer","minimum":1,"maximum":1048576,"default":65536},
"encoding":{"type":"string","enum":["utf-8","latin-1","binary"],"default":"utf-8"},
"tags":{"type":"array","items":{"type":"string","maxLength":32},"maxItems":16,"uniqueItems":true},
"owner":{"type":"object","properties":{"name":{"type":"string"},"uid":{"type":"integer","minimum":0}},"required":["name"]}},
"required":["path"],"additionalProperties":false}`)
	const n = 200
	heap := func(keep func() []*Schema) uint64 {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		kept := keep()
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(kept)
		return (after.HeapAlloc - before.HeapAlloc) / n
	}
	compile := func(graph bool) []*Schema {
		out := make([]*Schema, n)
		for i := range out {
			s, err := Compile("test.mem", "input", raw, true)
			if err != nil {
				t.Fatal(err)
			}
			if graph {
				mustGraph(t, s)
			}
			out[i] = s
		}
		return out
	}
	light, full := heap(func() []*Schema { return compile(false) }), heap(func() []*Schema { return compile(true) })
	t.Logf("a schema kept %d bytes, %d with its graph", light, full)
	if light*2 > full {
		t.Errorf("a schema compiled for calls keeps %d bytes, with its graph %d: the graph is kept", light, full)
	}
}
