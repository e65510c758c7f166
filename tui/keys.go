package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

func bind(keys []string, helpKey, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKey, desc))
}

// short is b with a shorter description, for the one-line help.
func short(b key.Binding, desc string) key.Binding {
	b.SetHelp(b.Help().Key, desc)
	return b
}

// globalKeys work on every screen. Quit, Help, History, Board and Runs are
// single characters, so they are off while a text field has the focus;
// ForceQuit and HelpAlways always work.
type globalKeys struct {
	Quit       key.Binding
	ForceQuit  key.Binding
	Help       key.Binding
	HelpAlways key.Binding
	History    key.Binding
	Board      key.Binding
	Runs       key.Binding
	Servers    key.Binding
	Ledger     key.Binding
	// Environments lists the environments of variables and chooses one.
	Environments key.Binding
	Tools        key.Binding
	Palette      key.Binding
	// PaletteAlways opens the palette while a text field has the focus too.
	PaletteAlways key.Binding
	Back          key.Binding
	Left          key.Binding // back too, on the screens that edit nothing (leftGoesBack)
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit:          bind([]string{"q"}, "q", "quit (asks off the list)"),
		ForceQuit:     bind([]string{"ctrl+c"}, "ctrl+c", "quit (a call in flight is canceled first)"),
		Help:          bind([]string{"?"}, "?", "full help"),
		HelpAlways:    bind([]string{"f1"}, "f1", "full help"),
		History:       bind([]string{"H"}, "H", "call history"),
		Board:         bind([]string{"B"}, "B", "governance board"),
		Runs:          bind([]string{"R"}, "R", "calls running in the background"),
		Servers:       bind([]string{"S"}, "S", "MCP servers"),
		Ledger:        bind([]string{"E"}, "E", "ledger: the evidence of every call"),
		Environments:  bind([]string{"V"}, "V", "environments of {{variables}}: view, choose"),
		Tools:         bind([]string{"~"}, "~", "back to the tool list"),
		Palette:       bind([]string{":"}, ":", "command palette"),
		PaletteAlways: bind([]string{"ctrl+p"}, "ctrl+p", "command palette"),
		Back:          bind([]string{"esc"}, "esc", "back"),
		Left:          bind([]string{"h", "left"}, "h/←", "back, where nothing is edited"),
	}
}

// short is the binding b of the global keys for a footer, with a shorter
// description: a footer shows the keys as the config bound them.
func (g *globalKeys) short(b func(*globalKeys) key.Binding, desc string) key.Binding {
	return short(b(g), desc)
}

func helpKey(g *globalKeys) key.Binding  { return g.Help }
func backKey(g *globalKeys) key.Binding  { return g.Back }
func runsKey(g *globalKeys) key.Binding  { return g.Runs }
func boardKey(g *globalKeys) key.Binding { return g.Board }
func helpAlwaysKey(g *globalKeys) key.Binding {
	return g.HelpAlways
}

// keyName is the first key of b as its help shows it, for a sentence:
// "R lists the running calls".
func keyName(b key.Binding) string {
	k := b.Help().Key
	if first, _, _ := strings.Cut(k, "/"); first != "" {
		return first
	}
	return k // "/" itself
}

// moveKey is up and down as one entry of a footer, "↑/↓ move".
func moveKey(up, down key.Binding, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(append(slices.Clone(up.Keys()), down.Keys()...)...),
		key.WithHelp(keyName(up)+"/"+keyName(down), desc))
}

// Navigation shared by the scrolling screens.
type navKeys struct {
	Up       key.Binding
	Down     key.Binding
	Top      key.Binding
	Bottom   key.Binding
	PageUp   key.Binding
	PageDown key.Binding
}

func newNavKeys() navKeys {
	return navKeys{
		Up:       bind([]string{"up", "k"}, "↑/k", "up"),
		Down:     bind([]string{"down", "j"}, "↓/j", "down"),
		Top:      bind([]string{"g", "home"}, "g/home", "top"),
		Bottom:   bind([]string{"G", "end"}, "G/end", "bottom"),
		PageUp:   bind([]string{"pgup", "ctrl+u"}, "pgup", "page up"),
		PageDown: bind([]string{"pgdown", "ctrl+d", "space"}, "pgdn", "page down"),
	}
}

func (k navKeys) column() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Top, k.Bottom, k.PageUp, k.PageDown}
}

// listKeys are the keys of the tool list.
type listKeys struct {
	navKeys
	Filter      key.Binding
	AcceptQuery key.Binding
	ClearQuery  key.Binding
	Open        key.Binding
	Run         key.Binding
	Toggle      key.Binding
	Facets      [numFacets]key.Binding
	ClearFacets key.Binding
	Source      key.Binding
	Origin      key.Binding
	CallAs      key.Binding
	Problems    key.Binding // on only when something went wrong while loading
	Reload      key.Binding // on only with tools files
	Shadow      key.Binding // on only with tools files
	typing      bool
	shadowOn    bool // shadow mode is on: the short help says so
	g           *globalKeys
}

func newListKeys(g *globalKeys) listKeys {
	k := listKeys{
		g:           g,
		navKeys:     newNavKeys(),
		Filter:      bind([]string{"/"}, "/", "filter"),
		AcceptQuery: bind([]string{"enter", "tab"}, "enter", "keep filter"),
		ClearQuery:  bind([]string{"esc"}, "esc", "clear filter"),
		Open:        bind([]string{"enter", "right", "l"}, "enter", "details"),
		Run:         bind([]string{"r"}, "r", "run"),
		Toggle:      bind([]string{"e"}, "e", "enable/disable"),
		ClearFacets: bind([]string{"0"}, "0", "clear facets"),
		Source:      bind([]string{"s"}, "s", "next source"),
		Origin:      bind([]string{"o"}, "o", "next origin"),
		CallAs:      bind([]string{"A"}, "A", "call as another subject or tenant"),
		Problems:    bind([]string{"P"}, "P", "load problems"),
		Reload:      bind([]string{"L"}, "L", "reload tools files"),
		Shadow:      bind([]string{"W"}, "W", "shadow mode for writes on/off"),
	}
	k.Problems.SetEnabled(false)
	k.Reload.SetEnabled(false)
	k.Shadow.SetEnabled(false)
	for i, f := range facetNames {
		n := string(rune('1' + i))
		k.Facets[i] = bind([]string{n}, n, f)
	}
	return k
}

func (k listKeys) ShortHelp() []key.Binding {
	if k.typing {
		return []key.Binding{k.AcceptQuery, k.ClearQuery, bind([]string{"up"}, "↑/↓", "move")}
	}
	// Shadow mode's state is one word, which shortening keeps whole; it
	// and the problems come before the facets, which a narrow footer
	// leaves out first.
	out := []key.Binding{k.Filter, short(k.Open, "open"), k.Run, short(k.Toggle, "on/off")}
	if k.Shadow.Enabled() {
		if k.shadowOn {
			out = append(out, short(k.Shadow, "shadow:ON"))
		} else {
			out = append(out, short(k.Shadow, "shadow:off"))
		}
	}
	if k.Problems.Enabled() {
		out = append(out, short(k.Problems, "problems"))
	}
	return append(out, k.facetsKey(), k.g.short(helpKey, "help"))
}

// facetsKey is the facets as one entry of the footer: "1-6" while they
// are the keys 1 to 6, else the keys of the first and the last.
func (k listKeys) facetsKey() key.Binding {
	first, last := k.Facets[0], k.Facets[numFacets-1]
	return key.NewBinding(key.WithKeys(first.Keys()...), key.WithHelp(keyName(first)+"-"+keyName(last), "facets"))
}

func (k listKeys) FullHelp() [][]key.Binding {
	facets := append(k.Facets[:], k.ClearFacets, k.Source, k.Origin, k.CallAs)
	return [][]key.Binding{
		k.navKeys.column(),
		{k.Filter, k.AcceptQuery, k.ClearQuery, k.Open, k.Run, k.Toggle, k.Problems, k.Reload, k.Shadow},
		facets,
	}
}

// detailKeys are the keys of a tool's detail screen.
type detailKeys struct {
	navKeys
	NextPane key.Binding
	PrevPane key.Binding
	Run      key.Binding
	Toggle   key.Binding
	g        *globalKeys
}

func newDetailKeys(g *globalKeys) detailKeys {
	return detailKeys{
		g:        g,
		navKeys:  newNavKeys(),
		NextPane: bind([]string{"tab", "right", "l"}, "tab", "next pane"),
		PrevPane: bind([]string{"shift+tab", "left", "h"}, "shift+tab", "previous pane"),
		Run:      bind([]string{"r", "enter"}, "r/enter", "run"),
		Toggle:   bind([]string{"e"}, "e", "enable/disable"),
	}
}

func (k detailKeys) ShortHelp() []key.Binding {
	return []key.Binding{short(k.NextPane, "pane"), k.Run, short(k.Toggle, "on/off"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k detailKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.navKeys.column(), {k.NextPane, k.PrevPane, k.Run, k.Toggle}}
}

// runKeys are the keys of the run screen; which are on depends on the
// phase (editing, running, result). While editing, the editor's own keys
// (its KeyMap) do the rest: moving, typing, submitting.
type runKeys struct {
	Cancel     key.Binding
	Edit       key.Binding
	Again      key.Binding
	Save       key.Binding
	Background key.Binding
	Back       key.Binding
	Left       key.Binding // back from the result, as esc
	IdemKey    key.Binding // on for a tool that takes idempotency keys
	Preflight  key.Binding
	SaveForm   key.Binding // saves the arguments being edited
	out        viewer.Keys // the result's output viewer
	phase      runPhase
	editor     argsEditor
	searching  bool          // the result's search line or filter line has the focus
	line       []key.Binding // the keys of that line
	// idemFocused: the idempotency key has the focus.
	idemFocused bool
	g           *globalKeys
}

func newRunKeys(g *globalKeys) runKeys {
	return runKeys{
		g:          g,
		Cancel:     bind([]string{"esc"}, "esc", "cancel the call"),
		Edit:       bind([]string{"e"}, "e", "edit the arguments"),
		Again:      bind([]string{"r"}, "r", "run again"),
		Save:       bind([]string{"s"}, "s", "save the call under a name"),
		Background: bind([]string{"b"}, "b", "back, leaving the call running in the background"),
		Back:       bind([]string{"esc"}, "esc", "back"),
		Left:       bind([]string{"h", "left"}, "h/←", "back to the arguments"),
		IdemKey:    bind([]string{"ctrl+g"}, "ctrl+g", "idempotency key (tools that take keys)"),
		Preflight:  bind([]string{"ctrl+l"}, "ctrl+l", "preflight steps shown/hidden"),
		SaveForm:   bind([]string{"alt+s"}, "alt+s", "save the call as edited (folder/name files it)"),
		out:        viewer.DefaultKeys(),
	}
}

// back is esc while editing: off when the editor takes esc itself (raw
// JSON, an open picker), whose key map then says what esc does.
func (k runKeys) back() key.Binding {
	b := k.Back
	b.SetEnabled(k.editor == nil || !k.editor.Capturing())
	return b
}

func (k runKeys) ShortHelp() []key.Binding {
	switch k.phase {
	case phaseRunning:
		return []key.Binding{k.Cancel, short(k.Background, "background"), k.g.short(runsKey, "runs"), k.g.short(boardKey, "governance")}
	case phaseResult:
		if k.searching {
			return k.line
		}
		fold := k.out.Fold
		fold.SetHelp("␣", "fold")
		return []key.Binding{short(k.Edit, "edit"), short(k.Again, "again"), fold, short(k.out.Search, "search"),
			short(k.out.Copy, "copy"), short(k.out.Open, "pager"), k.Back}
	}
	if k.idemFocused {
		return []key.Binding{bind([]string{"enter"}, "enter/esc", "back to the form"), bind([]string{"ctrl+s"}, "ctrl+s", "run")}
	}
	var out []key.Binding
	if k.editor != nil {
		out = k.editor.KeyMap().ShortHelp()
	}
	if k.IdemKey.Enabled() {
		out = append(out, short(k.IdemKey, "key"))
	}
	return append(out, k.back(), k.g.short(helpAlwaysKey, "help"))
}

func (k runKeys) FullHelp() [][]key.Binding {
	switch k.phase {
	case phaseRunning:
		return [][]key.Binding{{k.Cancel, k.Background}}
	case phaseResult:
		return append(k.out.Columns(), []key.Binding{k.Edit, k.Again, k.Save, k.Back, k.Left})
	}
	var cols [][]key.Binding
	if k.editor != nil {
		cols = k.editor.KeyMap().FullHelp()
	}
	return append(cols, []key.Binding{k.IdemKey, k.Preflight, k.SaveForm, k.back()})
}

// historyKeys are the keys of the call history and of its saved calls
// tab; which are on depends on the tab and on the search.
type historyKeys struct {
	navKeys
	Open        key.Binding
	Rerun       key.Binding
	Edit        key.Binding
	Search      key.Binding
	AcceptQuery key.Binding
	ClearQuery  key.Binding
	Save        key.Binding
	Export      key.Binding
	Tab         key.Binding
	CopyCLI     key.Binding
	CopyGo      key.Binding
	CopyMCP     key.Binding
	Diff        key.Binding
	RunSaved    key.Binding
	Delete      key.Binding
	ExportSaved key.Binding
	Import      key.Binding
	Ledger      key.Binding
	Back        key.Binding
	tab         int
	searching   bool
	g           *globalKeys
}

func newHistoryKeys(g *globalKeys) historyKeys {
	return historyKeys{
		g:           g,
		navKeys:     newNavKeys(),
		Open:        bind([]string{"enter"}, "enter", "open the call (request and result)"),
		Rerun:       bind([]string{"r"}, "r", "re-run"),
		Edit:        bind([]string{"e"}, "e", "edit and re-run"),
		Search:      bind([]string{"/"}, "/", "search tool, code and arguments"),
		AcceptQuery: bind([]string{"enter", "tab"}, "enter", "keep the search"),
		ClearQuery:  bind([]string{"esc"}, "esc", "clear the search"),
		Save:        bind([]string{"s"}, "s", "save the call under a name"),
		Export:      bind([]string{"x"}, "x", "export the calls shown (JSON Lines)"),
		Tab:         bind([]string{"tab"}, "tab", "history / saved calls"),
		CopyCLI:     bind([]string{"c"}, "c", "copy as command line"),
		CopyGo:      bind([]string{"o"}, "o", "copy as Go"),
		CopyMCP:     bind([]string{"m"}, "m", "copy as MCP tools/call"),
		Diff:        bind([]string{"D"}, "D", "compare two calls (D on each)"),
		RunSaved:    bind([]string{"enter", "r"}, "enter/r", "run the saved call"),
		Delete:      bind([]string{"d"}, "d", "delete the saved call"),
		ExportSaved: bind([]string{"x"}, "x", "export the saved calls as a collection file"),
		Import:      bind([]string{"i"}, "i", "import a collection file"),
		Ledger:      bind([]string{"L"}, "L", "the call's record in the ledger"),
		Back:        bind([]string{"esc"}, "esc", "back (clears the search first)"),
	}
}

func (k historyKeys) ShortHelp() []key.Binding {
	switch {
	case k.searching:
		return []key.Binding{k.AcceptQuery, k.ClearQuery}
	case k.tab == tabSaved:
		return []key.Binding{short(k.RunSaved, "run"), short(k.Edit, "edit"), short(k.Delete, "delete"), short(k.ExportSaved, "export"),
			short(k.Import, "import"), short(k.Tab, "history"), short(k.Back, "back")}
	}
	return []key.Binding{short(k.Open, "open"), k.Rerun, short(k.Edit, "edit"), short(k.Search, "search"), short(k.Save, "save"),
		short(k.Tab, "saved"), short(k.Ledger, "ledger"), k.g.short(helpKey, "more")}
}

func (k historyKeys) FullHelp() [][]key.Binding {
	if k.tab == tabSaved {
		return [][]key.Binding{k.navKeys.column(), {k.RunSaved, k.Edit, k.Delete, k.ExportSaved, k.Import, k.Tab, k.Back}}
	}
	return [][]key.Binding{k.navKeys.column(), {k.Open, k.Rerun, k.Edit, k.Search, k.Save, k.Export, k.Tab, k.Back}, {k.CopyCLI, k.CopyGo, k.CopyMCP, k.Diff, k.Ledger}}
}

// boardKeys are the keys of the governance board.
type boardKeys struct {
	navKeys
	Pause key.Binding
	g     *globalKeys
}

func newBoardKeys(g *globalKeys) boardKeys {
	return boardKeys{g: g, navKeys: newNavKeys(), Pause: bind([]string{"p"}, "p", "pause/resume")}
}

func (k boardKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "scroll"), short(k.Pause, "pause"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k boardKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.navKeys.column(), {k.Pause}}
}

// confirmKeys are the keys of the consent dialog.
type confirmKeys struct {
	Yes     key.Binding
	Session key.Binding
	No      key.Binding
	Switch  key.Binding
	Choose  key.Binding
	Scroll  key.Binding // on while the arguments do not fit
}

func newConfirmKeys() confirmKeys {
	return confirmKeys{
		Yes:     bind([]string{"y", "Y"}, "y", "consent once and run"),
		Session: bind([]string{"a", "A"}, "a", "allow for this session"),
		No:      bind([]string{"n", "N", "esc"}, "n/esc", "cancel"),
		Switch:  bind([]string{"tab", "shift+tab", "left", "right", "h", "l"}, "tab/←/→", "switch"),
		Choose:  bind([]string{"enter", "space"}, "enter", "choose"),
		Scroll:  bind([]string{"up", "down", "k", "j", "pgup", "pgdown"}, "↑/↓", "scroll the arguments"),
	}
}

func (k confirmKeys) ShortHelp() []key.Binding {
	return []key.Binding{short(k.Yes, "once"), short(k.Session, "session"), k.No, short(k.Scroll, "scroll"), short(k.Switch, "switch"), k.Choose}
}

func (k confirmKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Yes, k.Session, k.No, k.Scroll, k.Switch, k.Choose}}
}

// keyList is a key map of a few bindings, for the overlays.
type keyList []key.Binding

func (k keyList) ShortHelp() []key.Binding  { return k }
func (k keyList) FullHelp() [][]key.Binding { return [][]key.Binding{k} }

// helpOverlayKeys are the keys of the full help overlay.
func helpOverlayKeys(g *globalKeys) keyList {
	return keyList{key.NewBinding(key.WithKeys(append(slices.Clone(g.Back.Keys()), g.Help.Keys()...)...), key.WithHelp(keyName(g.Back)+"/"+keyName(g.Help), "close")),
		bind([]string{"up"}, "↑/↓", "scroll")}
}

// The key maps show in the help bubble.
var (
	_ help.KeyMap = listKeys{}
	_ help.KeyMap = detailKeys{}
	_ help.KeyMap = runKeys{}
	_ help.KeyMap = historyKeys{}
	_ help.KeyMap = boardKeys{}
	_ help.KeyMap = confirmKeys{}
	_ help.KeyMap = quitKeys{}
	_ help.KeyMap = keyList{}
)

// scroll moves vp for a key press: g/home and G/end to the top and bottom,
// every other key (and every other message) through the viewport's own key
// map. It is the tail of each scrolling screen's Update.
func (k navKeys) scroll(vp *viewport.Model, msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		switch {
		case key.Matches(msg, k.Top):
			vp.GotoTop()
			return nil
		case key.Matches(msg, k.Bottom):
			vp.GotoBottom()
			return nil
		}
	}
	var cmd tea.Cmd
	*vp, cmd = vp.Update(msg)
	return cmd
}
