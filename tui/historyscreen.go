package tui

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// The tabs of the history screen.
const (
	tabHistory = iota
	tabSaved
)

// historyScreen lists the calls, newest first: this session's, then the
// ones kept in the history store (earlier sessions, the command line),
// read lazily from the end of the store as the cursor goes down. Enter
// opens a call (its request and result, nothing re-run); r re-runs it, e
// edits it, s saves it under a name, x exports the calls shown, c, o and
// m copy it as a command line, Go or an MCP tools/call. Tab shows the
// saved calls, which enter runs.
type historyScreen struct {
	c    *common
	keys historyKeys
	tab  int

	items      []*callRecord // the calls shown, newest first
	reader     *history.Reader
	sessionIDs map[string]bool // call ids of this session: kept, but listed from memory
	session    []*callRecord   // this session's calls not listed yet, the last started first
	peek       *history.Entry  // the next kept call, read but not listed yet
	readErr    string
	// The index of the kept calls, once read (see historyIndex): searches
	// and G list from it. pos is the next of its entries to list.
	index      *historyIndex
	indexGen   int
	indexing   bool
	pos        int
	words      []string // the query's words
	waiting    bool     // a search waits for the index
	waitBottom bool     // G waits for the index
	search     textinput.Model
	searching  bool
	query      string

	saved    []history.Saved
	savedErr string

	cursor, offset int
	keepPlace      bool   // Show keeps the cursor (back from a call opened here)
	copied         string // the text last copied, shown in a panel
	format         string // what it was copied as
	w, h           int
}

func newHistoryScreen(c *common) *historyScreen {
	return &historyScreen{c: c, keys: newHistoryKeys(&c.global), search: newTextInput(c, "/ ")}
}

func (h *historyScreen) Title() string {
	if h.tab == tabSaved {
		return "Saved calls"
	}
	return "History"
}

func (h *historyScreen) Typing() bool { return h.searching }

func (h *historyScreen) KeyMap() help.KeyMap {
	k := h.keys
	k.tab, k.searching = h.tab, h.searching
	k.Ledger.SetEnabled(h.c.ledger != nil)
	return k
}

func (h *historyScreen) SetSize(w, ht int) {
	h.w, h.h = w, ht
	h.search.SetWidth(max(w-30, 10))
	h.clamp()
}

// Show lists the calls afresh; the place is kept when coming back from a
// call opened here.
func (h *historyScreen) Show() tea.Cmd {
	if !h.keepPlace {
		h.cursor, h.offset, h.tab = 0, 0, tabHistory
	}
	h.keepPlace = false
	cmd := h.indexCmd()
	h.reload()
	h.loadSaved()
	h.clamp()
	return cmd
}

// indexCmd reads the kept calls into an index, unless the index read
// last still holds the store as it is.
func (h *historyScreen) indexCmd() tea.Cmd {
	store := h.c.store
	if store == nil || h.indexing {
		return nil
	}
	if h.index != nil && !h.index.stale(store) {
		return nil
	}
	h.index = nil
	h.indexing = true
	h.indexGen++
	return indexHistoryCmd(store, h.indexGen)
}

// indexed takes the index read in the background, and lists from it the
// search or the bottom that waited for it.
func (h *historyScreen) indexed(msg historyIndexMsg) {
	if msg.gen != h.indexGen {
		return
	}
	h.indexing, h.index = false, msg.index
	if !h.waiting && !h.waitBottom {
		return
	}
	h.waiting = false
	h.reload()
	if h.waitBottom {
		h.waitBottom = false
		h.fill(math.MaxInt)
		h.cursor = math.MaxInt / 2
	}
	h.clamp()
}

// Hide closes the store until the screen shows again.
func (h *historyScreen) Hide() { h.closeReader() }

func (h *historyScreen) closeReader() {
	if h.reader != nil {
		h.reader.Close()
		h.reader = nil
	}
}

// reload lists afresh the calls that match the query: this session's and
// the kept ones, merged in the order they started, read as the list needs
// them.
func (h *historyScreen) reload() {
	h.closeReader()
	h.items, h.readErr, h.session, h.peek = h.items[:0], "", h.session[:0], nil
	h.sessionIDs = make(map[string]bool, len(h.c.history))
	for i := len(h.c.history) - 1; i >= 0; i-- {
		rec := h.c.history[i]
		h.sessionIDs[h.c.callID(rec.seq)] = true
		e := history.Entry{Tool: rec.tool, Args: rec.args, Result: rec.result}
		if history.Matches(&e, h.query) {
			h.session = append(h.session, rec)
		}
	}
	h.words, h.pos, h.waiting = searchWords(h.query), 0, false
	if h.c.store == nil {
		return
	}
	if h.index != nil {
		h.readErr = h.index.err
		return
	}
	if h.query != "" && h.indexing {
		h.waiting = true // listed when the index is read
		return
	}
	r, err := h.c.store.Newest()
	if err != nil {
		h.readErr = err.Error()
		return
	}
	h.reader = r
}

// fill lists calls until n are listed or none is left: of this session's
// and the kept ones, the one that started last first.
func (h *historyScreen) fill(n int) {
	for len(h.items) < n {
		if h.peek == nil {
			h.peek = h.nextKept()
		}
		switch {
		case len(h.session) > 0 && (h.peek == nil || !h.session[0].started.Before(h.peek.Time)):
			h.items = append(h.items, h.session[0])
			h.session = h.session[1:]
		case h.peek != nil:
			h.items = append(h.items, keptRecord(h.peek))
			h.peek = nil
		default:
			return
		}
	}
}

// nextKept reads the next kept call that matches the query and is not of
// this session, nil after the last.
func (h *historyScreen) nextKept() *history.Entry {
	if ix := h.index; ix != nil {
		for h.pos < len(ix.entries) {
			i := h.pos
			h.pos++
			e := &ix.entries[i]
			if e.Result != nil && h.sessionIDs[e.Result.CallID] {
				continue
			}
			if ix.matches(i, h.words) {
				return e
			}
		}
		return nil
	}
	for h.reader != nil {
		e, err := h.reader.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				h.readErr = err.Error()
			}
			h.closeReader()
			return nil
		}
		if e.Result != nil && h.sessionIDs[e.Result.CallID] {
			continue
		}
		if history.Matches(&e, h.query) {
			return &e
		}
	}
	return nil
}

// keptRecord is a call read from the store, as the screens show calls.
func keptRecord(e *history.Entry) *callRecord {
	return &callRecord{tool: e.Tool, args: e.Args, consent: e.Consent, started: e.Time, result: e.Result, kept: e, idemKey: e.IdempotencyKey, env: e.Env}
}

func (h *historyScreen) loadSaved() {
	h.saved, h.savedErr = nil, ""
	if h.c.saved == nil {
		return
	}
	list, err := h.c.saved.List()
	if err != nil {
		h.savedErr = err.Error()
	}
	h.saved = list
}

// selected returns the call under the cursor.
func (h *historyScreen) selected() (*callRecord, bool) {
	if h.tab != tabHistory || h.cursor < 0 || h.cursor >= len(h.items) {
		return nil, false
	}
	return h.items[h.cursor], true
}

func (h *historyScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyIndexMsg:
		h.indexed(msg)
		return nil
	case savedChangedMsg:
		h.loadSaved()
		h.clamp()
		return nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			h.cursor -= 3
		case tea.MouseWheelDown:
			h.cursor += 3
		}
		h.clamp()
		return nil
	case tea.KeyPressMsg:
		if h.searching {
			return h.updateSearch(msg)
		}
		cmd := h.updateKey(msg)
		h.clamp()
		return cmd
	}
	if h.searching { // a paste, the cursor's blink
		var cmd tea.Cmd
		h.search, cmd = h.search.Update(msg)
		h.applyQuery()
		return cmd
	}
	return nil
}

// updateSearch edits the query; the list follows each key. enter keeps
// the query, esc clears it.
func (h *historyScreen) updateSearch(msg tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, h.keys.AcceptQuery):
		h.searching = false
		h.search.Blur()
		return nil
	case key.Matches(msg, h.keys.ClearQuery):
		h.searching = false
		h.search.Blur()
		h.search.SetValue("")
	default:
		h.search, cmd = h.search.Update(msg)
	}
	h.applyQuery()
	return cmd
}

// applyQuery lists the calls that match the search as typed.
func (h *historyScreen) applyQuery() {
	if q := h.search.Value(); q != h.query {
		h.query = q
		h.cursor, h.offset = 0, 0
		h.reload()
		h.clamp()
	}
}

func (h *historyScreen) updateKey(msg tea.KeyPressMsg) tea.Cmd {
	k := h.keys
	switch {
	case key.Matches(msg, k.Up):
		h.cursor--
	case key.Matches(msg, k.Down):
		h.cursor++
	case key.Matches(msg, k.Top):
		h.cursor = 0
	case key.Matches(msg, k.Bottom):
		if h.tab == tabHistory {
			switch {
			case h.index == nil && h.indexing:
				h.waitBottom = true // the whole store is read once, off this goroutine
			case h.index != nil && h.reader != nil:
				h.reload() // list from the index, which holds what the reader would read
				fallthrough
			default:
				h.fill(math.MaxInt)
			}
		}
		h.cursor = math.MaxInt / 2
	case key.Matches(msg, k.PageUp):
		h.cursor -= h.rows()
	case key.Matches(msg, k.PageDown):
		h.cursor += h.rows()
	case key.Matches(msg, k.Tab):
		h.tab = 1 - h.tab
		h.cursor, h.offset = 0, 0
		h.copied = ""
	case key.Matches(msg, k.Back):
		if h.query != "" && h.tab == tabHistory {
			h.query = ""
			h.search.SetValue("")
			h.cursor, h.offset = 0, 0
			h.reload()
			return nil
		}
		return backCmd
	case h.tab == tabSaved:
		return h.updateSaved(msg)
	case key.Matches(msg, k.Search):
		// A new search: / never adds to the one kept.
		h.searching = true
		h.search.SetValue("")
		h.applyQuery()
		return h.search.Focus()
	case key.Matches(msg, k.Open):
		if rec, ok := h.selected(); ok {
			h.keepPlace = true
			return msgCmd(openCallMsg{rec: rec})
		}
	case key.Matches(msg, k.Rerun):
		if rec, ok := h.selected(); ok {
			return againCmd(rec, true)
		}
	case key.Matches(msg, k.Edit):
		if rec, ok := h.selected(); ok {
			return againCmd(rec, false)
		}
	case key.Matches(msg, k.Save):
		if rec, ok := h.selected(); ok {
			return saveCallPrompt(h.c, rec)
		}
	case key.Matches(msg, k.Export):
		return exportPrompt(h.c, h.query)
	case key.Matches(msg, k.CopyCLI):
		return h.copy("command line", commandLine)
	case key.Matches(msg, k.CopyGo):
		return h.copy("Go", goCall)
	case key.Matches(msg, k.CopyMCP):
		return h.copy("MCP tools/call", mcpCall)
	case key.Matches(msg, k.Diff):
		if rec, ok := h.selected(); ok {
			return markOrDiffCmd(h.c, rec, k.Diff)
		}
	case key.Matches(msg, k.Ledger):
		if rec, ok := h.selected(); ok {
			return ledgerOfCmd(h.c, rec)
		}
	}
	return nil
}

// updateSaved handles the keys of the saved calls: enter runs one.
func (h *historyScreen) updateSaved(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, h.keys.ExportSaved):
		return exportSavedPrompt(h.c)
	case key.Matches(msg, h.keys.Import):
		return importPrompt(h.c)
	}
	if h.cursor < 0 || h.cursor >= len(h.saved) {
		return nil
	}
	s := h.saved[h.cursor]
	switch {
	case key.Matches(msg, h.keys.RunSaved):
		return againCmd(savedRecord(s), true)
	case key.Matches(msg, h.keys.Edit):
		return againCmd(savedRecord(s), false)
	case key.Matches(msg, h.keys.Delete):
		coll := h.c.saved
		return func() tea.Msg {
			if err := coll.Delete(s.Path()); err != nil {
				return statusMsg{text: err.Error(), isErr: true}
			}
			return tea.BatchMsg{msgCmd(savedChangedMsg{}), statusCmd("deleted the saved call "+strconv.Quote(s.Path()), false)}
		}
	}
	return nil
}

// savedRecord is a saved call as a call to make again.
func savedRecord(s history.Saved) *callRecord {
	return &callRecord{tool: s.Tool, args: s.Args, consent: s.Consent, idemKey: s.IdempotencyKey}
}

// copy puts the selected call, formatted, on the clipboard (OSC 52) and in
// the panel, for terminals that ignore OSC 52.
func (h *historyScreen) copy(format string, f func(*callRecord, *tooling.Tool, *common) string) tea.Cmd {
	rec, ok := h.selected()
	if !ok {
		return statusCmd("no call to copy yet", true)
	}
	t, _ := h.c.reg.Lookup(rec.tool)
	text := f(rec, &t, h.c)
	if len(text) > maxOSC52 { // offered as a file
		return clipboardCmd(h.c, text, rec.name()+" as "+format)
	}
	h.copied, h.format = text, format
	h.clamp()
	return tea.Batch(tea.SetClipboard(h.copied), statusCmd("copied "+rec.name()+" as "+format, false))
}

// panelLines is the height of the copy panel.
func (h *historyScreen) panelLines() int {
	if h.copied == "" {
		return 0
	}
	return strings.Count(h.panel(), "\n") + 2
}

func (h *historyScreen) panel() string {
	st := h.c.styles
	text := ansi.Wrap(h.copied, max(h.w-4, 20), "")
	lines := strings.Split(text, "\n")
	if len(lines) > 6 {
		lines = append(lines[:6], "…")
	}
	title := st.Label.Render("Copied as " + h.format + " (also sent to the clipboard with OSC 52):")
	return title + "\n" + st.Panel.Width(max(h.w, 20)).Render(strings.Join(lines, "\n"))
}

// rows is how many calls fit: the tab line and the column heads take two.
func (h *historyScreen) rows() int { return max(h.h-2-h.panelLines(), 1) }

func (h *historyScreen) count() int {
	if h.tab == tabSaved {
		return len(h.saved)
	}
	return len(h.items)
}

func (h *historyScreen) clamp() {
	rows := h.rows()
	if h.tab == tabHistory {
		h.fill(max(h.cursor, h.offset) + rows + 1)
	}
	n := h.count()
	h.cursor = min(max(h.cursor, 0), max(n-1, 0))
	if h.cursor < h.offset {
		h.offset = h.cursor
	}
	if h.cursor >= h.offset+rows {
		h.offset = h.cursor - rows + 1
	}
	h.offset = max(min(h.offset, n-rows), 0)
}

// tabLine names the two tabs, and the search.
func (h *historyScreen) tabLine() string {
	st := h.c.styles
	names := []string{"History", "Saved (" + strconv.Itoa(len(h.saved)) + ")"}
	for i := range names {
		if i == h.tab {
			names[i] = st.TabActive.Render(names[i])
		} else {
			names[i] = st.TabInactive.Render(names[i])
		}
	}
	line := strings.Join(names, st.Faint.Render(" │ "))
	switch {
	case h.tab != tabHistory:
	case h.waiting || h.waitBottom:
		if h.searching {
			line += "  " + h.search.View()
		}
		line += st.Faint.Render("  reading the kept calls…")
	case h.searching:
		line += "  " + h.search.View()
	case h.query != "":
		line += "  " + st.Bold.Render("/ "+h.query) + st.Faint.Render("  ("+keyName(h.keys.Search)+" new search · "+keyName(h.keys.Back)+" clears)")
	case h.c.store == nil:
		line += st.Faint.Render("  this session only (no history file)")
	default:
		line += st.Faint.Render("  / search · tab saved calls")
	}
	return line
}

func (h *historyScreen) View() string {
	if h.tab == tabSaved {
		return h.savedView()
	}
	st := h.c.styles
	var b strings.Builder
	b.WriteString(h.tabLine())
	b.WriteByte('\n')
	n := len(h.items)
	if n == 0 {
		switch {
		case h.readErr != "":
			b.WriteString(st.Err.Render(h.readErr))
		case h.waiting:
			b.WriteString(st.Subtle.Render("searching the kept calls…"))
		case h.query != "":
			b.WriteString(st.Subtle.Render("no call matches " + strconv.Quote(h.query)))
		default:
			b.WriteString(st.Subtle.Render("no calls yet: choose a tool, press r, then ctrl+s to run it"))
		}
		return b.String()
	}
	toolW := 4
	end := min(h.offset+h.rows(), n)
	for _, rec := range h.items[h.offset:end] {
		toolW = max(toolW, len(rec.tool))
	}
	toolW = min(toolW, max(h.w/4, 12))
	const timeW, resultW, tookW = 12, 22, 7
	b.WriteString(st.Faint.Render(cut("  "+pad("TIME", timeW)+"  "+pad("TOOL", toolW)+"  "+pad("RESULT", resultW)+" "+padLeft("TOOK", tookW)+"  ARGS", h.w)))
	now := h.c.now()
	for row := h.offset; row < end; row++ {
		rec := h.items[row]
		marker := "  "
		if row == h.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		result, took := st.Status.Render("… running"), ""
		if res := rec.result; res != nil {
			took = formatDuration(res.Wait + res.Run)
			result = outcomeBadge(st, res)
		}
		if rec.consent {
			result += st.Faint.Render(" +consent")
		}
		line := marker + pad(callTime(rec.started, now), timeW) + "  " + pad(rec.tool, toolW) + "  " + pad(result, resultW) + " " + padLeft(took, tookW) + "  "
		line += st.Subtle.Render(cut(termtext.Line(head(rec.args, 4*h.w)), max(h.w-width(line), 0)))
		b.WriteByte('\n')
		b.WriteString(line)
	}
	if h.copied != "" {
		for i := end - h.offset; i < h.rows(); i++ {
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
		b.WriteString(h.panel())
	}
	return b.String()
}

func (h *historyScreen) savedView() string {
	st := h.c.styles
	var b strings.Builder
	b.WriteString(h.tabLine())
	b.WriteByte('\n')
	switch {
	case h.savedErr != "":
		b.WriteString(st.Err.Render(h.savedErr))
		return b.String()
	case h.c.saved == nil:
		b.WriteString(st.Subtle.Render("saved calls are off"))
		return b.String()
	case len(h.saved) == 0:
		b.WriteString(st.Subtle.Render("no saved calls: s on a call in the history or on a result names it and keeps it in " + h.c.saved.Path()))
		return b.String()
	}
	nameW, toolW := 4, 4
	for _, s := range h.saved {
		nameW, toolW = max(nameW, width(s.Path())), max(toolW, len(s.Tool))
	}
	nameW, toolW = min(nameW, max(h.w/3, 12)), min(toolW, max(h.w/4, 12))
	b.WriteString(st.Faint.Render(cut("  "+pad("FOLDER/NAME", nameW)+"  "+pad("TOOL", toolW)+"  ARGS", h.w)))
	end := min(h.offset+h.rows(), len(h.saved))
	for row := h.offset; row < end; row++ {
		s := h.saved[row]
		marker := "  "
		if row == h.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		name := termtext.Line(s.Name)
		if s.Folder != "" {
			name = st.Subtle.Render(termtext.Line(s.Folder)+"/") + name
		}
		line := marker + pad(name, nameW) + "  " + pad(s.Tool, toolW) + "  "
		line += st.Subtle.Render(cut(termtext.Line(string(s.Args)), max(h.w-width(line), 0)))
		b.WriteByte('\n')
		b.WriteString(line)
	}
	return b.String()
}

// head is the start of text, at most n bytes of it (whole characters):
// enough for a row, however long the text.
func head(text []byte, n int) string {
	if len(text) <= n {
		return string(text)
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return string(text[:n])
}

// outcomeBadge is a result's outcome in a few columns: ✓ ok, ⊘ code, ✗ code.
func outcomeBadge(st *styles, res *tooling.Result) string {
	switch res.Status {
	case "ok":
		return st.OK.Render("✓ ok")
	case "denied":
		return st.Err.Render("⊘ " + string(res.Code))
	}
	return st.Err.Render("✗ " + string(res.Code))
}

// callTime is when a call started, in now's zone: the time of day for a
// call of today, the date too for an older one.
func callTime(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(now.Location())
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("Jan 02 15:04")
}

// saveCallPrompt asks for a name and keeps rec under it in the saved
// calls.
func saveCallPrompt(c *common, rec *callRecord) tea.Cmd {
	if c.saved == nil {
		return statusCmd("saved calls are off", true)
	}
	coll, tool, args := c.saved, rec.tool, rec.args
	var schema json.RawMessage
	if t, ok := c.reg.Lookup(tool); ok {
		schema = t.Input
	}
	now := c.now()
	s := history.Saved{Tool: tool, Args: args, Consent: rec.consent, IdempotencyKey: rec.idemKey, Time: now}
	return promptCmd("Save this call of "+tool+" as (folder/name files it in a folder)", tool, func(path string) tea.Cmd {
		s.Folder, s.Name = history.SplitPath(path)
		if s.Name == "" {
			return statusCmd("not saved: a saved call needs a name", true)
		}
		return func() tea.Msg {
			if err := coll.Save(s, schema); err != nil {
				return statusMsg{text: err.Error(), isErr: true}
			}
			return tea.BatchMsg{msgCmd(savedChangedMsg{}), statusCmd("saved as "+strconv.Quote(s.Path())+" (H, then tab, lists the saved calls)", false)}
		}
	})
}

// exportSavedPrompt asks for a file and writes the saved calls to it as a
// collection file (YAML by a .yaml or .yml name, else JSON), which a team
// keeps in its repository and checks with collection run.
func exportSavedPrompt(c *common) tea.Cmd {
	if c.saved == nil {
		return statusCmd("saved calls are off", true)
	}
	coll := c.saved
	return promptCmd("Export the saved calls as a collection file (.json, .yaml)", "collection.json", func(path string) tea.Cmd {
		path = strings.TrimSpace(path)
		if path == "" {
			return statusCmd("not exported: no file named", true)
		}
		return func() tea.Msg {
			n, err := coll.Export(path)
			if err != nil {
				return statusMsg{text: err.Error(), isErr: true}
			}
			return statusMsg{text: "exported " + plural(n, "saved call") + " to " + path + " (toolexplorer collection run " + path + " checks them)"}
		}
	})
}

// importPrompt asks for a collection file and saves its calls.
func importPrompt(c *common) tea.Cmd {
	if c.saved == nil {
		return statusCmd("saved calls are off", true)
	}
	coll, now := c.saved, c.now()
	return promptCmd("Import the calls of the collection file", "collection.json", func(path string) tea.Cmd {
		path = strings.TrimSpace(path)
		if path == "" {
			return statusCmd("not imported: no file named", true)
		}
		return func() tea.Msg {
			n, err := coll.Import(path, now)
			if err != nil {
				return statusMsg{text: err.Error(), isErr: true}
			}
			return tea.BatchMsg{msgCmd(savedChangedMsg{}), statusCmd("imported "+plural(n, "call")+" from "+path, false)}
		}
	})
}

// exportPrompt asks for a file and writes to it, as JSON Lines (oldest
// first), the kept calls that match query.
func exportPrompt(c *common, query string) tea.Cmd {
	if c.store == nil {
		return statusCmd("no history file to export from", true)
	}
	store := c.store
	def := filepath.Join(filepath.Dir(store.Path()), "export-"+c.now().Format("20060102-150405")+".jsonl")
	return promptCmd("Export the calls shown, as JSON Lines, to", def, func(path string) tea.Cmd {
		path = strings.TrimSpace(path)
		if path == "" {
			return statusCmd("not exported: no file named", true)
		}
		return func() tea.Msg {
			n, err := history.Export(store, path, func(e *history.Entry) bool { return history.Matches(e, query) })
			if err != nil {
				return statusMsg{text: err.Error(), isErr: true}
			}
			return statusMsg{text: "exported " + plural(n, "call") + " to " + path}
		}
	})
}

// openCallMsg opens a call's request and result.
type openCallMsg struct{ rec *callRecord }

// savedChangedMsg says the saved calls changed.
type savedChangedMsg struct{}
