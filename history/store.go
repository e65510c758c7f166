package history

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Entry is one call kept in the history: what was asked and what came of
// it.
type Entry struct {
	// Time is when the call was made.
	Time time.Time `json:"time"`
	// Tool is the tool's name as called.
	Tool string `json:"tool"`
	// Args are the arguments, with secrets redacted (see Redact).
	Args json.RawMessage `json:"args"`
	// Origin is who the call was made as.
	Origin tooling.Origin `json:"origin"`
	// Consent says the call carried consent.
	Consent bool `json:"consent,omitempty"`
	// Via is what made the call: ViaConsole or ViaRun.
	Via string `json:"via"`
	// Config is the config file in force, "" for none; ToolsFiles are the
	// tools files (--tools) loaded, absolute, nil for none (ToolsFile is
	// the one file an entry kept before there could be several says);
	// Source is the tool's own (tooling.Tool.Source).
	Config     string   `json:"config,omitempty"`
	ToolsFiles []string `json:"tools_files,omitempty"`
	ToolsFile  string   `json:"tools_file,omitempty"`
	Source     string   `json:"source,omitempty"`
	// Server is the --server flag (NAME=COMMAND... or NAME=URL) that gave
	// the tool's MCP server, "" when the tool is not of a server a flag gave.
	Server string `json:"server,omitempty"`
	// ToolDirs are the tools files and directories loaded (--tools-dir),
	// absolute, nil for none; Demo says the demo shop ran (--demo).
	ToolDirs []string `json:"tool_dirs,omitempty"`
	Demo     bool     `json:"demo,omitempty"`
	// IdempotencyKey is the key the call was made with, "" for none: a
	// call made again from the history carries it, so that a tool that
	// takes keys replays the outcome instead of running twice.
	IdempotencyKey string `json:"idempotency_key,omitempty"`
	// Env is the environment of variables whose values filled the
	// {{name}} references of Args, "" for none: Args keep the references,
	// never the values.
	Env string `json:"env,omitempty"`
	// Result is the call's whole result. Its Output is dropped when larger
	// than MaxOutputBytes; OutputOmitted then says how large it was.
	Result        *tooling.Result `json:"result"`
	OutputOmitted int             `json:"output_omitted,omitempty"`
}

// What made a call (Entry.Via).
const (
	ViaConsole = "console"
	ViaRun     = "run"
)

// MaxOutputBytes bounds the output kept with an entry.
const MaxOutputBytes = 1 << 20

// DefaultMaxBytes is the default bound of a store's file.
const DefaultMaxBytes = 32 << 20

// FileEnv names the history file, overriding the default place. "off"
// keeps no history.
const FileEnv = "TOOLEXPLORER_HISTORY"

// DefaultPath is where the history lives: the file $TOOLEXPLORER_HISTORY
// names, else toolexplorer/history.jsonl under $XDG_STATE_HOME, else
// under ~/.local/state. It returns "" when the history is off.
func DefaultPath(getenv func(string) string) (string, error) {
	if p := getenv(FileEnv); p != "" {
		if p == "off" {
			return "", nil
		}
		return p, nil
	}
	dir := getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			var err error
			if home, err = os.UserHomeDir(); err != nil {
				return "", fmt.Errorf("history: no state directory: set XDG_STATE_HOME, HOME or $%s", FileEnv)
			}
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "toolexplorer", "history.jsonl"), nil
}

// Store is a history file. Its methods may be called from several
// goroutines and several processes at once.
type Store struct {
	path string
	// MaxBytes bounds the file: past it, the oldest entries are dropped
	// until it is half as large. Zero: DefaultMaxBytes.
	MaxBytes int64
}

// Open returns the store in the file at path; the file and its directory
// are created on the first Append.
func Open(path string) *Store { return &Store{path: path} }

// Path is the store's file.
func (s *Store) Path() string { return s.path }

func (s *Store) maxBytes() int64 {
	if s.MaxBytes > 0 {
		return s.MaxBytes
	}
	return DefaultMaxBytes
}

// Append adds e at the end of the store in one write, then trims the
// oldest entries if the file has grown past its bound.
func (s *Store) Append(e Entry) error {
	line, err := encodeEntry(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	size, err := s.appendLine(line)
	if err != nil {
		return err
	}
	if size > s.maxBytes() {
		return s.trim()
	}
	return nil
}

// encodeEntry is e as one line of JSON, its output dropped when too large.
func encodeEntry(e Entry) ([]byte, error) {
	if e.Result != nil && len(e.Result.Output) > MaxOutputBytes {
		res := *e.Result
		e.OutputOmitted = len(res.Output)
		res.Output = nil
		e.Result = &res
	}
	if len(bytes.TrimSpace(e.Args)) == 0 {
		e.Args = json.RawMessage(`{}`)
	}
	b, err := jsonenc.Marshal(e)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	// jsonenc.MarshalIndent may end it with a newline: exactly one.
	return append(bytes.TrimRight(b, "\n"), '\n'), nil
}

// appendLine writes line at the end of the file in one write, under the
// shared lock (a trim takes it exclusively), and returns the file's size.
func (s *Store) appendLine(line []byte) (int64, error) {
	unlock, err := lockFile(s.path+".lock", false)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	defer unlock()
	f, err := openNoFollow(s.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	if err := private(f); err != nil {
		return 0, err
	}
	if _, err := f.Write(line); err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return fi.Size(), nil
}

// errSymlink is why a history file that is a symbolic link is refused: the
// calls it keeps would go wherever the link points.
var errSymlink = errors.New("is a symbolic link, which the history does not follow: remove it, or name a regular file in $" + FileEnv)

// private makes sure the history file f is the user's alone: a regular
// file, readable and writable by its owner only. A file made readable by
// others before (mode 0644) is tightened to 0600; one that cannot be is
// refused, and nothing is written to it.
func private(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("history: %s is not a regular file", f.Name())
	}
	if fi.Mode().Perm()&0o077 == 0 {
		return nil
	}
	if err := f.Chmod(fi.Mode().Perm() &^ 0o077); err != nil {
		return fmt.Errorf("history: %s is readable by other users (mode %#o) and cannot be made private: %w", f.Name(), fi.Mode().Perm(), err)
	}
	return nil
}

// trim keeps the newest whole lines that fit in half the bound, written to
// a new file renamed over the old one, under the exclusive lock: no
// append is lost to it.
func (s *Store) trim() error {
	unlock, err := lockFile(s.path+".lock", true)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer unlock()
	f, err := openNoFollow(s.path, os.O_RDONLY)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if fi.Size() <= s.maxBytes() { // another process trimmed it
		return nil
	}
	keep := s.maxBytes() / 2
	from := max(fi.Size()-keep, 0)
	buf := make([]byte, fi.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("history: %w", err)
	}
	if from > 0 { // start at a whole line
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			buf = nil
		} else {
			buf = buf[i+1:]
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".history-*.tmp")
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if _, err := tmp.Write(buf); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("history: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("history: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// Newest opens the store for reading, the call started last first. A store whose
// file does not exist yet reads as empty.
func (s *Store) Newest() (*Reader, error) {
	f, err := openNoFollow(s.path, os.O_RDONLY)
	if errors.Is(err, os.ErrNotExist) {
		return &Reader{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("history: %w", err)
	}
	r := &Reader{f: f, pos: fi.Size()}
	if fi.Size() > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
			f.Close()
			return nil, fmt.Errorf("history: %w", err)
		}
		r.torn = last[0] != '\n'
	}
	return r, nil
}

// readChunk is how much a Reader reads from the file at a time.
const readChunk = 64 << 10

// Reader reads a store's entries newest start first, a chunk of the file
// at a time from its end. Lines that do not decode (a write cut short, a
// hand edit) are skipped and counted.
//
// An entry is appended when its call ends, so the file is in the order
// the calls ended. The Reader holds back the entries read until no older
// line can hold a call that started later: every older line was written
// before the earliest end read so far (give or take orderSlack).
type Reader struct {
	f    *os.File
	pos  int64  // the file's bytes before pos are not read yet
	buf  []byte // read, not yet returned: the first line may be partial
	torn bool   // the file does not end with a newline: its last line is cut short

	held     heldEntries // decoded, not yet returned: the latest start on top
	read     int         // lines decoded so far: the order among equal starts
	earliest time.Time   // the earliest end of the entries read so far
	eof      bool        // every line is read
	// Skipped counts the lines skipped so far.
	Skipped int
}

// orderSlack is how long after a call's end its entry may be written:
// the console keeps a call in the background, a moment after it ends.
const orderSlack = time.Second

// Next returns the entry of the next earlier started call, or io.EOF
// after the last.
func (r *Reader) Next() (Entry, error) {
	for {
		if len(r.held.es) > 0 && (r.eof || !r.held.es[0].Time.Before(r.earliest.Add(orderSlack))) {
			return heap.Pop(&r.held).(heldEntry).Entry, nil
		}
		if r.eof {
			return Entry{}, io.EOF
		}
		line, err := r.nextLine()
		if errors.Is(err, io.EOF) {
			r.eof = true
			continue
		}
		if err != nil {
			return Entry{}, err
		}
		var e Entry
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := json.Unmarshal(line, &e); err != nil || e.Tool == "" {
			r.Skipped++
			continue
		}
		if end := e.end(); r.earliest.IsZero() || end.Before(r.earliest) {
			r.earliest = end
		}
		heap.Push(&r.held, heldEntry{e, r.read})
		r.read++
	}
}

// heldEntries are the entries a Reader holds back, a heap whose top is
// the entry that started last (the first read among equals): picking one
// is logarithmic in the entries held, where a scan of them all made a
// burst of calls kept in the same second quadratic to read.
type heldEntries struct {
	es       []heldEntry
	compared int // comparisons made, which the tests count
}

type heldEntry struct {
	Entry
	read int
}

func (h *heldEntries) Len() int { return len(h.es) }
func (h *heldEntries) Less(i, j int) bool {
	h.compared++
	a, b := &h.es[i], &h.es[j]
	if !a.Time.Equal(b.Time) {
		return a.Time.After(b.Time)
	}
	return a.read < b.read
}
func (h *heldEntries) Swap(i, j int) { h.es[i], h.es[j] = h.es[j], h.es[i] }
func (h *heldEntries) Push(x any)    { h.es = append(h.es, x.(heldEntry)) }
func (h *heldEntries) Pop() any {
	n := len(h.es) - 1
	e := h.es[n]
	h.es[n] = heldEntry{}
	h.es = h.es[:n]
	return e
}

// end is when e's call ended, as well as the entry tells.
func (e *Entry) end() time.Time {
	end := e.Time
	if res := e.Result; res != nil && !res.Started.IsZero() {
		if t := res.Started.Add(res.Wait + res.Run); t.After(end) {
			end = t
		}
	}
	return end
}

// nextLine returns the last line not yet returned, without its newline.
func (r *Reader) nextLine() ([]byte, error) {
	if r.f == nil {
		return nil, io.EOF
	}
	for {
		if r.torn {
			// The file's last line has no newline: a write was cut short
			// (or is being made). It is not an entry.
			if i := bytes.LastIndexByte(r.buf, '\n'); i >= 0 || r.pos == 0 {
				r.buf = r.buf[:i+1]
				r.torn = false
				r.Skipped++
				continue
			}
		} else if len(r.buf) > 0 {
			body := r.buf[:len(r.buf)-1] // every line in buf ends with a newline
			if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
				r.buf = body[:i+1]
				return body[i+1:], nil
			}
			if r.pos == 0 {
				r.buf = nil
				return body, nil
			}
		}
		if r.pos == 0 {
			return nil, io.EOF
		}
		n := min(int64(readChunk), r.pos)
		chunk := make([]byte, n, n+int64(len(r.buf)))
		if _, err := r.f.ReadAt(chunk, r.pos-n); err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("history: %w", err)
		}
		r.pos -= n
		r.buf = append(chunk, r.buf...)
	}
}

// Close closes the file.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	return r.f.Close()
}

// Last returns the n entries (0: all) that keep accepts (nil: all) of the
// calls started last, the last started first.
func (s *Store) Last(n int, keep func(*Entry) bool) ([]Entry, error) {
	r, err := s.Newest()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Entry
	for n == 0 || len(out) < n {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if keep == nil || keep(&e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Export writes the entries that keep accepts (nil: all) to a new file at
// path, oldest first, one JSON object per line, and returns how many.
func Export(s *Store, path string, keep func(*Entry) bool) (int, error) {
	entries, err := s.Last(0, keep)
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, fmt.Errorf("history: export: %w", err)
	}
	w := bufio.NewWriter(f)
	for i := len(entries) - 1; i >= 0; i-- {
		line, err := encodeEntry(entries[i])
		if err == nil {
			_, err = w.Write(line)
		}
		if err != nil {
			f.Close()
			return 0, fmt.Errorf("history: export: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, fmt.Errorf("history: export: %w", err)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("history: export: %w", err)
	}
	return len(entries), nil
}
