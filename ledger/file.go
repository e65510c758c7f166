package ledger

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// writer is the state of the writer goroutine: the open file and the end
// of the chain.
type writer struct {
	l         *Ledger
	f         *os.File // the ledger's file, O_APPEND
	lockF     *os.File
	size      int64 // the file's size as this writer left it; -1: unknown
	seq       uint64
	last      string // the hash of the last record
	sinceCkpt int
	dirty     bool // written since the last fsync
	lastSync  time.Time
	buf       bytes.Buffer
	batch     []entry
}

func (w *writer) open() error {
	var err error
	if w.lockF, err = os.OpenFile(w.l.opts.Path+".lock", os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	if w.f, err = openData(w.l.opts.Path); err != nil {
		w.lockF.Close()
		return err
	}
	w.size = -1
	return nil
}

func openData(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	return f, nil
}

func (w *writer) close() {
	if w.f != nil {
		w.f.Close()
	}
	if w.lockF != nil {
		w.lockF.Close()
	}
}

// flush writes the queued records; with wantSync, or when the last fsync
// is SyncInterval old, it fsyncs and updates the head; final adds a
// checkpoint and fsyncs.
func (w *writer) flush(wantSync, final bool) (err error) {
	l := w.l
	w.batch = l.take(w.batch)
	batch := w.batch
	if len(batch) == 0 && !final && !(wantSync && w.dirty) && !(wantSync && w.size < 0) {
		l.failing.Store(nil) // nothing waits to be written
		return nil
	}
	defer func() {
		if err != nil {
			msg := err.Error()
			l.failing.Store(&msg)
			l.giveBack(batch)
			l.guard()
		} else {
			l.failing.Store(nil)
		}
	}()
	unlock, err := lock(w.lockF)
	if err != nil {
		return err
	}
	defer unlock()
	extra, err := w.refresh()
	if err != nil {
		return err
	}
	if extra != nil {
		batch = append([]entry{{rec: extra}}, batch...)
	}
	if len(batch) > 0 || (final && w.sinceCkpt > 0) {
		if err := w.append(batch, final); err != nil {
			return err
		}
		l.written.Add(int64(len(batch)))
		batch = nil
	}
	if (wantSync || final || time.Since(w.lastSync) >= l.opts.SyncInterval) && w.dirty || final {
		if err := w.sync(); err != nil {
			return err
		}
	}
	if w.size >= l.opts.MaxBytes {
		return w.rotate()
	}
	return nil
}

// append writes batch, stamped with sequence numbers and the chain, in
// one write, with a checkpoint every CheckpointEvery records (and at the
// end when final). A failed write leaves the file as it was.
func (w *writer) append(batch []entry, final bool) error {
	o := &w.l.opts
	w.buf.Reset()
	seq, last, since := w.seq, w.last, w.sinceCkpt
	var call Record // the record of a call's event, made here rather than by the caller
	put := func(rec *Record) error {
		rec.Seq, rec.Prev, rec.Session, rec.Hash = seq+1, last, w.l.session, ""
		if p := &rec.who; p.Subject != "" || p.Tenant != "" || p.Auth != "" || p.Client != "" || len(p.Roles) > 0 || len(p.Scopes) > 0 {
			rec.Principal = p
		}
		h, err := encode(&w.buf, rec)
		if err != nil {
			return fmt.Errorf("ledger: record %d: %w", rec.Seq, err)
		}
		seq, last = seq+1, h
		return nil
	}
	for i := range batch {
		rec := batch[i].rec
		if rec == nil {
			call = fromEvent(&batch[i].ev, o.Policy)
			rec = &call
		}
		if err := put(rec); err != nil {
			return err
		}
		if since++; since >= o.CheckpointEvery {
			ck := w.checkpoint(seq, last)
			if err := put(&ck); err != nil {
				return err
			}
			since = 0
		}
	}
	if final && since > 0 {
		ck := w.checkpoint(seq, last)
		if err := put(&ck); err != nil {
			return err
		}
		since = 0
	}
	n, err := w.f.Write(w.buf.Bytes())
	if err != nil {
		if n > 0 {
			_ = w.f.Truncate(w.size)
		}
		return fmt.Errorf("ledger: write %s: %w", o.Path, err)
	}
	w.size += int64(n)
	w.seq, w.last, w.sinceCkpt = seq, last, since
	w.l.seq.Store(seq)
	w.dirty = true
	return nil
}

func (w *writer) checkpoint(seq uint64, hash string) Record {
	sig := ed25519.Sign(w.l.key, checkpointMessage(KindCheckpoint, seq, hash))
	return Record{Kind: KindCheckpoint, Time: time.Now().UTC(), Covers: seq, CoversHash: hash, Key: w.l.keyFP,
		Sig: base64.StdEncoding.EncodeToString(sig)}
}

// Head is the signed statement, kept beside the ledger (PATH.head), of its
// last record when it was last fsynced: records cut off the end show as
// missing against it.
type Head struct {
	Seq  uint64    `json:"seq"`
	Hash string    `json:"hash"`
	Time time.Time `json:"time"`
	Key  string    `json:"key"`
	Sig  string    `json:"sig"`
}

// sync fsyncs the file and replaces the head (written, fsynced, renamed).
func (w *writer) sync() error {
	o := &w.l.opts
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("ledger: fsync %s: %w", o.Path, err)
	}
	if w.seq > 0 {
		sig := ed25519.Sign(w.l.key, checkpointMessage("head", w.seq, w.last))
		b, _ := json.Marshal(Head{Seq: w.seq, Hash: w.last, Time: time.Now().UTC(), Key: w.l.keyFP, Sig: base64.StdEncoding.EncodeToString(sig)})
		if err := writeFileSync(o.Path+".head", append(b, '\n')); err != nil {
			return fmt.Errorf("ledger: head: %w", err)
		}
	}
	w.dirty = false
	w.lastSync = time.Now()
	t := w.lastSync
	w.l.lastSync.Store(&t)
	return nil
}

func writeFileSync(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// rotate ends the file with a checkpoint, fsyncs it and moves it to the
// next PATH.NNNNNN; the chain goes on in a new file.
func (w *writer) rotate() error {
	o := &w.l.opts
	if w.sinceCkpt > 0 {
		if err := w.append(nil, true); err != nil {
			return err
		}
	}
	if err := w.sync(); err != nil {
		return err
	}
	segs, err := segments(o.Path)
	if err != nil {
		return err
	}
	next := 1
	if len(segs) > 0 {
		next = segs[len(segs)-1].n + 1
	}
	if err := os.Rename(o.Path, fmt.Sprintf("%s.%06d", o.Path, next)); err != nil {
		return fmt.Errorf("ledger: rotate: %w", err)
	}
	f, err := openData(o.Path)
	if err != nil {
		return err
	}
	w.f.Close()
	w.f, w.size = f, 0
	return nil
}

// refresh makes the writer's file the ledger's current one and its end of
// chain the file's, which another process may have moved on; a torn last
// line is set aside, and the record saying so returned.
func (w *writer) refresh() (*Record, error) {
	path := w.l.opts.Path
	cur, err := w.f.Stat()
	if err != nil {
		return nil, fmt.Errorf("ledger: %w", err)
	}
	if fi, err := os.Stat(path); err != nil || !os.SameFile(fi, cur) {
		f, err := openData(path)
		if err != nil {
			return nil, err
		}
		w.f.Close()
		w.f, w.size = f, -1
		if cur, err = f.Stat(); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
	}
	if cur.Size() == w.size {
		return nil, nil
	}
	return w.readTail(cur.Size())
}

// readTail reads the end of the chain from the file of size bytes, or from
// the newest rotated file when it is empty. Bytes after the last newline
// are a torn line: they go to PATH.torn and the file is cut before them.
func (w *writer) readTail(size int64) (*Record, error) {
	path := w.l.opts.Path
	w.sinceCkpt = 0
	if size == 0 {
		w.size = 0
		segs, err := segments(path)
		if err != nil || len(segs) == 0 {
			w.seq, w.last = 0, ""
			return nil, err
		}
		f, err := os.Open(segs[len(segs)-1].path)
		if err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		line, _, err := lastLine(f, fi.Size())
		if err != nil {
			return nil, err
		}
		return nil, w.takeEnd(line)
	}
	line, end, err := lastLine(w.f, size)
	if err != nil {
		return nil, err
	}
	var rec *Record
	if end < size { // a torn last line
		torn := make([]byte, size-end)
		if _, err := w.f.ReadAt(torn, end); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		if err := appendFile(path+".torn", torn); err != nil {
			return nil, fmt.Errorf("ledger: set aside a torn line: %w", err)
		}
		if err := w.f.Truncate(end); err != nil {
			return nil, fmt.Errorf("ledger: %w", err)
		}
		rec = &Record{Kind: KindRecovered, Time: time.Now().UTC(),
			Note: fmt.Sprintf("a torn last line of %d bytes (a write cut short) was set aside in %s", len(torn), filepath.Base(path)+".torn")}
	}
	w.size = end
	if line == nil {
		w.seq, w.last = 0, ""
		// The chain goes on from the newest rotated file, if any.
		if segs, err := segments(path); err == nil && len(segs) > 0 {
			if _, err := w.readTail(0); err != nil {
				return nil, err
			}
			w.size = end
		}
		return rec, nil
	}
	return rec, w.takeEnd(line)
}

// takeEnd makes line, the file's last record, the end of the chain. An
// edited record still gives its seq and hash: Verify reports the edit.
func (w *writer) takeEnd(line []byte) error {
	if line == nil {
		w.seq, w.last = 0, ""
		return nil
	}
	rec, err := decode(line)
	if rec == nil {
		return fmt.Errorf("ledger: %s: the last record cannot be read (%v): run toolexplorer ledger verify", w.l.opts.Path, err)
	}
	w.seq, w.last = rec.Seq, rec.Hash
	w.l.seq.Store(rec.Seq)
	return nil
}

// lastLine returns the last complete line of the first size bytes of f
// (without its newline; nil when there is none) and the offset just past
// its newline.
func lastLine(f io.ReaderAt, size int64) ([]byte, int64, error) {
	chunk := int64(64 << 10)
	var tail []byte
	for off := size; ; {
		start := max(off-chunk, 0)
		b := make([]byte, off-start)
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return nil, 0, fmt.Errorf("ledger: %w", err)
		}
		tail = append(b, tail...)
		// The last newline ends the last complete line; the one before it
		// starts it.
		if i := bytes.LastIndexByte(tail, '\n'); i >= 0 {
			if j := bytes.LastIndexByte(tail[:i], '\n'); j >= 0 || start == 0 {
				end := start + int64(i) + 1
				return tail[j+1 : i], end, nil
			}
		} else if start == 0 {
			return nil, 0, nil
		}
		off = start
		if start == 0 {
			return nil, 0, nil
		}
	}
}

func appendFile(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

type segment struct {
	path string
	n    int
}

// segments lists the rotated files of the ledger at path, the oldest first.
func segments(path string) ([]segment, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("ledger: %w", err)
	}
	var out []segment
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), base+".")
		if !ok || len(rest) < 6 {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n <= 0 {
			continue
		}
		out = append(out, segment{filepath.Join(dir, e.Name()), n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n < out[j].n })
	return out, nil
}
