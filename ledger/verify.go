package ledger

import (
	"bufio"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Report is what Verify found.
type Report struct {
	Files       []string // the files read, the oldest first
	Records     int      // records read
	LastSeq     uint64   // the sequence number of the last record
	Checkpoints int      // signed checkpoints verified
	Head        *Head    // the signed head, nil when there is none
	// Problem is the first bad record, nil when the ledger is intact.
	Problem *Problem
}

// OK reports whether the ledger is intact.
func (r *Report) OK() bool { return r.Problem == nil }

// Problem names the first record that cannot be trusted and why.
type Problem struct {
	Seq    uint64 // the record's sequence number (for a cut-off end: the first missing one)
	File   string // where it is ("" when it is missing)
	Line   int    // its line in File, from 1 (0 when it is missing)
	Reason string
}

func (p *Problem) Error() string {
	if p.File == "" {
		return fmt.Sprintf("record %d: %s", p.Seq, p.Reason)
	}
	return fmt.Sprintf("record %d (%s:%d): %s", p.Seq, p.File, p.Line, p.Reason)
}

// Verify reads the ledger at path (its rotated files, the file, and its
// head) and checks, with the public key pub:
//
//   - every record's hash is that of its content (an edit that does not
//     recompute it shows at the edited record);
//   - sequence numbers run from 1 without a gap or a step back (a deleted
//     or reordered record shows where the run breaks);
//   - every record carries the hash of the one before (an edited record
//     whose hash was recomputed shows at the record after it);
//   - every checkpoint is signed by pub over the record before it, and the
//     head (PATH.head) over the last record it saw fsynced: rewriting
//     records and recomputing every hash after them shows at the first
//     checkpoint or head after the rewrite, and the records after the last
//     good checkpoint are named as the first that cannot be trusted; records
//     cut off the end show as missing against the head.
//
// What it cannot detect: a change made with the private key (keep it
// 0600, or apart from the ledger); records cut off together with the head
// replaced by an older head of the same ledger; records written after the
// last fsync (at most SyncInterval of them), which a crash or a cut may
// take without a trace. The error is for a ledger that cannot be read at
// all; a bad ledger gives a Report with a Problem.
func Verify(path string, pub ed25519.PublicKey) (*Report, error) {
	segs, err := segments(path)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, s := range segs {
		rep.Files = append(rep.Files, s.path)
	}
	if _, err := os.Stat(path); err == nil {
		rep.Files = append(rep.Files, path)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	head, headErr := readHead(path)
	if headErr != nil {
		return nil, headErr
	}
	rep.Head = head
	v := verifier{rep: rep, pub: pub, head: head}
	for _, f := range rep.Files {
		if err := v.file(f); err != nil {
			return nil, err
		}
		if rep.Problem != nil {
			return rep, nil
		}
	}
	v.end(path)
	return rep, nil
}

type verifier struct {
	rep      *Report
	pub      ed25519.PublicKey
	head     *Head
	prev     string
	goodCkpt uint64 // the seq of the last checkpoint that verified
	headHash string // the hash of the record at head.Seq, once seen
	// gap is a record that came before its turn: deleted records before
	// it, or reordered ones, as the record after it tells.
	gap     *Problem
	gapWant uint64
}

func (v *verifier) bad(seq uint64, file string, line int, format string, a ...any) {
	v.rep.Problem = &Problem{Seq: seq, File: file, Line: line, Reason: fmt.Sprintf(format, a...)}
}

func (v *verifier) file(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 256<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			if v.gap != nil {
				v.rep.Problem = v.gap
				return nil
			}
			if len(line) > 0 {
				v.bad(v.rep.LastSeq+1, name, n, "a torn last line of %d bytes (a write cut short, as by a crash): the next writer sets it aside", len(line))
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		if v.record(name, n, line[:len(line)-1]); v.rep.Problem != nil {
			return nil
		}
	}
}

func (v *verifier) record(name string, n int, line []byte) {
	want := v.rep.LastSeq + 1
	rec, err := decode(line)
	if g := v.gap; g != nil {
		if rec != nil && rec.Seq == v.gapWant {
			g.Reason = fmt.Sprintf("out of order: record %d comes before record %d (reordered)", g.Seq, v.gapWant)
		}
		v.rep.Problem = g
		return
	}
	switch {
	case rec == nil:
		v.bad(want, name, n, "not a ledger record: %v", err)
		return
	case err != nil:
		v.bad(rec.Seq, name, n, "%v", err)
		return
	case rec.Seq > want:
		v.gap = &Problem{Seq: rec.Seq, File: name, Line: n, Reason: fmt.Sprintf("records %s are missing: it follows record %d (deleted)", span(want, rec.Seq-1), want-1)}
		v.gapWant = want
		return
	case rec.Seq < want:
		v.bad(rec.Seq, name, n, "out of order: record %d where %d was expected (reordered or repeated)", rec.Seq, want)
		return
	case rec.Prev != v.prev:
		if rec.Seq > 1 {
			v.bad(rec.Seq-1, name, n-1, "edited: record %d's hash is not the one the record after it chains to (its hash was recomputed after an edit, or it was replaced)", rec.Seq-1)
		} else {
			v.bad(rec.Seq, name, n, "the first record chains to a record before it: the start of the ledger was removed")
		}
		return
	}
	if rec.Kind == KindCheckpoint {
		if !v.checkpoint(rec) {
			v.bad(v.goodCkpt+1, "", 0, "rewritten: the checkpoint at record %d (%s:%d) does not sign the records before it, so every record after the last good checkpoint (record %d) is suspect; the first is record %d",
				rec.Seq, name, n, v.goodCkpt, v.goodCkpt+1)
			return
		}
		v.goodCkpt = rec.Seq
		v.rep.Checkpoints++
	}
	if v.head != nil && rec.Seq == v.head.Seq {
		v.headHash = rec.Hash
	}
	v.prev = rec.Hash
	v.rep.LastSeq = rec.Seq
	v.rep.Records++
}

func (v *verifier) checkpoint(rec *Record) bool {
	if rec.Covers != rec.Seq-1 || rec.CoversHash != rec.Prev {
		return false
	}
	if v.pub == nil {
		return true
	}
	sig, err := base64.StdEncoding.DecodeString(rec.Sig)
	return err == nil && ed25519.Verify(v.pub, checkpointMessage(KindCheckpoint, rec.Covers, rec.CoversHash), sig)
}

// end checks the head against the last records.
func (v *verifier) end(path string) {
	h := v.head
	if h == nil {
		if v.rep.Records > 0 {
			v.bad(v.rep.LastSeq+1, "", 0, "there is no signed head (%s.head): records cut off the end cannot be told from none", path)
		}
		return
	}
	if v.pub != nil {
		sig, err := base64.StdEncoding.DecodeString(h.Sig)
		if err != nil || !ed25519.Verify(v.pub, checkpointMessage("head", h.Seq, h.Hash), sig) {
			v.bad(h.Seq, "", 0, "the head (%s.head) is not signed by the ledger's key: it was forged, or the key is not this ledger's", path)
			return
		}
	}
	switch {
	case v.rep.LastSeq < h.Seq:
		v.bad(v.rep.LastSeq+1, "", 0, "truncated: records %s are missing from the end (the signed head says the ledger reached record %d)", span(v.rep.LastSeq+1, h.Seq), h.Seq)
	case v.headHash != h.Hash:
		v.bad(v.goodCkpt+1, "", 0, "rewritten: record %d is not the one the signed head names, so every record after the last good checkpoint (record %d) is suspect; the first is record %d",
			h.Seq, v.goodCkpt, v.goodCkpt+1)
	}
}

func span(a, b uint64) string {
	if a == b {
		return fmt.Sprint(a)
	}
	return fmt.Sprintf("%d to %d", a, b)
}

func readHead(path string) (*Head, error) {
	b, err := os.ReadFile(path + ".head")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	var h Head
	if err := json.Unmarshal(b, &h); err != nil {
		return &Head{}, nil // a head that does not parse fails its signature
	}
	return &h, nil
}
