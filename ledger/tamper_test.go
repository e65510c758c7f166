package ledger_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/ledger"
)

// tamperLedger writes a ledger of 40 calls with a checkpoint every 10
// records and returns its path and lines.
func tamperLedger(t *testing.T) (string, [][]byte) {
	t.Helper()
	dir := t.TempDir()
	l := open(t, dir, ledger.Options{CheckpointEvery: 10})
	r := registry(nil)
	l.Attach(r)
	for i := 0; i < 40; i++ {
		r.Execute(context.Background(), "t.echo", json.RawMessage(`{"n":1}`))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	return l.Path(), bytes.SplitAfter(b, []byte("\n"))[:bytes.Count(b, []byte("\n"))]
}

func seqOf(t *testing.T, line []byte) uint64 {
	var rec ledger.Record
	if err := json.Unmarshal(line, &rec); err != nil {
		t.Fatal(err)
	}
	return rec.Seq
}

// rechain recomputes the hash of every line from i on, as someone without
// the key would to hide an edit.
func rechain(t *testing.T, lines [][]byte, i int) {
	var prev string
	if i > 0 {
		var rec ledger.Record
		json.Unmarshal(lines[i-1], &rec)
		prev = rec.Hash
	}
	for ; i < len(lines); i++ {
		var rec ledger.Record
		if err := json.Unmarshal(lines[i], &rec); err != nil {
			t.Fatal(err)
		}
		rec.Prev, rec.Hash = prev, ""
		if rec.Kind == ledger.KindCheckpoint {
			rec.CoversHash = prev // the signature cannot follow
		}
		body, _ := json.Marshal(rec)
		sum := sha256.Sum256(body)
		prev = hex.EncodeToString(sum[:])
		lines[i] = []byte(string(body[:len(body)-1]) + `,"hash":"` + prev + "\"}\n")
	}
}

// Verify names the first bad record of an edited, deleted, reordered or
// cut-off ledger; the untouched ledger verifies.
func TestVerifyNamesTheFirstBadRecord(t *testing.T) {
	path, lines := tamperLedger(t)
	if rep := verify(t, path); !rep.OK() {
		t.Fatalf("the untouched ledger does not verify: %v", rep.Problem)
	}
	// The records of the 13th call's begin: line 30 or so, between
	// checkpoints.
	const k = 33
	var lastCkpt uint64
	for _, ln := range lines[:k] {
		if bytes.Contains(ln, []byte(`"kind":"checkpoint"`)) {
			lastCkpt = seqOf(t, ln)
		}
	}
	if lastCkpt == 0 {
		t.Fatal("no checkpoint before the tampered record")
	}
	for _, c := range []struct {
		name   string
		tamper func([][]byte) [][]byte
		seq    uint64
		reason string
	}{
		{"edited", func(ls [][]byte) [][]byte {
			ls[k] = bytes.Replace(ls[k], []byte(`"t.echo"`), []byte(`"t.ech0"`), 1)
			return ls
		}, seqOf(t, lines[k]), "edited"},
		{"edited, hashes recomputed", func(ls [][]byte) [][]byte {
			ls[k] = bytes.Replace(ls[k], []byte(`"t.echo"`), []byte(`"t.ech0"`), 1)
			rechain(t, ls, k)
			return ls
		}, lastCkpt + 1, "rewritten"},
		{"edited at the end, hashes recomputed", func(ls [][]byte) [][]byte {
			n := len(ls) - 3
			ls[n] = bytes.Replace(ls[n], []byte(`"t.echo"`), []byte(`"t.ech0"`), 1)
			rechain(t, ls, n)
			return ls
		}, 0, "rewritten"},
		{"deleted", func(ls [][]byte) [][]byte { return append(ls[:k:k], ls[k+1:]...) }, seqOf(t, lines[k+1]), "missing"},
		{"reordered", func(ls [][]byte) [][]byte { ls[k], ls[k+1] = ls[k+1], ls[k]; return ls }, seqOf(t, lines[k+1]), "out of order"},
		{"truncated", func(ls [][]byte) [][]byte { return ls[:len(ls)-3] }, seqOf(t, lines[len(lines)-3]), "truncated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ls := make([][]byte, len(lines))
			for i := range lines {
				ls[i] = bytes.Clone(lines[i])
			}
			if err := os.WriteFile(path, bytes.Join(c.tamper(ls), nil), 0o600); err != nil {
				t.Fatal(err)
			}
			rep := verify(t, path)
			if rep.OK() {
				t.Fatal("the tampered ledger verifies")
			}
			if (c.seq != 0 && rep.Problem.Seq != c.seq) || !strings.Contains(rep.Problem.Reason, c.reason) {
				t.Fatalf("problem %v; want record %d, %q", rep.Problem, c.seq, c.reason)
			}
		})
	}
}
