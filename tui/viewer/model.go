package viewer

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// Model shows a result: text around the output (what went wrong, the
// plan, the governance decisions) and the output as a JSON tree with a
// cursor.
type Model struct {
	// Keys are the viewer's keys; the console rebinds them from its config.
	Keys Keys

	st *Styles

	tree       *outputTree // nil when there is no output
	head, tail []string    // the text before and after the output, wrapped
	folded     []bool      // per line of tree: a vOpen line is folded
	plain      bool        // strings shown as text
	strings    bool        // the output holds strings
	rows       []vrow
	cursor     int // index into rows
	offset     int // first row on screen
	w, h       int

	search    textinput.Model
	searching bool   // the search line has the focus
	query     string // lower case, "" for none
	matches   []vrow // rows matching query, in order (across folds)
	// found keeps the matches of the last search in each view (JSON, text),
	// so that t back and forth does not search again.
	found [2]foundMatches

	tab     *table // the array of objects shown as a table; nil: the tree
	jq      jqState
	jqInput textinput.Model

	copied string // the last text copied, shown until the next key
}

// New returns an empty viewer drawing with st.
func New(st *Styles) *Model {
	ti := newTextInput(st, "/ ")
	ti.Placeholder = "search the output"
	jq := newTextInput(st, "| ")
	jq.Placeholder = "jq filter, like .items[] | select(.ok) | .name"
	return &Model{st: st, Keys: DefaultKeys(), search: ti, jqInput: jq}
}

// foundMatches are the matches of a search.
type foundMatches struct {
	query   string
	matches []vrow
}

// SetOutput shows out (nil for none), marking the paths of fields, with
// head and tail around it. A failed parse shows out as text.
func (v *Model) SetOutput(out []byte, fields []tooling.FieldError, head, tail []string) {
	v.stopJQ()
	v.jqInput.Blur()
	v.jqInput.SetValue("")
	v.tree, v.folded, v.tab, v.jq = nil, nil, nil, jqState{}
	if len(out) > 0 {
		if t, err := parseOutput(out, fields); err == nil {
			v.tree = t
			v.folded = make([]bool, len(t.lines))
			// Strings of several lines (a command's output, a file) read
			// as text from the start; t shows them as JSON.
			v.plain, v.strings = false, false
			for i := range t.lines {
				v.strings = v.strings || t.lines[i].kind == vString
				v.plain = v.plain || t.lines[i].nl > 1 || t.lines[i].runes > longLine
			}
		} else {
			tail = append(strings.Split(Pretty(out), "\n"), tail...)
		}
	}
	v.head, v.tail = head, tail
	v.cursor, v.offset, v.query, v.matches, v.copied, v.searching = 0, 0, "", nil, "", false
	v.found = [2]foundMatches{}
	v.search.Blur()
	v.search.SetValue("")
	v.rebuild()
	v.cursor = v.firstJSONRow()
	v.clamp()
}

// SetFrame replaces the text around the output (after a resize), keeping
// the tree, its folds and the cursor's line.
func (v *Model) SetFrame(head, tail []string) {
	at := v.at()
	v.head, v.tail = head, tail
	v.rebuild()
	v.moveTo(at)
}

// ModeLine says how strings are shown and how to change it.
func (v *Model) ModeLine() string {
	switch {
	case v.tree == nil || !v.strings:
		return ""
	case v.plain:
		return "strings shown as text · " + keyName(v.Keys.Text) + " shows them as JSON"
	}
	return "strings shown as JSON · " + keyName(v.Keys.Text) + " shows them as text"
}

func (v *Model) firstJSONRow() int {
	for i, r := range v.rows {
		if r.part == partJSON {
			return i
		}
	}
	return 0
}

// SetSize gives the viewer w columns and h rows.
func (v *Model) SetSize(w, h int) {
	rewrap := w != v.w && v.plain
	v.w, v.h = w, h
	v.search.SetWidth(max(w-4, 10))
	v.jqInput.SetWidth(max(w-20, 10))
	if rewrap {
		at := v.at()
		at.wrap = 0
		v.rebuild()
		v.moveTo(at)
		if v.query != "" { // which strings wrap depends on the width
			v.found = [2]foundMatches{}
			v.find(v.query)
		}
	}
	v.clamp()
}

// LineHelp is the keys of the line that has the focus (the search or the
// filter line) for a footer; nil when neither has it.
func (v *Model) LineHelp() []key.Binding {
	switch {
	case v.searching:
		return []key.Binding{bind([]string{"enter"}, "enter", "search"), bind([]string{"esc"}, "esc", "cancel")}
	case v.jq.typing:
		return []key.Binding{bind([]string{"enter"}, "enter", "keep the filter"), bind([]string{"esc"}, "esc", "drop it")}
	}
	return nil
}

// Typing reports whether the search line or the filter line has the
// focus: keys are text.
func (v *Model) Typing() bool { return v.searching || v.jq.typing }

// rebuild recomputes the rows from the folds and the text view.
func (v *Model) rebuild() {
	rows := v.rows[:0]
	for i := range v.head {
		rows = append(rows, vrow{part: partHead, line: int32(i)})
	}
	if t := v.tree; t != nil {
		for i := int32(0); i < int32(len(t.lines)); i++ {
			l := &t.lines[i]
			rows = append(rows, vrow{part: partJSON, line: i})
			switch {
			case l.kind == vOpen && (v.folded[i] || l.count == 0):
				i = l.end // drawn on one line
			case v.asText(l):
				avail := v.textWidth(l)
				for s := range t.textLines(i) {
					n := t.wrapped(i, int32(s)+1, avail).n
					for p := range n {
						rows = append(rows, vrow{part: partJSON, line: i, sub: int32(s) + 1, wrap: int32(p)})
					}
				}
			}
		}
	}
	for i := range v.tail {
		rows = append(rows, vrow{part: partTail, line: int32(i)})
	}
	v.rows = rows
}

// at is the row under the cursor.
func (v *Model) at() vrow {
	if v.cursor < 0 || v.cursor >= len(v.rows) {
		return vrow{}
	}
	return v.rows[v.cursor]
}

// moveTo puts the cursor on row r, or the nearest row before it.
func (v *Model) moveTo(r vrow) {
	lo, hi := 0, len(v.rows)
	for lo < hi { // the first row after r
		mid := (lo + hi) / 2
		if before(r, v.rows[mid]) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	v.cursor = max(lo-1, 0)
	v.clamp()
}

// before reports whether row a comes before row b.
func before(a, b vrow) bool {
	if a.part != b.part {
		return a.part < b.part
	}
	if a.line != b.line {
		return a.line < b.line
	}
	if a.sub != b.sub {
		return a.sub < b.sub
	}
	return a.wrap < b.wrap
}

// longLine is the width beyond which a string of one line makes the
// viewer start with strings as text, where it wraps.
const longLine = 512

// asText reports whether string line l is drawn as rows of text under its
// key: in the text view, a string of several lines or one wider than the
// screen (wrapped).
func (v *Model) asText(l *vline) bool {
	if !v.plain || l.kind != vString {
		return false
	}
	// A string is at least as wide as it has characters (but for the rare
	// ones of no width); the exact width is only needed for short ones.
	w := v.textWidth(l)
	return l.nl > 1 || int(l.runes) > w || int(l.runes) > w/2 && width(l.str) > w
}

// textWidth is the width of the text lines of string line l: the screen
// less the gutter and the indentation.
func (v *Model) textWidth(l *vline) int {
	return max(v.w-3-2*int(l.depth+1), 10)
}

// bodyRows is how many rows fit above the search line and the copy panel.
func (v *Model) bodyRows() int {
	n := v.h
	if v.searching || v.query != "" {
		n--
	}
	n -= v.panelLines() + v.jqLines()
	return max(n, 1)
}

func (v *Model) clamp() {
	v.cursor = min(max(v.cursor, 0), max(len(v.rows)-1, 0))
	rows := v.bodyRows()
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+rows {
		v.offset = v.cursor - rows + 1
	}
	v.offset = max(min(v.offset, len(v.rows)-rows), 0)
	if v.tab != nil {
		v.clampTable()
	}
}

// Update handles a key or a wheel turn; it returns the command and
// whether it used msg.
func (v *Model) Update(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case jqResultMsg:
		if msg.v != v {
			return nil, false
		}
		v.jqDone(msg)
		return nil, true
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			v.scroll(-3)
		case tea.MouseWheelDown:
			v.scroll(3)
		}
		return nil, true
	case tea.PasteMsg:
		if v.jq.typing {
			return v.updateJQ(msg), true
		}
		if v.searching {
			var cmd tea.Cmd
			v.search, cmd = v.search.Update(msg)
			return cmd, true
		}
	case tea.KeyPressMsg:
		if v.searching {
			return v.updateSearch(msg), true
		}
		if v.jq.typing {
			return v.updateJQ(msg), true
		}
		v.copied = ""
		if v.tab != nil {
			return v.updateTable(msg)
		}
		return v.updateKeys(msg)
	}
	return nil, false
}

// scroll moves the window by n rows, the cursor with it.
func (v *Model) scroll(n int) {
	if tb := v.tab; tb != nil {
		tb.offset = max(min(tb.offset+n, len(tb.order)-v.tableRows()), 0)
		tb.cursor = min(max(tb.cursor, tb.offset), tb.offset+v.tableRows()-1)
		v.clampTable()
		return
	}
	v.offset = max(min(v.offset+n, len(v.rows)-v.bodyRows()), 0)
	v.cursor = min(max(v.cursor, v.offset), v.offset+v.bodyRows()-1)
	v.clamp()
}

func (v *Model) updateSearch(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "enter":
		v.searching = false
		v.search.Blur()
		v.find(strings.ToLower(strings.TrimSpace(v.search.Value())))
		return v.next(true, true)
	case "esc":
		v.searching = false
		v.search.Blur()
		v.search.SetValue(v.query)
		v.clamp()
		return nil
	}
	var cmd tea.Cmd
	v.search, cmd = v.search.Update(msg)
	return cmd
}

func (v *Model) updateKeys(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	k := v.Keys
	switch {
	case key.Matches(msg, k.Up):
		v.cursor--
	case key.Matches(msg, k.Down):
		v.cursor++
	case key.Matches(msg, k.Top):
		v.cursor = 0
	case key.Matches(msg, k.Bottom):
		v.cursor = len(v.rows) - 1
	case key.Matches(msg, k.PageUp):
		v.cursor -= v.bodyRows()
		v.offset -= v.bodyRows()
	case key.Matches(msg, k.PageDown):
		v.cursor += v.bodyRows()
		v.offset += v.bodyRows()
	case key.Matches(msg, k.Fold):
		v.toggle()
	case key.Matches(msg, k.FoldAll):
		v.foldAll()
	case key.Matches(msg, k.Text):
		v.plain = !v.plain
		at := v.at()
		at.sub, at.wrap = 0, 0
		v.rebuild()
		v.moveTo(at)
		if v.query != "" {
			v.find(v.query)
		}
	case key.Matches(msg, k.Search):
		v.searching = true
		v.search.SetValue("")
		v.clamp()
		return v.search.Focus(), true
	case key.Matches(msg, k.Next):
		return v.next(true, false), true
	case key.Matches(msg, k.Prev):
		return v.next(false, false), true
	case key.Matches(msg, k.Copy):
		return v.copy(false), true
	case key.Matches(msg, k.CopyAll):
		return v.copy(true), true
	case key.Matches(msg, k.Open):
		return v.open(), true
	case key.Matches(msg, k.Table):
		return v.toggleTable(), true
	case key.Matches(msg, k.JQ):
		return v.openJQ(), true
	default:
		return nil, false
	}
	v.clamp()
	return nil, true
}

// toggle folds or unfolds the value under the cursor; on a line inside a
// value it folds the enclosing one.
func (v *Model) toggle() {
	r := v.at()
	if r.part != partJSON || v.tree == nil {
		return
	}
	t := v.tree
	i := r.line
	switch t.lines[i].kind {
	case vOpen:
	case vClose:
		i = t.lines[i].end
	default:
		if i = t.lines[i].parent; i < 0 {
			return
		}
	}
	v.folded[i] = !v.folded[i]
	v.rebuild()
	v.moveTo(vrow{part: partJSON, line: i})
}

// foldAll folds every value below the top level, or unfolds everything
// when something is folded.
func (v *Model) foldAll() {
	if v.tree == nil {
		return
	}
	any := false
	for _, f := range v.folded {
		any = any || f
	}
	for i := range v.tree.lines {
		l := &v.tree.lines[i]
		v.folded[i] = !any && l.kind == vOpen && l.depth > 0
	}
	at := v.at()
	if at.part == partJSON {
		v.tree.ancestors(at.line, func(p int32) {
			if v.folded[p] {
				at = vrow{part: partJSON, line: p}
			}
		})
	}
	v.rebuild()
	v.moveTo(at)
}

// find lists the rows matching q, lower case: lines of the text around
// the output, and the output's keys and values (strings by their text
// lines in the text view), folded or not.
func (v *Model) find(q string) {
	v.query, v.matches = q, nil
	if q == "" {
		return
	}
	mode := 0
	if v.plain {
		mode = 1
	}
	if f := &v.found[mode]; f.query == q {
		v.matches = f.matches
		return
	}
	defer func() { v.found[mode].query, v.found[mode].matches = q, v.matches }()
	for i, s := range v.head {
		if containsFold(s, q) {
			v.matches = append(v.matches, vrow{part: partHead, line: int32(i)})
		}
	}
	if t := v.tree; t != nil {
		for i := range t.lines {
			l := &t.lines[i]
			if v.asText(l) {
				if containsFold(l.key, q) {
					v.matches = append(v.matches, vrow{part: partJSON, line: int32(i)})
				}
				w := v.textWidth(l)
				for s, text := range t.textLines(int32(i)) {
					if containsFold(text, q) {
						v.matches = t.wrapped(int32(i), int32(s)+1, w).matchRows(v.matches, vrow{part: partJSON, line: int32(i), sub: int32(s) + 1}, text, q, w)
					}
				}
				continue
			}
			text := l.val
			if l.kind == vString && (v.plain || len(l.str) > maxQuoted) {
				text = l.str // the JSON text of a long string is only its start
			}
			if containsFold(l.key, q) || containsFold(text, q) {
				v.matches = append(v.matches, vrow{part: partJSON, line: int32(i)})
			}
		}
	}
	for i, s := range v.tail {
		if containsFold(s, q) {
			v.matches = append(v.matches, vrow{part: partTail, line: int32(i)})
		}
	}
}

// next moves to the next match after the cursor (or the previous one
// before it), unfolding what hides it; here counts the row under the
// cursor too.
func (v *Model) next(forward, here bool) tea.Cmd {
	if len(v.matches) == 0 {
		v.clamp()
		if v.query != "" {
			return statusCmd("nothing matches "+v.query, true)
		}
		return nil
	}
	at := v.at()
	idx := -1
	if forward {
		for i, m := range v.matches {
			if before(at, m) || here && m == at {
				idx = i
				break
			}
		}
		if idx < 0 {
			idx = 0 // wrap around
		}
	} else {
		for i := len(v.matches) - 1; i >= 0; i-- {
			if before(v.matches[i], at) {
				idx = i
				break
			}
		}
		if idx < 0 {
			idx = len(v.matches) - 1
		}
	}
	m := v.matches[idx]
	if m.part == partJSON {
		unfolded := false
		v.tree.ancestors(m.line, func(p int32) {
			unfolded = unfolded || v.folded[p]
			v.folded[p] = false
		})
		if unfolded {
			v.rebuild()
		}
	}
	v.moveTo(m)
	// Show the match a few rows from the top rather than on the edge.
	if v.cursor >= v.offset+v.bodyRows() || v.cursor < v.offset {
		v.offset = max(v.cursor-v.bodyRows()/3, 0)
	}
	v.clamp()
	return statusCmd(fmt.Sprintf("match %d of %d", idx+1, len(v.matches)), false)
}

// copy puts the selected value (a string as its text, anything else as
// JSON) or the whole output (as JSON) on the clipboard with OSC 52 and
// shows it in a panel, for terminals that ignore OSC 52; one too large
// for OSC 52 is offered as a file.
func (v *Model) copy(all bool) tea.Cmd {
	var text, what string
	r := v.at()
	switch {
	case v.tree != nil && (all || r.part != partJSON):
		text, what = Pretty(v.tree.raw), "the output"
	case v.tree != nil:
		text, what = v.tree.copyText(r.line), "the value at "+pathName(v.tree.lines[r.line].path)
		if l := &v.tree.lines[r.line]; l.kind == vClose {
			what = "the value at " + pathName(l.path)
		}
	case r.part == partHead && int(r.line) < len(v.head):
		text, what = strings.Join(v.head, "\n"), "the result"
	case len(v.tail) > 0:
		text, what = strings.Join(v.tail, "\n"), "the result"
	default:
		return statusCmd("nothing to copy", true)
	}
	if len(text) <= MaxOSC52 { // a longer one is offered as a file
		v.copied = text
		v.clamp()
	}
	return copyCmd(text, what)
}

func pathName(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// wholeText is the whole output as the view shows it: indented JSON, or
// with strings as text in the text view.
func (v *Model) wholeText() string {
	if v.tree == nil {
		return ""
	}
	if !v.plain {
		return Pretty(v.tree.raw)
	}
	var b strings.Builder
	for i := range v.tree.lines {
		l := &v.tree.lines[i]
		indent := strings.Repeat("  ", int(l.depth))
		b.WriteString(indent + l.key)
		if l.kind == vString && l.nl > 1 {
			for _, text := range v.tree.textLines(int32(i)) {
				b.WriteString("\n" + indent + "  " + text)
			}
		} else if l.kind == vString {
			b.WriteString(`"` + l.str + `"`)
		} else {
			b.WriteString(l.val)
		}
		if l.comma {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// panelLines is the height of the copy panel.
func (v *Model) panelLines() int {
	if v.copied == "" {
		return 0
	}
	return len(v.panelText()) + 3
}

const panelMax = 4

func (v *Model) panelText() []string {
	lines := strings.SplitN(v.copied, "\n", panelMax+1)
	if len(lines) > panelMax {
		lines = append(lines[:panelMax], "…")
	}
	for i, l := range lines {
		lines[i] = cut(l, max(v.w-4, 10))
	}
	return lines
}

// execProcess runs a program on the terminal (tea.ExecProcess); tests
// replace it.
var execProcess = tea.ExecProcess

// pagerCommand is the program that shows file: $PAGER, else $EDITOR, else
// less; with its arguments when the variable has some.
func pagerCommand(getenv func(string) string, file string) *exec.Cmd {
	prog := []string{"less", "-R"}
	for _, name := range []string{"PAGER", "EDITOR"} {
		if f := strings.Fields(getenv(name)); len(f) > 0 {
			prog = f
			break
		}
	}
	return exec.Command(prog[0], append(prog[1:], file)...)
}

// open shows the output (as the view shows it) in the pager or editor.
func (v *Model) open() tea.Cmd {
	text := v.wholeText()
	if v.tree == nil {
		text = strings.Join(append(append([]string{}, v.head...), v.tail...), "\n")
	}
	f, err := os.CreateTemp("", "toolexplorer-output-*.txt")
	if err != nil {
		return statusCmd("cannot write the output for the pager: "+err.Error(), true)
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return statusCmd("cannot write the output for the pager: "+err.Error(), true)
	}
	cmd := pagerCommand(os.Getenv, f.Name())
	return execProcess(cmd, func(err error) tea.Msg {
		_ = os.Remove(f.Name())
		if err != nil {
			return StatusMsg{Text: cmd.Path + ": " + err.Error(), Err: true}
		}
		return nil
	})
}

// Click selects row y of the viewer (0 at its top), or folds the value on
// the row already selected.
func (v *Model) Click(y int) tea.Cmd {
	if tb := v.tab; tb != nil {
		if r := tb.offset + y - 2; y >= 2 && y-2 < v.tableRows() && r < len(tb.order) && !v.Typing() {
			tb.cursor = r
		}
		return nil
	}
	if y < 0 || y >= v.bodyRows() || v.offset+y >= len(v.rows) || v.searching {
		return nil
	}
	v.copied = ""
	if row := v.offset + y; row != v.cursor {
		v.cursor = row
	} else {
		v.toggle()
	}
	v.clamp()
	return nil
}
