package history_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func entry(i int) history.Entry {
	return history.Entry{
		Time: t0.Add(time.Duration(i) * time.Second), Tool: "demo.echo",
		Args: json.RawMessage(fmt.Sprintf(`{"text":"call %d"}`, i)), Origin: tooling.OriginUI, Via: history.ViaConsole,
		Result: &tooling.Result{CallID: fmt.Sprint("c", i), Tool: "demo.echo", Status: "ok",
			Output: json.RawMessage(fmt.Sprintf(`{"text":"call %d"}`, i)), Wait: time.Millisecond, Run: 2 * time.Millisecond},
	}
}

// readAll reads a store newest first.
func readAll(t testing.TB, s *history.Store) ([]history.Entry, int) {
	t.Helper()
	r, err := s.Newest()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []history.Entry
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out, r.Skipped
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

func TestAppendAndReadNewestFirst(t *testing.T) {
	s := history.Open(filepath.Join(t.TempDir(), "state", "history.jsonl"))
	if got, _ := readAll(t, s); len(got) != 0 {
		t.Fatalf("a store with no file reads %d entries", len(got))
	}
	for i := range 5 {
		if err := s.Append(entry(i)); err != nil {
			t.Fatal(err)
		}
	}
	got, skipped := readAll(t, s)
	if len(got) != 5 || skipped != 0 {
		t.Fatalf("read %d entries, skipped %d", len(got), skipped)
	}
	for i, e := range got {
		want := entry(4 - i)
		if e.Tool != want.Tool || string(e.Args) != string(want.Args) || !e.Time.Equal(want.Time) || e.Origin != tooling.OriginUI || e.Via != history.ViaConsole {
			t.Errorf("entry %d: %+v, want %+v", i, e, want)
		}
		if e.Result == nil || e.Result.CallID != want.Result.CallID || e.Result.Run != 2*time.Millisecond || e.Result.Wait != time.Millisecond ||
			string(e.Result.Output) != string(want.Result.Output) {
			t.Errorf("entry %d: result %+v", i, e.Result)
		}
	}
	odd, err := s.Last(2, func(e *history.Entry) bool { return e.Time.Second()%2 == 1 }) // entries 4, 2 and 0
	if err != nil || len(odd) != 2 || !odd[0].Time.Equal(entry(4).Time) || !odd[1].Time.Equal(entry(2).Time) {
		t.Errorf("Last(2, odd seconds) = %v, %v", odd, err)
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the history file is %v, want 0600 (it holds arguments and outputs)", fi.Mode().Perm())
	}
}

// Entries spanning many read chunks come back whole and in order.
func TestReadAcrossChunks(t *testing.T) {
	s := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
	const n = 300
	for i := range n {
		e := entry(i)
		e.Args = json.RawMessage(fmt.Sprintf(`{"text":"%d %s"}`, i, strings.Repeat("x", 700+i*7%1000)))
		if err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	got, skipped := readAll(t, s)
	if len(got) != n || skipped != 0 {
		t.Fatalf("read %d of %d entries, skipped %d", len(got), n, skipped)
	}
	for i, e := range got {
		if !strings.HasPrefix(string(e.Args), fmt.Sprintf(`{"text":"%d `, n-1-i)) {
			t.Fatalf("entry %d has args %.30s", i, e.Args)
		}
	}
}

// A last line cut short (a process killed while writing, or writing now)
// and a line that is not JSON are skipped; the others are read.
func TestTornAndBadLinesAreSkipped(t *testing.T) {
	for _, tc := range []struct {
		name, tail string
		want, skip int
	}{
		{"torn last line", `{"time":"2026-01-02T03:04:05Z","tool":"demo.ec`, 2, 1},
		{"garbage line", "not json\n", 2, 1},
		{"blank lines", "\n\n", 2, 0},
		{"only a torn line", "", 2, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
			for i := range 2 {
				if err := s.Append(entry(i)); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.OpenFile(s.Path(), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(tc.tail)
			f.Close()
			got, skipped := readAll(t, s)
			if len(got) != tc.want || skipped != tc.skip {
				t.Fatalf("read %d entries, skipped %d; want %d, %d", len(got), skipped, tc.want, tc.skip)
			}
			if string(got[0].Args) != string(entry(1).Args) {
				t.Errorf("newest entry %s", got[0].Args)
			}
		})
	}
	// A file that is nothing but a torn line reads as empty.
	path := filepath.Join(t.TempDir(), "h.jsonl")
	os.WriteFile(path, []byte(`{"tool":"x"`), 0o600)
	if got, skipped := readAll(t, history.Open(path)); len(got) != 0 || skipped != 1 {
		t.Errorf("a torn-only file read %d entries, skipped %d", len(got), skipped)
	}
}

// Past its bound, the store drops its oldest entries and keeps whole lines.
func TestTrimKeepsTheNewest(t *testing.T) {
	s := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
	s.MaxBytes = 8 << 10
	const n = 200
	for i := range n {
		if err := s.Append(entry(i)); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(s.Path()); err != nil || fi.Size() > s.MaxBytes {
			t.Fatalf("after %d appends the file is %d bytes, bound %d (%v)", i+1, fi.Size(), s.MaxBytes, err)
		}
	}
	got, skipped := readAll(t, s)
	if skipped != 0 || len(got) < 10 || len(got) >= n {
		t.Fatalf("kept %d entries, skipped %d", len(got), skipped)
	}
	for i, e := range got {
		if want := entry(n - 1 - i); string(e.Args) != string(want.Args) {
			t.Fatalf("entry %d is %s, want %s: the newest must be kept in order", i, e.Args, want.Args)
		}
	}
}

// Writers in parallel, each with its own Store and file descriptors as
// separate processes have, never interleave lines nor lose one, even while
// the file is trimmed.
func TestConcurrentAppends(t *testing.T) {
	for _, bound := range []int64{0, 16 << 10} {
		t.Run(fmt.Sprint("bound ", bound), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "h.jsonl")
			const writers, each = 8, 50
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s := history.Open(path)
					s.MaxBytes = bound
					for i := range each {
						e := entry(w*1000 + i)
						e.Args = json.RawMessage(fmt.Sprintf(`{"w":%d,"i":%d,"pad":%q}`, w, i, strings.Repeat("p", 200)))
						if err := s.Append(e); err != nil {
							t.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			got, skipped := readAll(t, history.Open(path))
			if skipped != 0 {
				t.Fatalf("%d lines did not decode: lines were interleaved", skipped)
			}
			last := map[int]int{}
			for _, e := range got { // newest first: each writer's i goes down
				var a struct{ W, I int }
				json.Unmarshal(e.Args, &a)
				if prev, ok := last[a.W]; ok && a.I != prev-1 {
					t.Fatalf("writer %d: entry %d follows %d: one was lost", a.W, a.I, prev)
				}
				last[a.W] = a.I
			}
			if bound == 0 && len(got) != writers*each {
				t.Fatalf("read %d entries, want %d", len(got), writers*each)
			}
			for w := range writers {
				if _, ok := last[w]; bound == 0 && !ok {
					t.Errorf("writer %d has no entry", w)
				}
			}
		})
	}
}

// An output larger than MaxOutputBytes is not stored; the entry says how
// large it was.
func TestLargeOutputIsOmitted(t *testing.T) {
	s := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
	e := entry(1)
	e.Result.Output = json.RawMessage(`"` + strings.Repeat("a", history.MaxOutputBytes) + `"`)
	if err := s.Append(e); err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(t, s)
	if len(got) != 1 || got[0].Result.Output != nil || got[0].OutputOmitted != history.MaxOutputBytes+2 {
		t.Fatalf("stored output %d bytes, omitted %d", len(got[0].Result.Output), got[0].OutputOmitted)
	}
	if len(e.Result.Output) != history.MaxOutputBytes+2 {
		t.Error("Append changed the caller's result")
	}
}

func TestDefaultPath(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		env  func(string) string
		want string
	}{
		{env(history.FileEnv, "/tmp/h.jsonl", "XDG_STATE_HOME", "/s"), "/tmp/h.jsonl"},
		{env(history.FileEnv, "off"), ""},
		{env("XDG_STATE_HOME", "/s", "HOME", "/home/u"), "/s/toolexplorer/history.jsonl"},
		{env("XDG_STATE_HOME", "relative", "HOME", "/home/u"), "/home/u/.local/state/toolexplorer/history.jsonl"},
		{env("HOME", "/home/u"), "/home/u/.local/state/toolexplorer/history.jsonl"},
	} {
		got, err := history.DefaultPath(tc.env)
		if err != nil || got != filepath.FromSlash(tc.want) {
			t.Errorf("DefaultPath = %q, %v; want %q", got, err, tc.want)
		}
	}
}

func TestMatches(t *testing.T) {
	ok := entry(1)
	fail := entry(2)
	fail.Tool = "demo.fail"
	fail.Result = &tooling.Result{Status: "error", Code: codes.ToolError}
	for _, tc := range []struct {
		q        string
		ok, fail bool
	}{
		{"", true, true},
		{"ECHO", true, false},
		{"tool_error", false, true},
		{"ok", true, false},
		{"call 1", true, false},
		{"demo call", true, true},
		{"nothing", false, false},
	} {
		if got := history.Matches(&ok, tc.q); got != tc.ok {
			t.Errorf("%q matches the echo call: %v", tc.q, got)
		}
		if got := history.Matches(&fail, tc.q); got != tc.fail {
			t.Errorf("%q matches the failed call: %v", tc.q, got)
		}
	}
}

// The file holds the calls in the order they ended; it reads in the order
// they started, the last started first.
func TestReadInStartOrder(t *testing.T) {
	s := history.Open(filepath.Join(t.TempDir(), "h.jsonl"))
	call := func(name string, start, took time.Duration) history.Entry {
		e := entry(0)
		e.Tool, e.Time = name, t0.Add(start)
		e.Result.Started, e.Result.Wait, e.Result.Run = t0.Add(start), 0, took
		return e
	}
	// Appended as they end: "old" at 1s, "short" at 6s, "long" at 12s,
	// "last" at 20s.
	for _, e := range []history.Entry{
		call("old", 0, time.Second),
		call("short", 5*time.Second, time.Second),
		call("long", 2*time.Second, 10*time.Second),
		call("last", 19*time.Second, time.Second),
	} {
		if err := s.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := readAll(t, s)
	var names []string
	for _, e := range got {
		names = append(names, e.Tool)
	}
	if want := "last short long old"; strings.Join(names, " ") != want {
		t.Errorf("read %q, want %q", strings.Join(names, " "), want)
	}
	last, err := s.Last(2, nil)
	if err != nil || len(last) != 2 || last[0].Tool != "last" || last[1].Tool != "short" {
		t.Errorf("Last(2) = %v, %v; want last, short", last, err)
	}
}
