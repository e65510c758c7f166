package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// The facets of the list, toggled with 1 to 6.
const (
	facetAvailable = iota
	facetDangerous
	facetReadOnly
	facetMainThread
	facetExclusive
	facetConfined
	numFacets
)

var facetNames = [numFacets]string{"available", "dangerous", "read-only", "main thread", "exclusive", "confined"}

// toolItem is one tool of the list with what the filter and the badges
// need, computed once.
type toolItem struct {
	tool tooling.Tool
	text filterText

	readOnly, mainThread, exclusive bool
	confined                        bool // runs in a confined child
	effects                         bool // side effects beyond reading
	dangerous, consent              bool
	disabled                        bool // refreshed by toggles and availability checks
}

func newToolItem(t tooling.Tool, reg *tooling.Registry) toolItem {
	m := &t.Meta
	it := toolItem{
		tool:       t,
		text:       newFilterText(t.Name, t.Title, t.Description, paramNames(t.Input)),
		readOnly:   m.Concurrency == tooling.ReadOnly,
		mainThread: m.Concurrency == tooling.MainThread,
		exclusive:  m.Concurrency == tooling.Exclusive,
		confined:   m.Confine != nil,
		effects:    m.Effects&(tooling.EffectWrite|tooling.EffectNetwork|tooling.EffectFilesystem|tooling.EffectProcess) != 0,
		dangerous:  dangerous(m),
		consent:    m.NeedsConsent(),
	}
	if p, err := reg.Policy(t.Name); err == nil {
		it.disabled = !p.Enabled
	}
	return it
}

// listScreen lists every tool, with a filter and facets.
type listScreen struct {
	c      *common
	keys   listKeys
	items  []toolItem
	shown  []int   // indexes into items, in display order
	ranked []int64 // scratch: -score<<32 | index, sorted ascending
	// matched are the tools matching query, before the facets: the
	// candidates when the next query extends this one.
	matched []int
	// recent keeps the matches of the last queries (they depend on the
	// tools' text only), so that backspace costs no search.
	recent map[string][]int
	cursor int // index into shown
	offset int // first row on screen
	filter textinput.Model
	query  string // the filter's words, as last applied
	facets [numFacets]bool
	// sources are the tools' sources with their counts; source is the one
	// shown (an index), or sourceAll or sourceOwn.
	sources []sourceCount
	source  int
	// registered is how many tools the registry had at the last reload,
	// the visible ones and those hidden from the principal.
	registered int
	w, h       int
}

func newListScreen(c *common) *listScreen {
	ti := newTextInput(c, "/ ")
	ti.Placeholder = "filter by name, title, description, parameter"
	l := &listScreen{c: c, keys: newListKeys(&c.global), filter: ti, source: sourceAll}
	l.keys.Problems.SetEnabled(len(c.problems) > 0)
	l.keys.Reload.SetEnabled(c.toolFiles != nil)
	l.keys.Shadow.SetEnabled(c.toolFiles != nil)
	l.reload()
	return l
}

// reload rebuilds the items from the registry, keeping the selection:
// the tools the registry's Authorizer shows the console's principal,
// calling from its origin, as tools/list and list show them.
func (l *listScreen) reload() {
	var sel string
	if it, ok := l.selected(); ok {
		sel = it.tool.Name
	}
	l.registered = len(l.c.reg.List(context.Background(), tooling.Filter{}))
	// Every tool, then those the principal sees from the origin: the
	// context may carry the principal the console started as, by which
	// List would narrow them, for origin app.
	tools := l.c.reg.List(context.Background(), tooling.Filter{})
	l.items = make([]toolItem, 0, len(tools))
	for _, t := range tools {
		if l.c.reg.Visible(l.c.principal, l.c.origin, t.Name) {
			l.items = append(l.items, newToolItem(t, l.c.reg))
		}
	}
	l.sources = countSources(l.items)
	if l.source >= len(l.sources) {
		l.source = sourceAll
	}
	l.recent = make(map[string][]int)
	l.matched = nil
	l.query = ""
	l.cursor = -1
	l.apply()
	if i := slices.IndexFunc(l.shown, func(i int) bool { return l.items[i].tool.Name == sel }); i >= 0 {
		l.cursor = i
		l.clamp()
	}
}

func (l *listScreen) Title() string { return "Tools" }

func (l *listScreen) Typing() bool { return l.filter.Focused() }

func (l *listScreen) KeyMap() help.KeyMap {
	k := l.keys
	k.typing = l.Typing()
	k.shadowOn = l.c.toolFiles != nil && l.c.toolFiles.Shadow()
	return k
}

func (l *listScreen) SetSize(w, h int) {
	l.w, l.h = w, h
	l.filter.SetWidth(max(w-26, 10)) // room for the prompt, the cursor and the count
	l.clamp()
}

// Show reloads when tools were added and re-checks availability.
func (l *listScreen) Show() tea.Cmd {
	if len(l.c.reg.List(context.Background(), tooling.Filter{})) != l.registered {
		l.reload()
	}
	return availabilityCmd(l.c, l.names())
}

func (l *listScreen) Hide() {}

func (l *listScreen) names() []string {
	out := make([]string, len(l.items))
	for i := range l.items {
		out[i] = l.items[i].tool.Name
	}
	return out
}

// selected returns the tool under the cursor.
func (l *listScreen) selected() (*toolItem, bool) {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return nil, false
	}
	return &l.items[l.shown[l.cursor]], true
}

func (l *listScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case availabilityMsg:
		for i := range l.items {
			if st, ok := msg.states[l.items[i].tool.Name]; ok {
				l.items[i].disabled = st.code == codes.Disabled
			}
		}
		if l.facets[facetAvailable] {
			l.apply()
		}
		return nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			l.move(-3)
		case tea.MouseWheelDown:
			l.move(3)
		}
		return nil
	case tea.KeyPressMsg:
		if l.filter.Focused() {
			return l.updateFilter(msg)
		}
		return l.updateKeys(msg)
	case tea.PasteMsg:
		if l.filter.Focused() {
			var cmd tea.Cmd
			l.filter, cmd = l.filter.Update(msg)
			l.applyQuery()
			return cmd
		}
	}
	return nil
}

func (l *listScreen) updateFilter(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, l.keys.AcceptQuery):
		l.filter.Blur()
		return nil
	case key.Matches(msg, l.keys.ClearQuery):
		l.filter.Blur()
		l.filter.SetValue("")
		l.applyQuery()
		return nil
	case msg.String() == "up":
		l.move(-1)
		return nil
	case msg.String() == "down":
		l.move(1)
		return nil
	case msg.String() == "pgup":
		l.move(-l.rows())
		return nil
	case msg.String() == "pgdown":
		l.move(l.rows())
		return nil
	}
	var cmd tea.Cmd
	l.filter, cmd = l.filter.Update(msg)
	l.applyQuery()
	return cmd
}

func (l *listScreen) updateKeys(msg tea.KeyPressMsg) tea.Cmd {
	k := l.keys
	switch {
	case key.Matches(msg, k.Up):
		l.move(-1)
	case key.Matches(msg, k.Down):
		l.move(1)
	case key.Matches(msg, k.Top):
		l.cursor = 0
		l.clamp()
	case key.Matches(msg, k.Bottom):
		l.cursor = len(l.shown) - 1
		l.clamp()
	case key.Matches(msg, k.PageUp):
		l.move(-l.rows())
	case key.Matches(msg, k.PageDown):
		l.move(l.rows())
	case key.Matches(msg, k.Filter):
		// A new filter: / never adds to the one kept.
		l.filter.SetValue("")
		l.applyQuery()
		return l.filter.Focus()
	case key.Matches(msg, k.Open):
		if it, ok := l.selected(); ok {
			return openDetailCmd(it.tool.Name)
		}
	case key.Matches(msg, k.Run):
		if it, ok := l.selected(); ok {
			return openRunCmd(it.tool.Name, nil, false)
		}
	case key.Matches(msg, k.Toggle):
		if it, ok := l.selected(); ok {
			return toggleTool(l.c, it.tool.Name, k.Toggle)
		}
	case key.Matches(msg, k.Problems):
		return msgCmd(openProblemsMsg{})
	case key.Matches(msg, k.Reload):
		return reloadToolFilesCmd(l.c.toolFiles)
	case key.Matches(msg, k.Shadow):
		return toggleShadow(l.c.toolFiles)
	case key.Matches(msg, k.ClearFacets):
		l.facets = [numFacets]bool{}
		l.source = sourceAll
		l.apply()
	case key.Matches(msg, k.Source):
		l.nextSource()
	case key.Matches(msg, k.Origin):
		return l.nextOrigin()
	case key.Matches(msg, k.CallAs):
		return promptCmd("Call as SUBJECT[@TENANT] [ROLE,...] (empty: "+l.c.home.String()+")", l.c.principal.String(), l.callAs)
	case key.Matches(msg, k.ClearQuery):
		if l.filter.Value() != "" {
			l.filter.SetValue("")
			l.applyQuery()
		}
	default:
		for i, b := range k.Facets {
			if key.Matches(msg, b) {
				l.facets[i] = !l.facets[i]
				l.apply()
				return nil
			}
		}
	}
	return nil
}

// toggleTool enables a disabled tool or disables an enabled one, and
// re-checks its availability; the status names again, the key that undoes it.
func toggleTool(c *common, name string, again key.Binding) tea.Cmd {
	p, err := c.reg.Policy(name)
	if err != nil {
		return statusCmd(err.Error(), true)
	}
	enable := !p.Enabled
	if err := c.reg.SetEnabled(name, enable); err != nil {
		return statusCmd(err.Error(), true)
	}
	text := name + " disabled at runtime: " + keyName(again) + " enables it again"
	if enable {
		text = name + " enabled"
		if p2, err := c.reg.Policy(name); err == nil && !p2.Enabled {
			text = name + " is still disabled: " + p2.DisabledReason
		}
	}
	return tea.Batch(statusCmd(text, false), availabilityCmd(c, []string{name}), msgCmd(toggledMsg{name: name}))
}

// refreshTool re-reads whether a tool is disabled.
func (l *listScreen) refreshTool(name string) {
	for i := range l.items {
		if l.items[i].tool.Name == name {
			if p, err := l.c.reg.Policy(name); err == nil {
				l.items[i].disabled = !p.Enabled
			}
		}
	}
	l.apply()
}

func (l *listScreen) applyQuery() {
	if q := strings.ToLower(strings.TrimSpace(l.filter.Value())); q != l.query {
		l.apply()
	}
}

// apply recomputes the shown tools from the query and the facets, keeping
// the cursor on the same tool when it is still shown.
func (l *listScreen) apply() {
	keep := -1
	if l.cursor >= 0 && l.cursor < len(l.shown) {
		keep = l.shown[l.cursor]
	}
	prev := l.query
	l.query = strings.ToLower(strings.TrimSpace(l.filter.Value()))
	q := parseQuery(l.query)
	l.shown = l.shown[:0]
	if len(q.words) == 0 {
		l.matched = nil
		for i := range l.items {
			if l.facetsMatch(&l.items[i]) {
				l.shown = append(l.shown, i)
			}
		}
	} else {
		l.matched = l.match(q, prev)
		for _, i := range l.matched {
			if l.facetsMatch(&l.items[i]) {
				l.shown = append(l.shown, i)
			}
		}
	}
	l.cursor = 0
	if keep >= 0 && len(q.words) == 0 {
		if i := slices.Index(l.shown, keep); i >= 0 {
			l.cursor = i
		}
	}
	l.offset = 0
	l.clamp()
}

// maxRecent bounds the queries whose matches are kept.
const maxRecent = 64

// match returns the tools matching q, best first: from the recent
// queries, or by searching the matches of prev when q extends it, or
// every tool.
func (l *listScreen) match(q query, prev string) []int {
	if m, ok := l.recent[l.query]; ok {
		return m
	}
	l.ranked = l.ranked[:0]
	score := func(i int) {
		if s := l.items[i].text.score(&q); s > 0 {
			l.ranked = append(l.ranked, int64(-s)<<32|int64(i))
		}
	}
	if narrows(prev, l.query) && prev != l.query {
		for _, i := range l.matched {
			score(i)
		}
	} else {
		for i := range l.items {
			score(i)
		}
	}
	slices.Sort(l.ranked)
	m := make([]int, len(l.ranked))
	for k, r := range l.ranked {
		m[k] = int(r & 0xffffffff)
	}
	if len(l.recent) >= maxRecent {
		clear(l.recent)
	}
	l.recent[l.query] = m
	return m
}

func (l *listScreen) facetsMatch(it *toolItem) bool {
	if !l.sourceMatches(it) {
		return false
	}
	f := &l.facets
	if f[facetAvailable] && (it.disabled || !l.available(it)) {
		return false
	}
	if f[facetConfined] && !it.confined {
		return false
	}
	if f[facetDangerous] && !it.dangerous {
		return false
	}
	// The concurrency facets are alternatives: with several on, a tool
	// matching any of them is shown.
	if f[facetReadOnly] || f[facetMainThread] || f[facetExclusive] {
		if !(f[facetReadOnly] && it.readOnly || f[facetMainThread] && it.mainThread || f[facetExclusive] && it.exclusive) {
			return false
		}
	}
	return true
}

// available is the last availability check of a tool; a tool not yet
// checked counts as available.
func (l *listScreen) available(it *toolItem) bool {
	st, ok := l.c.avail[it.tool.Name]
	return !ok || !st.checked || st.code == ""
}

// facetLine is the line of the list's facets, under the filter's.
const facetLine = 1

// facetLabels are the facets as the list shows them, with their keys:
// "1 available".
func facetLabels() []string {
	out := make([]string, numFacets)
	for i, name := range facetNames {
		out[i] = fmt.Sprintf("%d %s", i+1, name)
	}
	return out
}

// rows is the number of tool rows that fit.
func (l *listScreen) rows() int { return max(l.h-l.headerLines(), 1) }

// headerLines are the filter line, the facet line, the line of sources
// when there are several, and the column headings.
func (l *listScreen) headerLines() int {
	if len(l.sources) > 1 {
		return 4
	}
	return 3
}

func (l *listScreen) move(n int) {
	l.cursor += n
	l.clamp()
}

func (l *listScreen) clamp() {
	if l.cursor >= len(l.shown) {
		l.cursor = len(l.shown) - 1
	}
	if l.cursor < 0 {
		l.cursor = 0
	}
	rows := l.rows()
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+rows {
		l.offset = l.cursor - rows + 1
	}
	if l.offset > max(len(l.shown)-rows, 0) {
		l.offset = max(len(l.shown)-rows, 0)
	}
}

// statsWidth is the width of the call count and last latency column.
const statsWidth = 12

func (l *listScreen) View() string {
	st := l.c.styles
	var b strings.Builder

	// The filter line, with the count on the right.
	count := fmt.Sprintf("%d of %d tools", len(l.shown), len(l.items))
	if len(l.shown) == len(l.items) {
		count = fmt.Sprintf("%d tools", len(l.items))
	}
	count += " · as " + string(l.c.origin)
	if l.c.principal.Subject != "" {
		count += " · " + l.c.principal.String()
	}
	if n := len(l.c.problems); n > 0 {
		what := "load problems"
		if n == 1 {
			what = "load problem"
		}
		count = st.Warn.Render(fmt.Sprintf("%d %s (%s)", n, what, keyName(l.keys.Problems))) + st.Subtle.Render(" · "+count)
	} else {
		count = st.Subtle.Render(count)
	}
	countW := lipgloss.Width(count)
	var filter string
	switch {
	case l.filter.Focused():
		// The field takes the room the count leaves it (the count grows
		// with load problems and the principal), so that it is not cut.
		in := l.filter
		if room := l.w - countW - 1 - lipgloss.Width(in.Prompt) - 1; room < in.Width() {
			in.SetWidth(max(room, 1))
			in.SetCursor(in.Position()) // scrolls the text to the cursor in the new width
		}
		filter = in.View()
	case l.filter.Value() != "":
		// A kept filter does not look like a field: letters typed now
		// are commands.
		filter = st.Label.Render("filter ") + st.Bold.Render(strconv.Quote(l.filter.Value())) +
			st.Faint.Render(" · "+keyName(l.keys.Filter)+" new filter · "+keyName(l.keys.ClearQuery)+" clears it")
	default:
		filter = st.Faint.Render("press / to filter")
	}
	b.WriteString(pad(filter, max(l.w-countW-1, 0)) + " " + count)
	b.WriteByte('\n')

	// The facets, on line facetLine.
	var facets []string
	for i, label := range facetLabels() {
		if l.facets[i] {
			facets = append(facets, st.FacetOn.Render(label))
		} else {
			facets = append(facets, st.FacetOff.Render(label))
		}
	}
	b.WriteString(cut(strings.Join(facets, "  "), l.w))
	b.WriteByte('\n')
	if line := l.sourceLine(); line != "" {
		b.WriteString(line)
		b.WriteByte('\n')
	}

	end := min(l.offset+l.rows(), len(l.shown))
	nameW := l.nameWidth()
	badgeStrs := make([]string, 0, end-l.offset)
	badgeW := len("BADGES")
	for row := l.offset; row < end; row++ {
		bs := badges(l.c, &l.items[l.shown[row]])
		badgeStrs = append(badgeStrs, bs)
		badgeW = max(badgeW, lipgloss.Width(bs))
	}
	wide := l.w >= 60
	head := "  " + pad("NAME", nameW) + " " + pad("BADGES", badgeW)
	if wide {
		head += " " + padLeft("CALLS  LAST", statsWidth) + "  DESCRIPTION"
	}
	b.WriteString(st.Faint.Render(cut(head, l.w)))

	if len(l.shown) == 0 {
		b.WriteString("\n\n  ")
		if len(l.items) == 0 {
			b.WriteString(st.Subtle.Render("no tools are registered: is the package that defines them imported?"))
		} else {
			b.WriteString(st.Subtle.Render("no tool matches: esc clears the filter, 0 the facets"))
		}
		return b.String()
	}
	var calls map[string]tooling.ToolStats
	if wide {
		calls = make(map[string]tooling.ToolStats)
		for _, ts := range l.c.reg.Stats().Tools {
			calls[ts.Tool] = ts
		}
	}
	for row := l.offset; row < end; row++ {
		b.WriteByte('\n')
		b.WriteString(l.renderRow(&l.items[l.shown[row]], row == l.cursor, nameW, pad(badgeStrs[row-l.offset], badgeW), wide, calls))
	}
	return b.String()
}

// nameWidth is the width of the name column: the longest shown name,
// within bounds that leave room for the rest.
func (l *listScreen) nameWidth() int {
	longest := 4
	end := min(l.offset+l.rows(), len(l.shown))
	for row := l.offset; row < end; row++ {
		longest = max(longest, len(l.items[l.shown[row]].tool.Name))
	}
	limit := max(l.w/3, 16)
	return min(longest, limit)
}

// renderRow draws one tool's row; calls holds the counters of the tools
// called so far, by name (only needed when wide).
func (l *listScreen) renderRow(it *toolItem, selected bool, nameW int, badgeCol string, wide bool, calls map[string]tooling.ToolStats) string {
	st := l.c.styles
	marker := "  "
	if selected {
		marker = st.Cursor.Render("›") + " "
	}
	name := pad(it.tool.Name, nameW)
	if selected {
		name = st.Bold.Render(name)
	}
	line := marker + name + " " + badgeCol
	if wide {
		stats := st.Faint.Render("—")
		if ts, ok := calls[it.tool.Name]; ok && ts.Calls > 0 {
			stats = fmt.Sprintf("%d× %s", ts.Calls, formatDuration(ts.Last))
		}
		line += " " + padLeft(stats, statsWidth) + "  "
		rest := max(l.w-lipgloss.Width(line), 0)
		line += st.Subtle.Render(cut(describe(it.tool), rest))
	}
	if selected && st.color {
		// One highlight across the row: the segments' own colours would
		// end it early.
		return st.Selected.Render(pad(ansi.Strip(line), l.w))
	}
	return line
}

// describe is the title and the first line of the description.
func describe(t tooling.Tool) string {
	d := termtext.Line(firstLine(t.Description))
	switch {
	case t.Title == "":
		return d
	case d == "":
		return termtext.Line(t.Title)
	}
	return termtext.Line(t.Title) + " · " + d
}

// badges renders a tool's badges: its concurrency (ro, main, excl),
// confinement (jail), a tool of an MCP server (remote), side effects (fx), consent (consent), and why it cannot run (off when
// disabled, n/a when unavailable).
func badges(c *common, it *toolItem) string {
	st := c.styles
	var parts []string
	switch {
	case it.readOnly:
		parts = append(parts, st.BadgeRO.Render("ro"))
	case it.mainThread:
		parts = append(parts, st.BadgeMain.Render("main"))
	default:
		parts = append(parts, st.BadgeExcl.Render("excl"))
	}
	if it.confined {
		parts = append(parts, st.BadgeFx.Render("jail"))
	}
	if strings.HasPrefix(it.tool.Source, "mcp:") {
		parts = append(parts, st.BadgeMain.Render("remote"))
	}
	if it.effects {
		parts = append(parts, st.BadgeFx.Render("fx"))
	}
	if it.consent {
		parts = append(parts, st.BadgeConsent.Render("consent"))
	}
	if it.disabled {
		parts = append(parts, st.BadgeOff.Render("off"))
	} else if a, ok := c.avail[it.tool.Name]; ok && a.checked && a.code == codes.OriginDenied {
		parts = append(parts, st.BadgeUnavail.Render("⊘"+string(c.origin)))
	} else if ok && a.checked && a.code != "" {
		parts = append(parts, st.BadgeUnavail.Render("n/a"))
	}
	return strings.Join(parts, " ")
}
