package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// problemsScreen lists what went wrong while loading, before the console
// opened: tools that could not be added (a schema that does not compile, a
// bad name, a duplicate) and config warnings, one entry each. The list
// opens it with P and says how many there are.
type problemsScreen struct {
	c    *common
	keys problemsKeys
	vp   viewport.Model
	w, h int
}

func newProblemsScreen(c *common) *problemsScreen {
	p := &problemsScreen{c: c, keys: newProblemsKeys(&c.global), vp: viewport.New()}
	p.vp.KeyMap = viewportKeys()
	return p
}

func (p *problemsScreen) Title() string { return "Load problems" }

func (p *problemsScreen) Typing() bool { return false }

func (p *problemsScreen) KeyMap() help.KeyMap { return p.keys }

func (p *problemsScreen) SetSize(w, h int) {
	p.w, p.h = w, h
	p.vp.SetWidth(w)
	p.vp.SetHeight(max(h-2, 1))
	p.render()
}

func (p *problemsScreen) Show() tea.Cmd {
	p.render()
	p.vp.GotoTop()
	return nil
}

func (p *problemsScreen) Hide() {}

// render wraps each problem at the screen's width (at spaces where it can),
// with a bullet on its first line and its continuation lines indented.
func (p *problemsScreen) render() {
	var b strings.Builder
	width := max(p.w-4, 10)
	for i, line := range p.c.problems {
		if i > 0 {
			b.WriteString("\n\n")
		}
		wrapped := strings.Split(ansi.Wrap(line, width, " /"), "\n")
		for j, w := range wrapped {
			if j == 0 {
				b.WriteString("• " + w)
			} else {
				b.WriteString("\n  " + w)
			}
		}
	}
	if len(p.c.problems) == 0 {
		b.WriteString(p.c.styles.Subtle.Render("nothing went wrong while loading"))
	}
	p.vp.SetContent(b.String())
}

func (p *problemsScreen) Update(msg tea.Msg) tea.Cmd {
	if msg, ok := msg.(tea.KeyPressMsg); ok {
		if key.Matches(msg, p.c.global.Back) {
			return backCmd
		}
	}
	return p.keys.scroll(&p.vp, msg)
}

func (p *problemsScreen) View() string {
	st := p.c.styles
	n := len(p.c.problems)
	what := "problems"
	if n == 1 {
		what = "problem"
	}
	head := st.Title.Render("Load problems") + st.Subtle.Render(fmt.Sprintf(" · %d %s while loading; the rest loaded", n, what))
	return head + "\n\n" + p.vp.View()
}

// problemsKeys are the keys of the load problems screen.
type problemsKeys struct {
	navKeys
	g *globalKeys
}

func newProblemsKeys(g *globalKeys) problemsKeys { return problemsKeys{navKeys: newNavKeys(), g: g} }

func (k problemsKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "scroll"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k problemsKeys) FullHelp() [][]key.Binding { return [][]key.Binding{k.navKeys.column()} }
