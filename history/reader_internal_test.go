package history

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestReadBurstIsNotQuadratic: the calls of a burst started in the same
// second are all held until the file's start is read; picking each of
// them in turn costs a logarithm of the entries held, not a scan of them
// all (20,000 entries took 200 million comparisons, reading 100,000 of
// them many minutes). The entries still come in start order, the first
// read first among equal starts.
func TestReadBurstIsNotQuadratic(t *testing.T) {
	const n = 20_000
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	for i := range n {
		// Every entry starts at t0 but the last 10, a second later.
		start := t0
		if i >= n-10 {
			start = t0.Add(time.Second)
		}
		line, err := json.Marshal(Entry{Time: start, Tool: "demo.echo", Args: json.RawMessage(`{"i":` + string(rune('0'+i%10)) + `}`),
			Result: &tooling.Result{CallID: "c", Tool: "demo.echo", Status: "ok"}})
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path).Newest()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e)
	}
	if len(got) != n || !got[0].Time.Equal(t0.Add(time.Second)) || !got[10].Time.Equal(t0) {
		t.Fatalf("%d entries, the first at %v, the 11th at %v", len(got), got[0].Time, got[10].Time)
	}
	if limit := int(4 * n * math.Log2(n)); r.held.compared > limit {
		t.Fatalf("%d comparisons to read %d entries, want at most %d", r.held.compared, n, limit)
	}
}
