//go:build unix

package history

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// An appender that has the file open when a trim starts: the trim waits
// for its write, which is kept. Without the lock the trim would rename a
// new file over the old one first, and the write would land in the old,
// unlinked file: lost.
func TestTrimWaitsForAppender(t *testing.T) {
	s := Open(t.TempDir() + "/h.jsonl")
	s.MaxBytes = 4 << 10
	for i := 0; ; i++ {
		if err := s.Append(Entry{Tool: "demo.echo", Args: json.RawMessage(`{"i":` + strings.Repeat("1", 100) + `}`)}); err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(s.Path()); fi.Size() > s.MaxBytes*3/4 {
			break
		}
	}
	// An appender, between its open and its write, holding the shared lock.
	unlock, err := lockFile(s.Path()+".lock", false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(s.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The file is made larger than its bound, then trimmed.
	big, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(big); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.trim() }()
	// Not a measurement: with the lock the trim waits however long this
	// takes; the pause only gives a trim without the lock the time to
	// finish first, which this test must then catch.
	select {
	case err := <-done:
		t.Fatalf("the trim did not wait for the appender holding the lock (err %v)", err)
	case <-time.After(50 * time.Millisecond):
	}
	line := `{"tool":"demo.marker","args":{}}` + "\n"
	if _, err := f.WriteString(line); err != nil {
		t.Fatal(err)
	}
	f.Close()
	unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	got, err := s.Last(1, nil)
	if err != nil || len(got) != 1 || got[0].Tool != "demo.marker" {
		t.Fatalf("the appender's line is lost: newest %+v, %v", got, err)
	}
}
