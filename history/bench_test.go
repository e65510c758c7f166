package history_test

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

// WriteEntries writes n entries to a new store file at path in one go (as
// n Appends would, faster), for benchmarks.
func writeEntries(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	tmp := history.Open(filepath.Join(tb.TempDir(), "one.jsonl"))
	if err := tmp.Append(entry(0)); err != nil {
		tb.Fatal(err)
	}
	line, err := os.ReadFile(tmp.Path())
	if err != nil {
		tb.Fatal(err)
	}
	for range n {
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
}

// BenchmarkOpenNewest100k opens a store of 100,000 entries and reads the
// newest screenful (50 entries), what the history screen's first frame
// needs.
func BenchmarkOpenNewest100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "h.jsonl")
	writeEntries(b, path, 100_000)
	s := history.Open(path)
	b.ReportAllocs()
	for b.Loop() {
		r, err := s.Newest()
		if err != nil {
			b.Fatal(err)
		}
		for range 50 {
			if _, err := r.Next(); err != nil {
				b.Fatal(err)
			}
		}
		r.Close()
	}
}

// BenchmarkAppend is one call kept: one line appended under the lock.
func BenchmarkAppend(b *testing.B) {
	s := history.Open(filepath.Join(b.TempDir(), "h.jsonl"))
	e := entry(1)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Append(e); err != nil {
			b.Fatal(err)
		}
	}
}
