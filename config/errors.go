package config

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/internal/textdist"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
)

// Error is one problem with a config file or a Config.
type Error struct {
	Source  string // the file, "" when the Config was built in Go
	Path    string // JSON pointer of the key or value at fault, "" for the whole file
	Message string
	// Line and Column locate Path in the file, both 1-based (the column
	// counts characters); 0 when unknown, as for Validate.
	Line, Column int
	// Err is the underlying error, such as the one of reading the file
	// (errors.Is(err, fs.ErrNotExist) works through it); nil for problems
	// of content.
	Err error
}

// Error returns "config: FILE: PATH: MESSAGE", leaving out an empty FILE or
// PATH.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	if e.Source != "" {
		b.WriteString(e.Source)
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Errors is every problem found at once, in the order of the file. Load,
// Parse and Validate return one, never empty, as their error;
// errors.As(err, &e) with e an *Error gives the first problem.
type Errors []*Error

// Error lists the problems, one a line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the problems, for errors.Is and errors.As.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// problems collects the Errors of one Parse or Validate.
type problems struct {
	source string
	doc    *document // nil for Validate: no positions
	list   []*Error
	offset map[*Error]int
}

// add records a problem with the value at path.
func (p *problems) add(path, format string, args ...any) {
	p.addAt(path, false, fmt.Sprintf(format, args...))
}

// addKey records a problem with the key that names the value at path.
func (p *problems) addKey(path, format string, args ...any) {
	p.addAt(path, true, fmt.Sprintf(format, args...))
}

func (p *problems) addAt(path string, key bool, msg string) {
	e := &Error{Source: p.source, Path: path, Message: msg}
	off := -1
	if p.doc != nil {
		off = p.doc.offset(path, key)
		if off >= 0 {
			e.Line, e.Column = p.doc.lineColumn(off)
		}
	}
	if p.offset == nil {
		p.offset = map[*Error]int{}
	}
	p.offset[e] = off
	p.list = append(p.list, e)
}

// has reports whether a problem was already recorded at path.
func (p *problems) has(path string) bool {
	for _, e := range p.list {
		if e.Path == path {
			return true
		}
	}
	return false
}

// err returns the problems, or nil: in the order of the file (then by
// path) when there is one, else in the order found.
func (p *problems) err() error {
	if len(p.list) == 0 {
		return nil
	}
	list := Errors(p.list)
	if p.doc == nil {
		return list
	}
	sort.SliceStable(list, func(i, j int) bool {
		oi, oj := p.offset[list[i]], p.offset[list[j]]
		if oi != oj {
			if oi < 0 || oj < 0 {
				return oj < 0
			}
			return oi < oj
		}
		return list[i].Path < list[j].Path
	})
	return list
}

// durationMessage explains a string that is not a positive duration.
func durationMessage(s string) string {
	return fmt.Sprintf("%q is not a duration (use e.g. \"500ms\", \"30s\", \"2m\")", s)
}

// nameMessage explains a string that is not a tool name.
func nameMessage(s string) string {
	if ValidPattern(s) {
		return fmt.Sprintf("%q is a pattern, not a tool name: tools are keyed by exact name, like \"demo.echo\"", s)
	}
	if toolname.Segment(s) {
		return fmt.Sprintf("%q is not a tool name: names are \"group.name\", like \"%s.echo\"", s, s)
	}
	return fmt.Sprintf("%q is not a tool name: names are lower snake case segments joined by dots, like \"demo.echo\" or \"fs.read_file\"", s)
}

// patternMessage explains a string that is not a tool name or pattern.
func patternMessage(s string) string {
	if toolname.Segment(s) {
		return fmt.Sprintf("%q is not a tool name or pattern: names are \"group.name\"; for every tool of group %s write \"%s.*\"", s, s, s)
	}
	return fmt.Sprintf("%q is not a tool name or pattern (use e.g. \"demo.echo\", \"demo.*\", \"*\")", s)
}

// unknownKeyMessage explains an unknown key, suggesting the closest known one.
func unknownKeyMessage(key string, known []string) string {
	if s := suggest(key, known); s != "" {
		return fmt.Sprintf("unknown key (did you mean %q?)", s)
	}
	if len(known) == 0 {
		return "unknown key"
	}
	return "unknown key (known keys: " + strings.Join(known, ", ") + ")"
}

// suggest returns the known key that key most likely misspells, or "".
func suggest(key string, known []string) string {
	norm := toolname.Snake(key)
	for _, k := range known {
		if k == norm {
			return k
		}
	}
	return textdist.Nearest(norm, known, max(1, min(3, utf8.RuneCountInString(norm)/3)))
}
