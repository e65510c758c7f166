package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

// BenchmarkHistoryFirstFrame opens the history screen (H) over a store of
// 100,000 calls and draws its first frame: the store is read from its end,
// a screenful at a time, and only the visible rows are drawn.
func BenchmarkHistoryFirstFrame(b *testing.B) {
	one := keptStore(b, 1)
	line, err := os.ReadFile(one.Path())
	if err != nil {
		b.Fatal(err)
	}
	line = line[:bytes.IndexByte(line, '\n')+1]
	path := filepath.Join(b.TempDir(), "history.jsonl")
	if err := os.WriteFile(path, bytes.Repeat(line, 100_000), 0o600); err != nil {
		b.Fatal(err)
	}
	h := newHarnessWith(b, newTestRegistry(b), Options{History: history.Open(path)}, 120, 40)
	b.ReportAllocs()
	for b.Loop() {
		h.press("H")
		_ = h.m.render()
		h.press("esc")
	}
}
