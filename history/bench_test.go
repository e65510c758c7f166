package history_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

// writeEntries writes n entries of calls a second apart to a new store
// file at path in one go (as n Appends would, faster), for benchmarks.
func writeEntries(tb testing.TB, path string, n int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		e := entry(i)
		e.Result.Started = e.Time
		line, err := json.Marshal(e)
		if err != nil {
			tb.Fatal(err)
		}
		w.Write(line)
		w.WriteByte('\n')
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

// writeBurst writes n entries of calls that started in the same second
// (a script's loop, a batch replayed), as the console keeps them.
func writeBurst(tb testing.TB, path string, n int) {
	tb.Helper()
	tmp := history.Open(filepath.Join(tb.TempDir(), "one.jsonl"))
	if err := tmp.Append(entry(0)); err != nil {
		tb.Fatal(err)
	}
	line, err := os.ReadFile(tmp.Path())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat(line, n), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkReadAllBurst reads every entry of a store whose calls all
// started in the same second, as the history search's index does; the
// time per entry stays flat from 10,000 to 100,000 entries.
func BenchmarkReadAllBurst(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "h.jsonl")
			writeBurst(b, path, n)
			s := history.Open(path)
			b.ReportAllocs()
			for b.Loop() {
				if got, err := s.Last(0, nil); err != nil || len(got) != n {
					b.Fatalf("%d entries, %v", len(got), err)
				}
			}
		})
	}
}
