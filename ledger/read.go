package ledger

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Filter selects calls for Read; a zero field selects every call.
type Filter struct {
	Tool    string     // the tool's name
	Code    codes.Code // how the call ended; "ok" for the calls that succeeded, "interrupted" for those without an end
	Subject string     // the principal's subject; "anonymous" for calls without one
	Since   time.Time  // calls that began at or after it
}

// Entry is one call: its begin record and its end record.
type Entry struct {
	Begin Record
	End   *Record // nil when the call has no end
	// Status is the end's status ("ok", "denied", "error"), or for a call
	// without an end: "running" when the process that began it still runs
	// and has not closed the ledger, else "interrupted" (it was killed or
	// crashed in the call).
	Status string
}

// Read returns the calls in the ledger at path that f selects, in the
// order they began. It reads the rotated files too and checks no hash
// (Verify does).
func Read(path string, f Filter) ([]Entry, error) {
	segs, err := segments(path)
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(segs)+1)
	for _, s := range segs {
		files = append(files, s.path)
	}
	files = append(files, path)
	rd := reader{f: f, calls: map[callKey]int{}, sessions: map[string]*Record{}, closed: map[string]bool{}}
	for _, name := range files {
		if err := rd.file(name); err != nil {
			return nil, err
		}
	}
	host, _ := os.Hostname()
	out := make([]Entry, 0, len(rd.entries))
	for i := range rd.entries {
		p := &rd.entries[i]
		var e Entry
		if json.Unmarshal(p.begin, &e.Begin) != nil {
			continue // Verify reports it
		}
		if p.end != nil {
			e.End = new(Record)
			if json.Unmarshal(p.end, e.End) != nil {
				e.End = nil
			}
		}
		if e.End == nil {
			e.Status = "interrupted"
			if s := rd.sessions[e.Begin.Session]; s != nil && !rd.closed[e.Begin.Session] && s.Host == host && alive(s.PID) {
				e.Status = "running"
			}
		} else {
			e.Status = e.End.Status
		}
		if f.matches(&e) {
			out = append(out, e)
		}
	}
	return out, nil
}

// pair is a call's begin and end lines, decoded once selected.
type pair struct{ begin, end []byte }

type callKey struct{ session, call string }

type reader struct {
	f        Filter
	entries  []pair
	calls    map[callKey]int
	sessions map[string]*Record
	closed   map[string]bool
}

func (rd *reader) file(name string) error {
	fh, err := os.Open(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("ledger: %w", err)
	}
	defer fh.Close()
	br := bufio.NewReaderSize(fh, 256<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			var long []byte
			long = append(long, line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF {
			return nil // a torn last line is not a record
		}
		if err != nil {
			return fmt.Errorf("ledger: %w", err)
		}
		rd.add(line)
	}
}

// add takes one line. Begin and end lines are sorted by a scan of their
// first fields (kind, time, session, call, tool: written before any field
// a caller or tool chooses, so the first match is the record's own), and
// decoded only for the calls Read returns.
func (rd *reader) add(line []byte) {
	switch kind := field(line, "kind"); kind {
	case KindOpen, KindClose:
		var rec Record
		if json.Unmarshal(line, &rec) != nil {
			return
		}
		if kind == KindOpen {
			rd.sessions[rec.Session] = &rec
		} else {
			rd.closed[rec.Session] = true
		}
	case KindBegin:
		if rd.f.Tool != "" && field(line, "tool") != rd.f.Tool {
			return
		}
		if !rd.f.Since.IsZero() {
			if t, err := time.Parse(time.RFC3339Nano, field(line, "time")); err == nil && t.Before(rd.f.Since) {
				return
			}
		}
		k := callKey{field(line, "session"), field(line, "call")}
		rd.calls[k] = len(rd.entries)
		rd.entries = append(rd.entries, pair{begin: bytes.Clone(line)})
	case KindEnd:
		k := callKey{field(line, "session"), field(line, "call")}
		if i, ok := rd.calls[k]; ok {
			rd.entries[i].end = bytes.Clone(line)
			delete(rd.calls, k)
		}
	}
}

// field returns the string value of the first "key":"..." in line, "" when
// there is none. A value with an escape is returned as written.
func field(line []byte, key string) string {
	var pat [40]byte
	p := append(append(append(pat[:0], '"'), key...), `":"`...)
	i := bytes.Index(line, p)
	if i < 0 {
		return ""
	}
	rest := line[i+len(p):]
	j := bytes.IndexByte(rest, '"')
	for j > 0 && rest[j-1] == '\\' {
		k := bytes.IndexByte(rest[j+1:], '"')
		if k < 0 {
			return ""
		}
		j += k + 1
	}
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

func (f *Filter) matches(e *Entry) bool {
	if f.Subject != "" {
		subject := "anonymous"
		if p := e.Begin.Principal; p != nil && p.Subject != "" {
			subject = p.Subject
		}
		if subject != f.Subject {
			return false
		}
	}
	if f.Code != "" {
		code := codes.Code(e.Status)
		if e.End != nil {
			code = e.End.Code
			if code == codes.OK {
				code = "ok"
			}
		}
		if code != f.Code {
			return false
		}
	}
	return true
}
