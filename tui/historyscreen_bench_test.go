package tui

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
)

// BenchmarkHistoryFirstFrame opens the history screen (H) over a store of
// 100,000 calls and draws its first frame: the store is read from its end,
// a screenful at a time, and only the visible rows are drawn.
func BenchmarkHistoryFirstFrame(b *testing.B) {
	h := newHarnessWith(b, newTestRegistry(b), Options{History: store100k(b)}, 120, 40)
	b.ReportAllocs()
	for b.Loop() {
		h.press("H")
		_ = h.m.render()
		h.press("esc")
	}
}

// store100k is a store of 100,000 calls, a second apart (keptStore's
// first call, written directly).
func store100k(b *testing.B) *history.Store {
	one := keptStore(b, 1)
	line, err := os.ReadFile(one.Path())
	if err != nil {
		b.Fatal(err)
	}
	var e history.Entry
	if err := json.Unmarshal(line[:bytes.IndexByte(line, '\n')], &e); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	start := e.Time
	for i := range 100_000 {
		e.Time = start.Add(time.Duration(i) * time.Second)
		e.Result.Started = e.Time
		enc, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		buf.Write(enc)
		buf.WriteByte('\n')
	}
	path := filepath.Join(b.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	return history.Open(path)
}

// openIndexed opens the history of store with its index read (on the
// benchmark's goroutine: on a loaded machine the read of 100,000 calls
// may take longer than a test waits for a message).
func openIndexed(b *testing.B, store *history.Store) *harness {
	h := newHarnessWith(b, newTestRegistry(b), Options{History: store}, 120, 40)
	h.press("H")
	h.send(historyIndexMsg{gen: h.m.history.indexGen, index: readIndex(store)})
	if h.m.history.index == nil {
		b.Fatal("the index is not taken")
	}
	return h
}

// BenchmarkHistorySearchKey is one key typed into the history's search
// over 100,000 kept calls, and the frame drawn: a letter, then the
// backspace that takes it back, in turn. The query "zq" matches none of
// them, so that every key looks through all of them; "kept" matches all.
func BenchmarkHistorySearchKey(b *testing.B) {
	for _, query := range []string{"zq", "kept"} {
		b.Run("query="+query, func(b *testing.B) {
			h := openIndexed(b, store100k(b))
			h.press("/")
			h.typeText(query)
			// The garbage of reading 100,000 calls for the set-up is
			// collected now, not in the few keys of a short run.
			runtime.GC()
			b.ReportAllocs()
			i := 0
			start := processCPU()
			for b.Loop() {
				if i%2 == 0 {
					h.typeText("x")
				} else {
					h.press("backspace")
				}
				i++
				_ = h.m.render()
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkHistoryBottom is G on the history of 100,000 kept calls (their
// index read), and the frame drawn; g goes back to the top.
func BenchmarkHistoryBottom(b *testing.B) {
	h := openIndexed(b, store100k(b))
	b.ReportAllocs()
	for b.Loop() {
		h.press("G")
		_ = h.m.render()
		h.press("g", "esc", "H")
	}
}
