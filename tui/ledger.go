package tui

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// Ledger is the ledger of calls the console shows (E): every call of
// every entry point, refusals included, as the ledger package records
// them. The command line wires it; nil: no ledger is kept.
type Ledger interface {
	// Path is the ledger's file.
	Path() string
	// Read returns every call the ledger holds, the oldest first, once the
	// records of the calls made so far are written; an error with calls
	// says why some may be missing. The console calls it off its UI
	// goroutine: at 100,000 records it takes seconds.
	Read() ([]ledger.Entry, error)
}

// ledgerRow is one call of the ledger with what the screen filters on,
// computed once when the ledger is read.
type ledgerRow struct {
	e       *ledger.Entry
	tool    string // the tool's name
	code    string // "ok", a code, "interrupted" or "running", as ledger.Filter.Code names it
	subject string // the principal's subject, "anonymous" for none
	text    string // lower-cased: tool, call, subject, tenant, code, origin, status
}

func newLedgerRow(e *ledger.Entry) ledgerRow {
	r := ledgerRow{e: e, tool: e.Begin.Tool, code: ledgerCode(e), subject: "anonymous"}
	tenant := ""
	if p := e.Begin.Principal; p != nil {
		if p.Subject != "" {
			r.subject = p.Subject
		}
		tenant = p.Tenant
	}
	r.text = strings.ToLower(strings.Join([]string{r.tool, e.Begin.Call, r.subject, tenant, r.code, string(e.Begin.Origin), e.Status, e.Begin.Version}, "\x00"))
	return r
}

// ledgerCode is how a call ended, as ledger.Filter.Code names it: "ok",
// the code of a call that did not succeed, or for a call without an end
// "interrupted" or "running".
func ledgerCode(e *ledger.Entry) string {
	if e.End == nil {
		return e.Status
	}
	if e.End.Code == codes.OK || e.End.Code == "" && e.End.Status == "ok" {
		return "ok"
	}
	return string(e.End.Code)
}

// ledgerData is the ledger as read: its calls, the newest first.
type ledgerData struct {
	entries []ledger.Entry
	rows    []ledgerRow // newest first
	err     error
	// The file as it was before the read: a file that changed since is
	// read again when the screen shows.
	size int64
	mod  time.Time
}

// ledgerReadMsg brings the ledger read for the generation gen.
type ledgerReadMsg struct {
	gen  int
	data *ledgerData
}

// readLedgerCmd reads the ledger in its own goroutine.
func readLedgerCmd(l Ledger, gen int) tea.Cmd {
	return func() tea.Msg {
		d := &ledgerData{}
		d.size, d.mod = fileStamp(l.Path())
		d.entries, d.err = l.Read()
		d.rows = make([]ledgerRow, len(d.entries))
		for i := range d.entries {
			d.rows[len(d.entries)-1-i] = newLedgerRow(&d.entries[i])
		}
		return ledgerReadMsg{gen: gen, data: d}
	}
}

// fileStamp is the size and time of the file at path, zero when there is
// none.
func fileStamp(path string) (int64, time.Time) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}
	}
	return fi.Size(), fi.ModTime()
}

// openLedgerMsg opens the ledger screen; call, when set, opens that
// call's record once the ledger is read.
type openLedgerMsg struct{ call string }

// ledgerOfCmd opens the ledger at the record of the call rec.
func ledgerOfCmd(c *common, rec *callRecord) tea.Cmd {
	if c.ledger == nil {
		return statusCmd("no ledger is kept", true)
	}
	id := ""
	switch {
	case rec.result != nil && rec.result.CallID != "":
		id = rec.result.CallID
	case rec.seq > 0:
		id = c.callID(rec.seq)
	}
	if id == "" {
		return statusCmd("the history kept no call id for "+rec.name(), true)
	}
	return msgCmd(openLedgerMsg{call: id})
}

// openLedgerRecordMsg opens one call of the ledger.
type openLedgerRecordMsg struct{ e *ledger.Entry }

// ledgerFilter is what the t, c and u keys (or tool:, code: and
// subject: words of the search) select.
type ledgerFilter struct{ tool, code, subject string }

// ledgerScreen lists the calls of the ledger, the newest first: when each
// began, the tool, who called, how it ended and how long it ran. / searches
// them (tool, call id, subject, tenant, code, origin); t, c and u keep
// only the calls of the selected call's tool, code or subject; enter opens
// a call's records. The ledger is read off the UI goroutine, again when
// the console made calls since or the file changed.
type ledgerScreen struct {
	c    *common
	keys ledgerKeys

	data      *ledgerData
	gen       int
	reading   bool
	readStart time.Time
	readSize  int64
	readSeq   int    // c.seq when the read began: later calls are not in it
	pending   string // a call id whose record opens once the ledger is read

	shown     []int // indexes into data.rows
	search    textinput.Model
	searching bool
	query     string
	words     []string     // the query's words that are not filters
	keyed     ledgerFilter // set with t, c and u
	filter    ledgerFilter // keyed, with the query's filter words over it

	cursor, offset int
	w, h           int
}

func newLedgerScreen(c *common) *ledgerScreen {
	ti := newTextInput(c, "/ ")
	ti.Placeholder = "tool, call id, subject, code; tool:NAME code:CODE subject:WHO"
	return &ledgerScreen{c: c, keys: newLedgerKeys(&c.global), search: ti}
}

func (s *ledgerScreen) Title() string { return "Ledger" }

func (s *ledgerScreen) Typing() bool { return s.searching }

func (s *ledgerScreen) KeyMap() help.KeyMap {
	k := s.keys
	k.searching = s.searching
	return k
}

func (s *ledgerScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.search.SetWidth(max(w-20, 10))
	s.clamp()
}

func (s *ledgerScreen) Hide() {}

// Show reads the ledger when it was never read, when the console made
// calls since, or when its file changed.
func (s *ledgerScreen) Show() tea.Cmd {
	if s.stale() {
		return s.read()
	}
	return nil
}

func (s *ledgerScreen) stale() bool {
	l := s.c.ledger
	if l == nil || s.reading {
		return false
	}
	if s.data == nil || s.readSeq != s.c.seq {
		return true
	}
	size, mod := fileStamp(l.Path())
	return size != s.data.size || !mod.Equal(s.data.mod)
}

// read starts reading the ledger; the calls read before stay listed
// until it is done.
func (s *ledgerScreen) read() tea.Cmd {
	l := s.c.ledger
	if l == nil || s.reading {
		return nil
	}
	s.gen++
	s.reading, s.readStart, s.readSeq = true, s.c.now(), s.c.seq
	s.readSize, _ = fileStamp(l.Path())
	return tea.Batch(readLedgerCmd(l, s.gen), s.c.startLoading())
}

// jump opens the record of the call id once the ledger is read: now when
// it is read and holds it.
func (s *ledgerScreen) jump(call string) tea.Cmd {
	s.pending = call
	cmd := s.Show()
	if s.reading {
		return cmd
	}
	return tea.Batch(cmd, s.openPending())
}

// openPending opens the record of the call jumped to, or says the ledger
// has none.
func (s *ledgerScreen) openPending() tea.Cmd {
	call := s.pending
	if call == "" || s.data == nil {
		return nil
	}
	s.pending = ""
	if len(s.data.rows) == 0 && s.data.err != nil {
		return nil // the screen says why
	}
	// Show it among the others: clear what would hide it.
	if i := s.find(call); i >= 0 {
		if !slices.Contains(s.shown, i) {
			s.keyed, s.query = ledgerFilter{}, ""
			s.search.SetValue("")
			s.apply()
		}
		s.cursor = slices.Index(s.shown, i)
		s.clamp()
		return msgCmd(openLedgerRecordMsg{e: s.data.rows[i].e})
	}
	return statusCmd("the ledger has no record of call "+call+" (a call made with no ledger kept, or before it was)", true)
}

func (s *ledgerScreen) find(call string) int {
	for i := range s.data.rows {
		if s.data.rows[i].e.Begin.Call == call {
			return i
		}
	}
	return -1
}

func (s *ledgerScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case ledgerReadMsg:
		if msg.gen != s.gen {
			return nil
		}
		s.reading, s.data = false, msg.data
		s.c.stopLoading()
		s.apply()
		return s.openPending()
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			s.cursor -= 3
		case tea.MouseWheelDown:
			s.cursor += 3
		}
		s.clamp()
		return nil
	case tea.KeyPressMsg:
		if s.searching {
			return s.updateSearch(msg)
		}
		cmd := s.updateKey(msg)
		s.clamp()
		return cmd
	case tea.PasteMsg:
		if s.searching {
			var cmd tea.Cmd
			s.search, cmd = s.search.Update(msg)
			s.applyQuery()
			return cmd
		}
	}
	return nil
}

func (s *ledgerScreen) updateSearch(msg tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, s.keys.AcceptQuery):
		s.searching = false
		s.search.Blur()
		return nil
	case key.Matches(msg, s.keys.ClearQuery):
		s.searching = false
		s.search.Blur()
		s.search.SetValue("")
	case msg.String() == "up":
		s.cursor--
		s.clamp()
		return nil
	case msg.String() == "down":
		s.cursor++
		s.clamp()
		return nil
	default:
		s.search, cmd = s.search.Update(msg)
	}
	s.applyQuery()
	return cmd
}

func (s *ledgerScreen) applyQuery() {
	if q := s.search.Value(); q != s.query {
		s.query = q
		s.apply()
		s.cursor, s.offset = 0, 0
		s.clamp()
	}
}

// selected is the call under the cursor.
func (s *ledgerScreen) selected() (*ledgerRow, bool) {
	if s.data == nil || s.cursor < 0 || s.cursor >= len(s.shown) {
		return nil, false
	}
	return &s.data.rows[s.shown[s.cursor]], true
}

func (s *ledgerScreen) updateKey(msg tea.KeyPressMsg) tea.Cmd {
	k := s.keys
	switch {
	case key.Matches(msg, k.Up):
		s.cursor--
	case key.Matches(msg, k.Down):
		s.cursor++
	case key.Matches(msg, k.Top):
		s.cursor = 0
	case key.Matches(msg, k.Bottom):
		s.cursor = len(s.shown) - 1
	case key.Matches(msg, k.PageUp):
		s.cursor -= s.rows()
	case key.Matches(msg, k.PageDown):
		s.cursor += s.rows()
	case key.Matches(msg, k.Search):
		// A new search: / never adds to the one kept.
		s.searching = true
		s.search.SetValue("")
		s.applyQuery()
		return s.search.Focus()
	case key.Matches(msg, k.Open):
		if r, ok := s.selected(); ok {
			return msgCmd(openLedgerRecordMsg{e: r.e})
		}
	case key.Matches(msg, k.Tool):
		s.toggle(&s.keyed.tool, func(r *ledgerRow) string { return r.tool })
	case key.Matches(msg, k.Code):
		s.toggle(&s.keyed.code, func(r *ledgerRow) string { return r.code })
	case key.Matches(msg, k.Subject):
		s.toggle(&s.keyed.subject, func(r *ledgerRow) string { return r.subject })
	case key.Matches(msg, k.Reload):
		return s.read()
	case key.Matches(msg, k.Back):
		if s.query != "" || s.keyed != (ledgerFilter{}) {
			s.query, s.keyed = "", ledgerFilter{}
			s.search.SetValue("")
			s.apply()
			return nil
		}
		return backCmd
	}
	return nil
}

// toggle keeps only the calls that share the selected call's value of a
// filter, or drops that filter when it is on.
func (s *ledgerScreen) toggle(f *string, of func(*ledgerRow) string) {
	if *f != "" {
		*f = ""
	} else if r, ok := s.selected(); ok {
		*f = of(r)
	} else {
		return
	}
	s.apply()
}

// apply lists the calls that match the filters and the search, keeping
// the cursor on the call it was on when it is still listed.
func (s *ledgerScreen) apply() {
	var keep *ledger.Entry
	if r, ok := s.selected(); ok {
		keep = r.e
	}
	s.filter, s.words = s.keyed, nil
	for _, w := range strings.Fields(s.query) {
		name, value, ok := strings.Cut(w, ":")
		switch name = strings.ToLower(name); {
		case ok && name == "tool":
			s.filter.tool = value
		case ok && name == "code":
			s.filter.code = value
		case ok && (name == "subject" || name == "who"):
			s.filter.subject = value
		default:
			s.words = append(s.words, strings.ToLower(w))
		}
	}
	s.shown = s.shown[:0]
	if s.data == nil {
		return
	}
	f := s.filter
	for i := range s.data.rows {
		r := &s.data.rows[i]
		if f.tool != "" && r.tool != f.tool || f.code != "" && r.code != f.code || f.subject != "" && r.subject != f.subject {
			continue
		}
		match := true
		for _, w := range s.words {
			if !strings.Contains(r.text, w) {
				match = false
				break
			}
		}
		if match {
			s.shown = append(s.shown, i)
		}
	}
	s.cursor = 0
	for j, i := range s.shown {
		if s.data.rows[i].e == keep {
			s.cursor = j
			break
		}
	}
	s.clamp()
}

// rows is how many calls fit: the title, the filter line and the column
// heads take three.
func (s *ledgerScreen) rows() int { return max(s.h-3, 1) }

func (s *ledgerScreen) clamp() {
	n, rows := len(s.shown), s.rows()
	s.cursor = min(max(s.cursor, 0), max(n-1, 0))
	if s.cursor < s.offset {
		s.offset = s.cursor
	}
	if s.cursor >= s.offset+rows {
		s.offset = s.cursor - rows + 1
	}
	s.offset = max(min(s.offset, n-rows), 0)
}

func (s *ledgerScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	title := st.Title.Render("Ledger")
	switch {
	case s.c.ledger == nil:
		b.WriteString(title + "\n\n" + st.Subtle.Render("no ledger is kept: calls are recorded when the config's ledger.enabled is on (the default) and the state directory can be written"))
		return b.String()
	case s.data != nil:
		what := plural(len(s.data.rows), "call")
		if len(s.shown) != len(s.data.rows) {
			what = fmt.Sprintf("%d of %s", len(s.shown), what)
		}
		title += st.Subtle.Render(" · " + what + " · " + termtext.Line(s.c.ledger.Path()))
	default:
		title += st.Subtle.Render(" · " + termtext.Line(s.c.ledger.Path()))
	}
	if s.reading {
		title += "  " + st.Status.Render(s.progress())
	}
	line := s.filterLine()
	if s.data != nil && s.data.err != nil && len(s.data.rows) > 0 {
		line = st.Err.Render(termtext.Line(s.data.err.Error()))
	}
	b.WriteString(title + "\n" + line + "\n")
	switch {
	case s.data == nil:
		b.WriteString(st.Subtle.Render("reading the ledger…"))
		return b.String()
	case s.data.err != nil && len(s.data.rows) == 0:
		b.WriteString(st.Err.Render(termtext.Line(s.data.err.Error())))
		return b.String()
	case len(s.data.rows) == 0:
		b.WriteString(st.Subtle.Render("no calls recorded yet"))
		return b.String()
	case len(s.shown) == 0:
		b.WriteString(st.Subtle.Render("no call matches: " + keyName(s.keys.Back) + " clears the search and filters"))
		return b.String()
	}
	end := min(s.offset+s.rows(), len(s.shown))
	toolW, whoW := 4, 3
	for _, i := range s.shown[s.offset:end] {
		r := &s.data.rows[i]
		toolW, whoW = max(toolW, width(ledgerTool(r.e))), max(whoW, width(ledgerWho(r.e)))
	}
	toolW, whoW = min(toolW, max(s.w/5, 12)), min(whoW, max(s.w/6, 9))
	const timeW, outW, runW = 12, 18, 7
	b.WriteString(st.Faint.Render(cut("  "+pad("TIME", timeW)+"  "+pad("TOOL", toolW)+"  "+pad("WHO", whoW)+"  "+pad("OUTCOME", outW)+" "+padLeft("RUN", runW)+"  CALL", s.w)))
	now := s.c.now()
	for row := s.offset; row < end; row++ {
		r := &s.data.rows[s.shown[row]]
		marker := "  "
		if row == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		run := ""
		if r.e.End != nil {
			run = formatDuration(time.Duration(r.e.End.RunMS * float64(time.Millisecond)))
		}
		line := marker + pad(callTime(r.e.Begin.Time, now), timeW) + "  " + pad(termtext.Line(ledgerTool(r.e)), toolW) + "  " +
			pad(termtext.Line(ledgerWho(r.e)), whoW) + "  " + pad(ledgerOutcome(st, r.e), outW) + " " + padLeft(run, runW) + "  "
		line += st.Subtle.Render(cut(termtext.Line(r.e.Begin.Call), max(s.w-width(line), 0)))
		b.WriteString("\n" + line)
	}
	return b.String()
}

// progress is the line of a read in progress: a read of 100,000 records
// takes seconds.
func (s *ledgerScreen) progress() string {
	what := "reading"
	if s.data != nil {
		what = "reading again"
	}
	if s.readSize > 0 {
		what += " " + fileSize(s.readSize)
	}
	return s.c.spin.View() + " " + what + " · " + formatDuration(s.c.now().Sub(s.readStart))
}

// filterLine shows the search and the filters, or how to set them.
func (s *ledgerScreen) filterLine() string {
	st := s.c.styles
	var parts []string
	for _, f := range [][2]string{{"tool", s.filter.tool}, {"code", s.filter.code}, {"subject", s.filter.subject}} {
		if f[1] != "" {
			parts = append(parts, f[0]+" "+st.Bold.Render(termtext.Line(f[1])))
		}
	}
	k := s.keys
	switch {
	case s.searching:
		return s.search.View()
	case s.query != "" || len(parts) > 0:
		line := ""
		if len(s.words) > 0 {
			line = st.Bold.Render("/ "+strings.Join(s.words, " ")) + "  "
		}
		if len(parts) > 0 {
			line += strings.Join(parts, st.Faint.Render(" · ")) + "  "
		}
		return line + st.Faint.Render("("+keyName(k.Back)+" clears)")
	}
	return st.Faint.Render(fmt.Sprintf("%s search · %s/%s/%s only this tool/code/subject · %s open · %s read again",
		keyName(k.Search), keyName(k.Tool), keyName(k.Code), keyName(k.Subject), keyName(k.Open), keyName(k.Reload)))
}

// ledgerTool is the tool of a call with its version.
func ledgerTool(e *ledger.Entry) string {
	if e.Begin.Version != "" {
		return e.Begin.Tool + "@" + e.Begin.Version
	}
	return e.Begin.Tool
}

// ledgerWho is who made a call: subject@tenant, or anonymous.
func ledgerWho(e *ledger.Entry) string {
	if p := e.Begin.Principal; p != nil && p.Subject != "" {
		return p.String()
	}
	return "anonymous"
}

// ledgerOutcome is how a call ended, as a badge: ✓ ok, ⊘ code, ✗ code,
// or interrupted; replayed and shadow calls say so.
func ledgerOutcome(st *styles, e *ledger.Entry) string {
	var out string
	switch {
	case e.End == nil && e.Status == "running":
		out = st.Status.Render("… running")
	case e.End == nil:
		out = st.Warn.Render("↯ interrupted")
	case ledgerCode(e) == "ok":
		out = st.OK.Render("✓ ok")
	case e.End.Status == "denied":
		out = st.Err.Render("⊘ " + string(e.End.Code))
	default:
		out = st.Err.Render("✗ " + string(e.End.Code))
	}
	if e.End != nil && e.End.Replayed {
		out += st.Faint.Render(" replayed")
	}
	if e.End != nil && e.End.Mode != "" {
		out += st.Faint.Render(" " + e.End.Mode)
	}
	return out
}

// fileSize is n bytes of a file for people: 512 B, 12.3 KiB, 48.0 MiB.
func fileSize(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

// ledgerKeys are the keys of the ledger screen.
type ledgerKeys struct {
	navKeys
	Open        key.Binding
	Search      key.Binding
	AcceptQuery key.Binding
	ClearQuery  key.Binding
	Tool        key.Binding
	Code        key.Binding
	Subject     key.Binding
	Reload      key.Binding
	Back        key.Binding
	searching   bool
	g           *globalKeys
}

func newLedgerKeys(g *globalKeys) ledgerKeys {
	return ledgerKeys{
		g:           g,
		navKeys:     newNavKeys(),
		Open:        bind([]string{"enter"}, "enter", "open the call's records"),
		Search:      bind([]string{"/"}, "/", "search tool, call id, subject, code (tool:, code:, subject: filter)"),
		AcceptQuery: bind([]string{"enter", "tab"}, "enter", "keep the search"),
		ClearQuery:  bind([]string{"esc"}, "esc", "clear the search"),
		Tool:        bind([]string{"t"}, "t", "only the calls of this tool (again: all)"),
		Code:        bind([]string{"c"}, "c", "only the calls with this outcome (again: all)"),
		Subject:     bind([]string{"u"}, "u", "only the calls of this subject (again: all)"),
		Reload:      bind([]string{"r"}, "r", "read the ledger again"),
		Back:        bind([]string{"esc"}, "esc", "back (clears the search and filters first)"),
	}
}

func (k ledgerKeys) ShortHelp() []key.Binding {
	if k.searching {
		return []key.Binding{k.AcceptQuery, k.ClearQuery, bind([]string{"up"}, "↑/↓", "move")}
	}
	return []key.Binding{short(k.Open, "open"), short(k.Search, "search"), short(k.Tool, "tool"), short(k.Code, "code"),
		short(k.Subject, "subject"), short(k.Back, "back"), k.g.short(helpKey, "help")}
}

func (k ledgerKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.navKeys.column(), {k.Open, k.Search, k.AcceptQuery, k.ClearQuery, k.Tool, k.Code, k.Subject, k.Reload, k.Back}}
}

var (
	_ help.KeyMap = ledgerKeys{}
	_ screen      = (*ledgerScreen)(nil)
)
