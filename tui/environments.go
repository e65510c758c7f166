package tui

import (
	"slices"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/history/collection"
)

// envScreen lists the environments of variables (config "environments")
// and the variables of the one under the cursor; enter chooses it, so
// that its values fill the {{name}} references of the arguments of the
// calls made from then on. A secret's value is never shown. V opens it
// from any screen; the header names the environment chosen.
type envScreen struct {
	c      *common
	keys   envKeys
	names  []string // the environments, sorted; "" first: none
	cursor int
	w, h   int
}

func newEnvScreen(c *common) *envScreen {
	return &envScreen{c: c, keys: newEnvKeys(&c.global)}
}

func (s *envScreen) Title() string       { return "Environments" }
func (s *envScreen) Typing() bool        { return false }
func (s *envScreen) KeyMap() help.KeyMap { return s.keys }
func (s *envScreen) SetSize(w, h int)    { s.w, s.h = w, h }
func (s *envScreen) Hide()               {}

// Show lists the environments with the cursor on the one chosen.
func (s *envScreen) Show() tea.Cmd {
	s.names = []string{""}
	for name := range s.c.envs {
		s.names = append(s.names, name)
	}
	slices.Sort(s.names[1:])
	s.cursor = max(slices.Index(s.names, s.c.env), 0)
	return nil
}

func (s *envScreen) Update(msg tea.Msg) tea.Cmd {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return nil
	}
	switch {
	case key.Matches(k, s.c.global.Back):
		return backCmd
	case key.Matches(k, s.keys.Up):
		s.cursor = max(s.cursor-1, 0)
	case key.Matches(k, s.keys.Down):
		s.cursor = min(s.cursor+1, len(s.names)-1)
	case key.Matches(k, s.keys.Use):
		if s.cursor < len(s.names) {
			s.c.useEnv(s.names[s.cursor])
			what := "no environment: {{variables}} are left as they are written"
			if s.c.env != "" {
				what = "environment " + s.c.env + ": its variables fill the {{references}} of the calls made from now on"
			}
			return tea.Batch(backCmd, statusCmd(what, false))
		}
	}
	return nil
}

func (s *envScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	b.WriteString(st.Title.Render("Environments"))
	if len(s.c.envs) == 0 {
		text := `no environments: the config's "environments" defines them, like {"dev": {"base": "http://127.0.0.1:8080", "token": {"from_env": "DEV_TOKEN", "secret": true}}}`
		b.WriteString("\n\n" + st.Subtle.Render(strings.Join(wrapLines(text, max(s.w, 20)), "\n")))
		return b.String()
	}
	b.WriteString(st.Subtle.Render(" · {{name}} in arguments takes the value of the environment chosen") + "\n\n")
	for i, name := range s.names {
		mark := "  "
		if name == s.c.env {
			mark = "● "
		}
		label := name
		if name == "" {
			label = "(none)"
		}
		line := mark + label
		if i == s.cursor {
			line = st.Selected.Render(pad(line, max(min(s.w, 40), len(line))))
		}
		b.WriteString(line + "\n")
	}
	name := s.names[min(s.cursor, len(s.names)-1)]
	if name == "" {
		b.WriteString("\n" + st.Subtle.Render("no environment: a {{reference}} in the arguments stops the call, naming it"))
		return b.String()
	}
	vars := collection.Resolve(name, s.c.envs[name], s.c.getenv)
	b.WriteString("\n" + st.Title.Render("Variables of "+name) + "\n")
	names := vars.Names()
	wide := 0
	for _, n := range names {
		wide = max(wide, len(n))
	}
	for _, n := range names {
		b.WriteString("  " + pad(n, wide) + "  " + varValue(st, vars, s.c.envs[name][n], n) + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// varValue is how the screen shows a variable: its value, or for a
// secret dots and where it comes from, never the value.
func varValue(st *styles, vars collection.Vars, v collection.Var, name string) string {
	val, ok := vars.Lookup(name)
	from := ""
	if v.FromEnv != "" {
		from = " (from $" + v.FromEnv + ")"
	}
	switch {
	case !ok:
		return st.Err.Render("not set: $" + v.FromEnv + " is empty")
	case vars.Secret(name):
		return st.Warn.Render("•••••• secret") + st.Faint.Render(from)
	}
	return val + st.Faint.Render(from)
}

// envKeys are the keys of the environments screen.
type envKeys struct {
	Up, Down key.Binding
	Use      key.Binding
	g        *globalKeys
}

func newEnvKeys(g *globalKeys) envKeys {
	nav := newNavKeys()
	return envKeys{Up: nav.Up, Down: nav.Down, Use: bind([]string{"enter"}, "enter", "use this environment"), g: g}
}

func (k envKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "move"), short(k.Use, "use"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k envKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down, k.Use}} }
