package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// TestRunIdempotencyKey: run --idempotency-key with the sqlite store of
// the config, as separate runs of the program would: the first run writes
// a note, the repeat replays it without writing another, other arguments
// with the key are refused with idempotency_conflict (exit 3).
func TestRunIdempotencyKey(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	t.Setenv(history.FileEnv, hist)
	db := filepath.Join(t.TempDir(), "idem.db")
	cfg := writeFile(t, "config.json", `{"idempotency": {"store": "sqlite", "path": "`+db+`", "ttl": "1h"}}`)
	note := func(text string, args ...string) outcome {
		return cli(t, "", append([]string{"run", "demo.write_note", "--config", cfg, "--consent", "--args", `{"text":"` + text + `"}`}, args...)...)
	}
	key := "note-" + strings.ReplaceAll(t.Name(), "/", "-")
	first := note("paid", "--idempotency-key", key, "--json")
	if first.code != exitOK {
		t.Fatalf("first run:\n%s", first)
	}
	r1 := decodeResult(t, first)
	// The history keeps the key, so that the call made again from it
	// replays too.
	if kept, err := history.Open(hist).Last(1, nil); err != nil || len(kept) != 1 || kept[0].IdempotencyKey != key {
		t.Fatalf("the history keeps %+v (%v), want the key %s", kept, err, key)
	}
	again := note("paid", "--idempotency-key", key, "--json")
	if again.code != exitOK {
		t.Fatalf("repeat:\n%s", again)
	}
	r2 := decodeResult(t, again)
	if r1.Replayed || !r2.Replayed || string(r1.Output) != string(r2.Output) {
		t.Fatalf("first replayed %v output %s; repeat replayed %v output %s; want the repeat to replay the first", r1.Replayed, r1.Output, r2.Replayed, r2.Output)
	}
	// A note written without a key is the next note: the repeat wrote none.
	plain := decodeResult(t, note("other", "--json"))
	if got, want := outputField(t, plain, "count"), outputField(t, r1, "count").(float64)+1; got != want {
		t.Fatalf("count after the repeat and one more note = %v, want %v: the repeat must not write", got, want)
	}
	text := note("paid", "--idempotency-key", key)
	if text.code != exitOK || !strings.Contains(text.stdout, "replayed") {
		t.Fatalf("repeat in text form does not say replayed:\n%s", text)
	}
	conflict := note("changed", "--idempotency-key", key, "--json")
	if res := decodeResult(t, conflict); conflict.code != exitRefused || res.Code != codes.IdempotencyConflict {
		t.Fatalf("other arguments with the key:\n%s", conflict)
	}
}
