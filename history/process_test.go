package history_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
)

// writerEnv names the store a child process of this test binary appends
// to (TestAppendWriterProcess), and which writer it is.
const writerEnv = "HISTORY_TEST_WRITER"

// TestAppendWriterProcess is not a test of its own: run by
// TestTwoProcessesAppend as a child, it appends 150 entries.
func TestAppendWriterProcess(t *testing.T) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		t.Skip("a child of TestTwoProcessesAppend")
	}
	path, w, _ := strings.Cut(spec, "|")
	s := history.Open(path)
	s.MaxBytes = 24 << 10
	for i := range 150 {
		e := entry(i)
		e.Args = json.RawMessage(fmt.Sprintf(`{"w":%s,"i":%d,"pad":%q}`, w, i, strings.Repeat("p", 150)))
		if err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
}

// Two processes appending to one store at once, while it is trimmed: no
// line is torn or interleaved, and what is kept of each writer is its
// newest entries, in order, none lost between them. (A writer done early
// may have nothing left once the other's appends are trimmed.)
func TestTwoProcessesAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.jsonl")
	var cmds []*exec.Cmd
	for w := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAppendWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), writerEnv+"="+path+"|"+strconv.Itoa(w))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a writer failed: %v", err)
		}
	}
	got, skipped := readAll(t, history.Open(path))
	if skipped != 0 {
		t.Fatalf("%d lines did not decode: lines were torn or interleaved", skipped)
	}
	last := map[int]int{}
	for _, e := range got { // newest first: each writer's i goes down by one
		var a struct{ W, I int }
		if err := json.Unmarshal(e.Args, &a); err != nil {
			t.Fatal(err)
		}
		prev, ok := last[a.W]
		switch {
		case !ok && a.I != 149:
			t.Fatalf("writer %d: its newest entry kept is %d, not its last (149): the last were lost", a.W, a.I)
		case ok && a.I != prev-1:
			t.Fatalf("writer %d: entry %d follows %d: one was lost", a.W, a.I, prev)
		}
		last[a.W] = a.I
	}
	if len(last) == 0 {
		t.Fatal("no entry kept")
	}
	if len(got) >= 300 {
		t.Errorf("%d entries kept: the store was never trimmed", len(got))
	}
}
