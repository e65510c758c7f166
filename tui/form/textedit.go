package form

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// textEdit edits text of several lines: the raw JSON of the arguments and
// the text editor of a string field. It soft-wraps long lines and draws
// only the rows it shows, so that a key costs about the same on 100 KB of
// text as on one line. (The textarea of bubbles draws every line of the
// text on every key: 100 ms a key at 100 KB.)
type textEdit struct {
	lines    [][]rune
	row, col int // the cursor: a line, and a rune of it (col may be len(line))
	// The first row shown: a line, and a row of its wrapped rows.
	top, topSeg   int
	width, height int
	numbers       bool   // line numbers in a gutter
	prompt        string // before each row when there are no line numbers
	focused       bool
	st            *textarea.Styles
	wantX         int     // the column up and down keep to, -1 for the cursor's own
	value         *string // the text, when known since the last edit
}

func newTextEdit(st *textarea.Styles, numbers bool, prompt string) *textEdit {
	return &textEdit{lines: [][]rune{nil}, width: 40, height: 3, numbers: numbers, prompt: prompt, st: st, wantX: -1}
}

// SetValue replaces the text; the cursor goes to its end.
func (e *textEdit) SetValue(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	parts := strings.Split(s, "\n")
	e.lines = make([][]rune, len(parts))
	for i, p := range parts {
		e.lines[i] = []rune(p)
	}
	e.row = len(e.lines) - 1
	e.col = len(e.lines[e.row])
	e.top, e.topSeg, e.wantX, e.value = 0, 0, -1, nil
	e.scroll()
}

// Value is the text.
func (e *textEdit) Value() string {
	if e.value != nil {
		return *e.value
	}
	n := len(e.lines)
	for _, l := range e.lines {
		n += len(l)
	}
	b := make([]byte, 0, n)
	for i, l := range e.lines {
		if i > 0 {
			b = append(b, '\n')
		}
		for _, r := range l {
			b = utf8.AppendRune(b, r)
		}
	}
	s := string(b)
	e.value = &s
	return s
}

// LineCount is the number of lines of the text.
func (e *textEdit) LineCount() int { return len(e.lines) }

// MoveToBegin puts the cursor at the start of the text.
func (e *textEdit) MoveToBegin() {
	e.row, e.col, e.top, e.topSeg, e.wantX = 0, 0, 0, 0, -1
}

func (e *textEdit) Focus() tea.Cmd { e.focused = true; return nil }
func (e *textEdit) Blur()          { e.focused = false }
func (e *textEdit) Height() int    { return e.height }

func (e *textEdit) SetWidth(w int) { e.width = max(w, 8); e.scroll() }

func (e *textEdit) SetHeight(h int) { e.height = max(h, 1); e.scroll() }

// gutter is the width before the text on each row.
func (e *textEdit) gutter() int {
	if e.numbers {
		return e.digits() + 2
	}
	return ansi.StringWidth(e.prompt)
}

func (e *textEdit) digits() int { return max(2, len(strconv.Itoa(len(e.lines)))) }

// wrapWidth is how many cells of text a row holds; one more is kept for
// the cursor after the last character.
func (e *textEdit) wrapWidth() int { return max(e.width-e.gutter()-1, 4) }

// runeWidth is the cells r takes.
func runeWidth(r rune) int {
	if r >= 0x20 && r < 0x300 {
		return 1
	}
	if r == '\t' {
		return 1 // drawn as a space
	}
	return ansi.StringWidth(string(r))
}

// segs are the starts of the rows line l wraps into at width w.
func segs(l []rune, w int) []int {
	out := []int{0}
	x := 0
	for i, r := range l {
		rw := runeWidth(r)
		if x+rw > w && x > 0 {
			out = append(out, i)
			x = 0
		}
		x += rw
	}
	return out
}

// segOf is the row of line row's wrapped rows the rune col is on.
func segOf(starts []int, col int) int {
	s := 0
	for i, st := range starts {
		if st <= col {
			s = i
		}
	}
	return s
}

// scroll moves the first row shown so that the cursor's row is shown.
func (e *textEdit) scroll() {
	w := e.wrapWidth()
	cs := segOf(segs(e.lines[e.row], w), e.col)
	e.top = min(e.top, len(e.lines)-1)
	if e.row < e.top || e.row == e.top && cs < e.topSeg {
		e.top, e.topSeg = e.row, cs
		return
	}
	// Walk back from the cursor's row height-1 rows: the first row shown
	// may not be later than that.
	r, s := e.row, cs
	for n := 1; n < e.height; n++ {
		if r == e.top && s == e.topSeg {
			return // the cursor is within height rows of the top
		}
		if s > 0 {
			s--
			continue
		}
		if r == 0 {
			break
		}
		r--
		s = len(segs(e.lines[r], w)) - 1
	}
	if r > e.top || r == e.top && s > e.topSeg {
		e.top, e.topSeg = r, s
	}
}

// Update edits the text with a key or a paste. It reports whether the
// message was used.
func (e *textEdit) Update(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case tea.PasteMsg:
		e.value = nil
		e.insert(msg.Content)
	case tea.KeyPressMsg:
		e.value = nil // moves keep the text, but a key is cheap to redo
		if !e.key(msg) {
			return false
		}
	default:
		return false
	}
	e.scroll()
	return true
}

func (e *textEdit) key(k tea.KeyPressMsg) bool {
	keepX := false
	switch k.String() {
	case "enter", "ctrl+m", "ctrl+j", "shift+enter", "alt+enter":
		e.insert("\n")
	case "backspace", "ctrl+h":
		e.deleteBack()
	case "delete", "ctrl+d":
		e.deleteForward()
	case "left", "ctrl+b":
		e.left()
	case "right", "ctrl+f":
		e.right()
	case "up", "ctrl+p":
		e.vertical(-1)
		keepX = true
	case "down", "ctrl+n":
		e.vertical(1)
		keepX = true
	case "pgup":
		for range max(e.height-1, 1) {
			e.vertical(-1)
		}
		keepX = true
	case "pgdown":
		for range max(e.height-1, 1) {
			e.vertical(1)
		}
		keepX = true
	case "home", "ctrl+a":
		e.col = 0
	case "end", "ctrl+e":
		e.col = len(e.lines[e.row])
	case "ctrl+home", "alt+<":
		e.row, e.col = 0, 0
	case "ctrl+end", "alt+>":
		e.row = len(e.lines) - 1
		e.col = len(e.lines[e.row])
	case "alt+left", "ctrl+left", "alt+b":
		e.wordLeft()
	case "alt+right", "ctrl+right", "alt+f":
		e.wordRight()
	case "ctrl+k":
		l := e.lines[e.row]
		if e.col == len(l) {
			e.deleteForward()
		} else {
			e.lines[e.row] = l[:e.col]
		}
	case "ctrl+u":
		e.lines[e.row] = e.lines[e.row][e.col:]
		e.col = 0
	case "ctrl+w", "alt+backspace":
		end := e.col
		e.wordLeft()
		if e.row < len(e.lines) && end > e.col {
			l := e.lines[e.row]
			e.lines[e.row] = append(l[:e.col:e.col], l[end:]...)
		}
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt) != 0 {
			return false
		}
		e.insert(k.Text)
	}
	if !keepX {
		e.wantX = -1
	}
	return true
}

// insert puts s at the cursor, which goes after it.
func (e *textEdit) insert(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	l := e.lines[e.row]
	head, tail := l[:e.col:e.col], append([]rune(nil), l[e.col:]...)
	parts := strings.Split(s, "\n")
	if len(parts) == 1 {
		rs := []rune(s)
		e.lines[e.row] = append(append(head, rs...), tail...)
		e.col += len(rs)
		return
	}
	added := make([][]rune, len(parts))
	added[0] = append(head, []rune(parts[0])...)
	for i := 1; i < len(parts); i++ {
		added[i] = []rune(parts[i])
	}
	last := len(parts) - 1
	e.col = len(added[last])
	added[last] = append(added[last], tail...)
	lines := make([][]rune, 0, len(e.lines)+last)
	lines = append(lines, e.lines[:e.row]...)
	lines = append(lines, added...)
	lines = append(lines, e.lines[e.row+1:]...)
	e.lines = lines
	e.row += last
}

func (e *textEdit) deleteBack() {
	switch {
	case e.col > 0:
		l := e.lines[e.row]
		e.lines[e.row] = append(l[:e.col-1:e.col-1], l[e.col:]...)
		e.col--
	case e.row > 0:
		prev := e.lines[e.row-1]
		e.col = len(prev)
		e.lines[e.row-1] = append(prev[:len(prev):len(prev)], e.lines[e.row]...)
		e.lines = append(e.lines[:e.row], e.lines[e.row+1:]...)
		e.row--
	}
}

func (e *textEdit) deleteForward() {
	l := e.lines[e.row]
	switch {
	case e.col < len(l):
		e.lines[e.row] = append(l[:e.col:e.col], l[e.col+1:]...)
	case e.row < len(e.lines)-1:
		e.lines[e.row] = append(l[:len(l):len(l)], e.lines[e.row+1]...)
		e.lines = append(e.lines[:e.row+1], e.lines[e.row+2:]...)
	}
}

func (e *textEdit) left() {
	switch {
	case e.col > 0:
		e.col--
	case e.row > 0:
		e.row--
		e.col = len(e.lines[e.row])
	}
}

func (e *textEdit) right() {
	switch {
	case e.col < len(e.lines[e.row]):
		e.col++
	case e.row < len(e.lines)-1:
		e.row++
		e.col = 0
	}
}

func isWordRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf
}

func (e *textEdit) wordLeft() {
	if e.col == 0 {
		e.left()
		return
	}
	l := e.lines[e.row]
	for e.col > 0 && !isWordRune(l[e.col-1]) {
		e.col--
	}
	for e.col > 0 && isWordRune(l[e.col-1]) {
		e.col--
	}
}

func (e *textEdit) wordRight() {
	l := e.lines[e.row]
	if e.col == len(l) {
		e.right()
		return
	}
	for e.col < len(l) && !isWordRune(l[e.col]) {
		e.col++
	}
	for e.col < len(l) && isWordRune(l[e.col]) {
		e.col++
	}
}

// x is the column of rune col on its wrapped row.
func (e *textEdit) x(starts []int, col int) int {
	l := e.lines[e.row]
	x := 0
	for _, r := range l[starts[segOf(starts, col)]:col] {
		x += runeWidth(r)
	}
	return x
}

// vertical moves the cursor a wrapped row up (-1) or down (1), keeping
// its column.
func (e *textEdit) vertical(d int) {
	w := e.wrapWidth()
	starts := segs(e.lines[e.row], w)
	if e.wantX < 0 {
		e.wantX = e.x(starts, e.col)
	}
	s := segOf(starts, e.col) + d
	switch {
	case s < 0:
		if e.row == 0 {
			e.col = 0
			return
		}
		e.row--
		starts = segs(e.lines[e.row], w)
		s = len(starts) - 1
	case s >= len(starts):
		if e.row == len(e.lines)-1 {
			e.col = len(e.lines[e.row])
			return
		}
		e.row++
		starts = segs(e.lines[e.row], w)
		s = 0
	}
	l := e.lines[e.row]
	end := len(l)
	if s+1 < len(starts) {
		end = starts[s+1] - 1 // the last rune of a wrapped row: the next starts after it
	}
	col, x := starts[s], 0
	for col < end && x+runeWidth(l[col]) <= e.wantX {
		x += runeWidth(l[col])
		col++
	}
	e.col = col
}

// View draws the rows shown, the cursor's in reverse video when focused.
func (e *textEdit) View() string {
	state := e.st.Blurred
	if e.focused {
		state = e.st.Focused
	}
	w := e.wrapWidth()
	cursor := lipgloss.NewStyle().Reverse(true)
	digits := e.digits()
	out := make([]string, 0, e.height)
	r, s := e.top, e.topSeg
	for len(out) < e.height && r < len(e.lines) {
		l := e.lines[r]
		starts := segs(l, w)
		for ; s < len(starts) && len(out) < e.height; s++ {
			var b strings.Builder
			switch {
			case e.numbers && s == 0:
				num := strconv.Itoa(r + 1)
				st := state.LineNumber
				if r == e.row {
					st = state.CursorLineNumber
				}
				b.WriteString(st.Render(" " + strings.Repeat(" ", digits-len(num)) + num + " "))
			case e.numbers:
				b.WriteString(strings.Repeat(" ", digits+2))
			default:
				b.WriteString(state.Prompt.Render(e.prompt))
			}
			end := len(l)
			if s+1 < len(starts) {
				end = starts[s+1]
			}
			seg := l[starts[s]:end]
			if e.focused && r == e.row && e.col >= starts[s] && (e.col < end || e.col == end && s == len(starts)-1) {
				at := e.col - starts[s]
				under := " "
				if at < len(seg) {
					under = textOf(seg[at : at+1])
				}
				b.WriteString(state.Text.Render(textOf(seg[:at])))
				b.WriteString(cursor.Render(under))
				if at+1 < len(seg) {
					b.WriteString(state.Text.Render(textOf(seg[at+1:])))
				}
			} else {
				b.WriteString(state.Text.Render(textOf(seg)))
			}
			out = append(out, e.pad(b.String()))
		}
		r, s = r+1, 0
	}
	for len(out) < e.height {
		if e.numbers {
			out = append(out, e.pad(""))
		} else {
			out = append(out, e.pad(state.Prompt.Render(e.prompt)))
		}
	}
	return strings.Join(out, "\n")
}

// pad fills a row to the editor's width.
func (e *textEdit) pad(row string) string {
	if w := ansi.StringWidth(row); w < e.width {
		return row + strings.Repeat(" ", e.width-w)
	}
	return row
}

// textOf is runes as text to draw: a tab as a space, other control
// characters as a middle dot.
func textOf(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			b.WriteRune('·')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
