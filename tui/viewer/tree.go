package viewer

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/clipperhouse/displaywidth"

	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// The output viewer shows a call's output as a tree of JSON lines that
// fold, with string values readable as text, search and copy. The output
// is parsed once into a flat slice of lines (vline); folding, the text
// view and search only recompute the rows shown (vrow), and a frame
// renders the rows on screen, so a key costs the same on a 1 MiB output
// as on a small one.

// vkind is what a line of the output holds.
type vkind uint8

const (
	vScalar vkind = iota // a number, true, false or null
	vString              // a string
	vOpen                // { or [: the line folds
	vClose               // } or ]
)

// vline is one line of the output as indented JSON.
type vline struct {
	kind   vkind
	comma  bool   // a comma follows the value
	array  bool   // vOpen, vClose: an array, not an object
	depth  int32  // indentation level
	parent int32  // the vOpen line of the enclosing value, -1 at the top
	end    int32  // vOpen: the matching vClose line; vClose: the vOpen line; otherwise the line itself
	count  int32  // vOpen: its keys or items
	nl     int32  // vString: its lines as text (1 for a one-line string)
	runes  int32  // vString of one line: its characters
	key    string // `"name": ` in an object, "" otherwise
	val    string // the JSON text of a scalar or string, the bracket of vOpen and vClose
	str    string // vString: the decoded value, terminal escapes removed
	path   string // the JSON pointer of the value
	start  int32  // the value's bytes in the output: [start, stop)
	stop   int32
	mark   string // why the value fails the output schema, if it does
}

// vrow is one row on screen: a line of the output, or for a string of
// several lines shown as text its sub-th text line (from 1), the wrap-th
// piece of it as wide as the screen; or a line of the text around the
// output (part head or tail, line its index).
type vrow struct {
	part uint8
	line int32
	sub  int32
	wrap int32
}

const (
	partHead uint8 = iota
	partJSON
	partTail
)

// outputTree is the parsed output: its lines and the raw bytes.
type outputTree struct {
	raw   []byte
	lines []vline
	text  map[int32][]string  // strings split into lines, as they are drawn
	wraps map[wrapKey]*pieces // text lines cut to a width, as they are drawn
}

// wrapKey is text line sub (from 1) of string line, cut to width w.
type wrapKey struct {
	line, sub int32
	w         int
}

// pieces is a text line cut into rows of a width: an ASCII line by
// arithmetic, any other by the byte offsets where its rows start, found
// once, so that drawing a row of a 1 MB line costs what a short one does.
type pieces struct {
	ascii  bool
	n      int     // rows
	starts []int32 // not ASCII: where each row starts
}

// wrapped is text line sub (from 1) of string line i cut to width w.
func (t *outputTree) wrapped(i, sub int32, w int) *pieces {
	k := wrapKey{i, sub, w}
	if p, ok := t.wraps[k]; ok {
		return p
	}
	s := t.textLines(i)[sub-1]
	p := &pieces{ascii: isASCII(s)}
	if p.ascii {
		p.n = max((len(s)+w-1)/w, 1)
	} else {
		p.starts = []int32{0}
		col, off := 0, 0
		for g := displaywidth.StringGraphemes(s); g.Next(); {
			gw := g.Width()
			if col+gw > w && col > 0 {
				p.starts = append(p.starts, int32(off))
				col = 0
			}
			col += gw
			off += len(g.Value())
		}
		p.n = len(p.starts)
	}
	if t.wraps == nil {
		t.wraps = make(map[wrapKey]*pieces)
	}
	t.wraps[k] = p
	return p
}

// matchRows adds to rows the rows of text line s (row r, its first)
// where q, lower case, starts, once each.
func (p *pieces) matchRows(rows []vrow, r vrow, s, q string, w int) []vrow {
	lower := strings.ToLower(s)
	if p.n == 1 || len(lower) != len(s) { // one row, or case folding moved the bytes
		return append(rows, r)
	}
	last := int32(-1)
	for off := 0; ; {
		j := strings.Index(lower[off:], q)
		if j < 0 || q == "" {
			return rows
		}
		pos := off + j
		var row int32
		if p.ascii {
			row = int32(pos / w)
		} else {
			row = int32(sort.Search(len(p.starts), func(k int) bool { return int(p.starts[k]) > pos }) - 1)
		}
		if row != last {
			r.wrap, last = row, row
			rows = append(rows, r)
		}
		off = pos + len(q)
	}
}

// piece is row wrap of text line s (as cut by p to width w).
func (p *pieces) piece(s string, w, wrap int) string {
	if p.ascii {
		lo := min(wrap*w, len(s))
		return s[lo:min(lo+w, len(s))]
	}
	if wrap >= len(p.starts) {
		return ""
	}
	end := len(s)
	if wrap+1 < len(p.starts) {
		end = int(p.starts[wrap+1])
	}
	return s[p.starts[wrap]:end]
}

// errNotJSON says the output is not one JSON value.
var errNotJSON = errors.New("not a JSON value")

// parseOutput flattens raw into lines, marking the paths of fields (the
// output schema's complaints).
func parseOutput(raw []byte, fields []tooling.FieldError) (*outputTree, error) {
	t := &outputTree{raw: raw, text: make(map[int32][]string)}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := t.value(dec, 0, -1, "", ""); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errNotJSON
	}
	if len(fields) > 0 {
		marks := make(map[string]string, len(fields))
		for _, f := range fields {
			if m, ok := marks[f.Path]; ok {
				marks[f.Path] = m + "; " + f.Message
			} else {
				marks[f.Path] = f.Message
			}
		}
		for i := range t.lines {
			if l := &t.lines[i]; l.kind != vClose {
				l.mark = marks[l.path]
			}
		}
	}
	return t, nil
}

// value reads one value from dec into lines.
func (t *outputTree) value(dec *json.Decoder, depth, parent int32, key, path string) error {
	start := int32(dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return errNotJSON
	}
	idx := int32(len(t.lines))
	l := vline{depth: depth, parent: parent, end: idx, key: key, path: path, start: start}
	switch v := tok.(type) {
	case json.Delim:
		if v != '{' && v != '[' {
			return errNotJSON
		}
		l.kind, l.array, l.val = vOpen, v == '[', string(v)
		t.lines = append(t.lines, l)
		var n int32
		last := int32(-1)
		for dec.More() {
			childKey, childPath := "", path+"/"+strconv.Itoa(int(n))
			if v == '{' {
				k, err := dec.Token()
				if err != nil {
					return errNotJSON
				}
				name, _ := k.(string)
				childKey = quoteJSON(name) + ": "
				childPath = path + "/" + pointerToken(name)
			}
			if last >= 0 {
				t.lines[t.lines[last].end].comma = true
			}
			last = int32(len(t.lines))
			if err := t.value(dec, depth+1, idx, childKey, childPath); err != nil {
				return err
			}
			n++
		}
		if _, err := dec.Token(); err != nil { // the closing bracket
			return errNotJSON
		}
		closing := "}"
		if v == '[' {
			closing = "]"
		}
		end := int32(len(t.lines))
		t.lines = append(t.lines, vline{kind: vClose, array: v == '[', depth: depth, parent: parent, end: idx, val: closing, path: path})
		o := &t.lines[idx]
		o.end, o.count, o.stop = end, n, int32(dec.InputOffset())
		return nil
	case string:
		l.kind, l.val = vString, quoteJSON(prefix(v, maxQuoted))
		l.str = textOf(v)
		l.nl = int32(strings.Count(l.str, "\n") + 1)
		if l.nl == 1 {
			l.runes = int32(utf8.RuneCountInString(l.str))
		}
	case json.Number:
		l.kind, l.val = vScalar, v.String()
	case bool:
		l.kind, l.val = vScalar, strconv.FormatBool(v)
	case nil:
		l.kind, l.val = vScalar, "null"
	}
	l.stop = int32(dec.InputOffset())
	t.lines = append(t.lines, l)
	return nil
}

// maxQuoted is how much of a string its JSON text keeps: a row shows
// less, and search reads the whole string's text.
const maxQuoted = 16 << 10

// prefix is s cut to at most n bytes, on a character's boundary.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// pointerToken is name as a token of a JSON pointer.
func pointerToken(name string) string {
	if strings.ContainsAny(name, "~/") {
		return pointerEscaper.Replace(name)
	}
	return name
}

var (
	pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")
	textCleaner    = strings.NewReplacer("\r\n", "\n", "\t", "    ")
)

// quoteJSON is s as a JSON string, safe to print: control characters
// stay escaped.
func quoteJSON(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
	}
	if plain {
		return `"` + s + `"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return termtext.String(strings.TrimSuffix(b.String(), "\n"))
}

// textOf is a string value as text to read: terminal escape sequences
// removed, tabs as spaces, CR LF as LF, and any control character left
// shown as an escape.
func textOf(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 || strings.Contains(s, "\u009b") {
		s = ansi.Strip(s)
	}
	// The replacer copies its input twice and looks each byte up, matches
	// or not: a 1 MB string without a tab or a CR LF is left alone.
	if strings.Contains(s, "\r\n") || strings.IndexByte(s, '\t') >= 0 {
		s = textCleaner.Replace(s)
	}
	return termtext.String(s)
}

// textLines is string line i split into its lines, kept for the next
// frame.
func (t *outputTree) textLines(i int32) []string {
	if s, ok := t.text[i]; ok {
		return s
	}
	s := strings.Split(t.lines[i].str, "\n")
	t.text[i] = s
	return s
}

// rawValue is the bytes of line i's value.
func (t *outputTree) rawValue(i int32) []byte {
	l := &t.lines[i]
	return bytes.TrimLeft(t.raw[l.start:l.stop], " \t\r\n,:")
}

// copyText is what y copies of line i: a string as its text, any other
// value as indented JSON.
func (t *outputTree) copyText(i int32) string {
	if t.lines[i].kind == vClose {
		i = t.lines[i].end
	}
	l := &t.lines[i]
	if l.kind == vString {
		return l.str
	}
	return Pretty(t.rawValue(i))
}

// ancestors calls f with each vOpen line enclosing line i.
func (t *outputTree) ancestors(i int32, f func(int32)) {
	for p := t.lines[i].parent; p >= 0; p = t.lines[p].parent {
		f(p)
	}
}

// containsFold reports whether s contains q, which is lower case.
func containsFold(s, q string) bool {
	if q == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.Contains(strings.ToLower(s), q)
		}
	}
	// ASCII: no allocation.
	first, upper := q[0], q[0]
	if 'a' <= first && first <= 'z' {
		upper -= 'a' - 'A'
	}
outer:
	for i := 0; i+len(q) <= len(s); i++ {
		if c := s[i]; c != first && c != upper {
			continue
		}
		for j := 1; j < len(q); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != q[j] {
				continue outer
			}
		}
		return true
	}
	return false
}
