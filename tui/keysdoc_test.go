package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/bubbles/v2/help"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui/form"
)

// The docs' page of the console (docs/console.md) lists the keys of every
// screen. The list is made here from the key maps the screens use, so it
// cannot drift: the test fails when the page differs, and -update rewrites
// its block.

const (
	keysBegin = "<!-- keys: made from the key maps by `go test ./tui -run TestREADMEKeys -update`; do not edit -->"
	keysEnd   = "<!-- end of keys -->"
)

// keyScreens are the screens and dialogs of the console with their keys.
func keyScreens() []struct {
	name string
	km   help.KeyMap
} {
	g := newGlobalKeys()
	list := newListKeys(&g)
	list.Problems.SetEnabled(true)
	running := newRunKeys(&g)
	running.phase = phaseRunning
	result := newRunKeys(&g)
	result.phase = phaseResult
	editing := keyList{}
	for _, col := range form.DefaultKeyMap().FullHelp() {
		editing = append(editing, col...)
	}
	rk := newRunKeys(&g)
	editing = append(editing, rk.IdemKey, rk.Preflight, rk.Back)
	saved := newHistoryKeys(&g)
	saved.tab = tabSaved
	fk := form.DefaultKeyMap()
	return []struct {
		name string
		km   help.KeyMap
	}{
		{"Every screen", keyList{g.Help, g.HelpAlways, g.Palette, g.PaletteAlways, g.Tools, g.History, g.Runs, g.Board, g.Servers, g.Ledger, g.Back, g.Left, g.Quit, g.ForceQuit}},
		{"Tool list", list},
		{"Tool detail", newDetailKeys(&g)},
		{"Arguments form", editing},
		{"Arguments form as raw JSON (ctrl+r)", keyList{
			bind([]string{"enter"}, "enter", "new line"), fk.Submit, bind([]string{"esc", "ctrl+r"}, "esc/ctrl+r", "back to the form"),
			bind([]string{"up", "down", "left", "right"}, "←↑↓→", "move"), bind([]string{"home", "ctrl+a"}, "home", "line start"),
			bind([]string{"end", "ctrl+e"}, "end", "line end"), bind([]string{"alt+left", "alt+right"}, "alt+←/→", "word left/right"),
			bind([]string{"ctrl+k"}, "ctrl+k", "delete to line end"), bind([]string{"ctrl+w"}, "ctrl+w", "delete the word before")}},
		{"Arguments as raw JSON (a schema the form cannot read)", newRawEditor(newStyles(true), nil, 80, 20).keys},
		{"A call running", running},
		{"Result and output viewer", result},
		{"History", newHistoryKeys(&g)},
		{"Saved calls (tab in the history)", saved},
		{"A call opened from the history", newCallKeys(&g)},
		{"Runs panel", newRunsKeys(&g)},
		{"Difference of two calls (D, then D on another)", newDiffKeys()},
		{"Governance board", newBoardKeys(&g)},
		{"MCP servers", newServersKeys(&g)},
		{"Resources of a server (o on a server)", newResourcesKeys(&g)},
		{"Prompts of a server (p on a server)", newPromptsKeys(&g)},
		{"Parameters of a template, arguments of a prompt", newFillKeys(&g)},
		{"Log of a server (l on a server)", newLogKeys(&g)},
		{"Traffic of a server (t on a server)", newTrafficKeys(&g)},
		{"Roots (f on the servers)", newRootsKeys(&g)},
		{"Input or sampling requested by a server", newAskKeys()},
		{"Consent dialog", newConfirmKeys()},
		{"Ledger", newLedgerKeys(&g)},
		{"A call of the ledger", newLedgerRecordKeys(&g)},
		{"Load problems", newProblemsKeys(&g)},
		{"Quit dialog", newQuitKeys()},
		{"Command palette", newPaletteDialog(&common{styles: newStyles(true)}, nil).keys},
	}
}

// keysMarkdown is the block of the docs: one line per screen, each key with
// what it does, in the order of the screen's full help.
func keysMarkdown() string {
	var b strings.Builder
	b.WriteString(keysBegin + "\n\n")
	for _, s := range keyScreens() {
		var parts []string
		seen := map[string]bool{}
		for _, col := range s.km.FullHelp() {
			for _, k := range col {
				h := k.Help()
				id := h.Key + "\x00" + h.Desc
				if h.Key == "" || seen[id] {
					continue
				}
				seen[id] = true
				parts = append(parts, "`"+h.Key+"` "+h.Desc)
			}
		}
		b.WriteString("- **" + s.name + "**: " + strings.Join(parts, " · ") + "\n")
	}
	m := New(tooling.NewRegistry(), Options{NoColor: true})
	b.WriteString("\nThe config's `keys` rebinds them by these names, like `\"keys\": {\"list.run\": [\"x\"]}`:\n")
	b.WriteString(strings.Join(m.keyNames(), " · ") + "\n")
	b.WriteString("\n" + keysEnd)
	return b.String()
}

// keysPage returns the documentation page (README.md or docs/*.md) that
// holds the block of keys, and its text.
func keysPage(t *testing.T) (string, string) {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var path, text string
	for _, p := range append([]string{filepath.Join("..", "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), keysBegin) {
			continue
		}
		if path != "" {
			t.Fatalf("%s and %s both have a block of keys", path, p)
		}
		path, text = p, string(b)
	}
	if path == "" {
		t.Fatalf("no page of the docs (README.md, docs/*.md) has a block of keys starting %q", keysBegin)
	}
	return path, text
}

func TestREADMEKeys(t *testing.T) {
	path, page := keysPage(t)
	i, j := strings.Index(page, keysBegin), strings.Index(page, keysEnd)
	if j < i {
		t.Fatalf("%s has no block of keys between %q and %q", path, keysBegin, keysEnd)
	}
	got, want := page[i:j+len(keysEnd)], keysMarkdown()
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(page[:i]+want+page[j+len(keysEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the keys of %s differ from the key maps (go test ./tui -run TestREADMEKeys -update rewrites them)\n--- %s\n%s\n--- key maps\n%s", path, path, got, want)
}
