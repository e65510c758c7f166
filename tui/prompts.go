package tui

import (
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// promptsScreen lists a server's prompts: enter fills a prompt's arguments
// in a form (or gets it at once when it has none) and shows the messages
// the server made of it in the output viewer.
type promptsScreen struct {
	c       *common
	v       *mcpViews
	keys    promptsKeys
	server  string
	prompts []Prompt
	cursor  int
	w, h    int
}

func newPromptsScreen(c *common, v *mcpViews) *promptsScreen {
	return &promptsScreen{c: c, v: v, keys: newPromptsKeys(&c.global)}
}

// open shows the prompts of server.
func (s *promptsScreen) open(server string) tea.Cmd {
	if s.server != server {
		s.cursor = 0
	}
	s.server = server
	s.refresh()
	return nil
}

func (s *promptsScreen) refresh() {
	s.prompts = nil
	if s.c.features != nil {
		s.prompts = s.c.features.Prompts(s.server)
	}
	s.cursor = min(s.cursor, max(len(s.prompts)-1, 0))
}

func (s *promptsScreen) Title() string { return "Prompts of " + s.server }

func (s *promptsScreen) Typing() bool { return false }

func (s *promptsScreen) KeyMap() help.KeyMap { return s.keys }

func (s *promptsScreen) SetSize(w, h int) { s.w, s.h = w, h }

func (s *promptsScreen) Show() tea.Cmd {
	s.refresh()
	return nil
}

func (s *promptsScreen) Hide() {}

// promptGotMsg is what getting a prompt returned.
type promptGotMsg struct {
	server, name string
	args         map[string]string
	out          json.RawMessage
	err          error
}

func (promptGotMsg) mcpViews() {}

func (s *promptsScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case promptGotMsg:
		if msg.err != nil {
			return statusCmd(fmt.Sprintf("prompt %s: %v", msg.name, msg.err), true)
		}
		st := s.c.styles
		head := []string{st.Label.Render("Prompt") + " " + termtext.Line(msg.name) + st.Faint.Render(" · of "+msg.server)}
		if len(msg.args) > 0 {
			b, _ := json.Marshal(msg.args)
			head = append(head, st.Faint.Render("arguments ")+termtext.Line(string(b)))
		}
		s.v.content.set("Prompt "+msg.name, head, msg.out)
		return tea.Batch(pushCmd(s.v.content), statusCmd("got the prompt "+msg.name, false))
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Up):
			s.cursor = max(s.cursor-1, 0)
		case key.Matches(msg, s.keys.Down):
			s.cursor = min(s.cursor+1, max(len(s.prompts)-1, 0))
		case key.Matches(msg, s.keys.Open):
			return s.openPrompt()
		case key.Matches(msg, s.c.global.Back):
			return backCmd
		}
	}
	return nil
}

// openPrompt fills the arguments of the prompt under the cursor, or gets
// it when it has none.
func (s *promptsScreen) openPrompt() tea.Cmd {
	if len(s.prompts) == 0 {
		return nil
	}
	p := s.prompts[s.cursor]
	c, server := s.c, s.server
	get := func(args map[string]string) tea.Cmd {
		for k, v := range args {
			if v == "" {
				delete(args, k) // left empty: not given
			}
		}
		return getPromptCmd(c, server, p.Name, args)
	}
	if len(p.Arguments) == 0 {
		return get(nil)
	}
	head := []string{s.c.styles.Label.Render("Prompt") + " " + termtext.Line(p.Name)}
	if p.Description != "" {
		head = append(head, termtext.Line(firstLine(p.Description)))
	}
	s.v.fill.set("Arguments of "+p.Name, head, promptSchema(p.Arguments), "get the messages", get)
	return pushCmd(s.v.fill)
}

func getPromptCmd(c *common, server, name string, args map[string]string) tea.Cmd {
	f := c.features
	ctx, cancel := c.callCtx()
	return tea.Batch(statusCmd("getting the prompt "+name+"…", false), func() tea.Msg {
		defer cancel()
		out, err := f.GetPrompt(ctx, server, name, args)
		return promptGotMsg{server: server, name: name, args: args, out: out, err: err}
	})
}

// promptSchema is the schema of a form of a prompt's arguments: strings,
// the required ones marked.
func promptSchema(args []PromptArgument) json.RawMessage {
	props := map[string]any{}
	required := []string{}
	for _, a := range args {
		p := map[string]any{"type": "string"}
		if a.Description != "" {
			p["description"] = a.Description
		}
		if a.Title != "" {
			p["title"] = a.Title
		}
		props[a.Name] = p
		if a.Required {
			required = append(required, a.Name)
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
	return b
}

func (s *promptsScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	b.WriteString(st.Title.Render("Prompts of "+termtext.Line(s.server)) + st.Subtle.Render(" · "+plural(len(s.prompts), "prompt")) + "\n\n")
	if len(s.prompts) == 0 {
		b.WriteString(st.Subtle.Render("the server lists no prompts"))
		return b.String()
	}
	list := max(s.h-6, 3)
	first := max(0, min(s.cursor-list/2, len(s.prompts)-list))
	nameW := 8
	for _, p := range s.prompts {
		nameW = max(nameW, min(len(p.Name), 28))
	}
	for i := first; i < min(first+list, len(s.prompts)); i++ {
		p := s.prompts[i]
		marker := "  "
		if i == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		var args []string
		for _, a := range p.Arguments {
			n := a.Name
			if a.Required {
				n += "*"
			}
			args = append(args, n)
		}
		line := marker + pad(cut(termtext.Line(p.Name), 28), nameW) + " " + st.Value.Render(pad("("+strings.Join(args, ", ")+")", 20)) + " " + st.Subtle.Render(termtext.Line(firstLine(orName(p.Title, p.Description))))
		b.WriteString(cut(line, s.w) + "\n")
	}
	b.WriteString("\n" + st.Faint.Render("* a required argument · enter fills the arguments and gets the messages"))
	return b.String()
}

// promptsKeys are the keys of the prompts screen.
type promptsKeys struct {
	Up, Down key.Binding
	Open     key.Binding
	g        *globalKeys
}

func newPromptsKeys(g *globalKeys) promptsKeys {
	return promptsKeys{
		g:    g,
		Up:   bind([]string{"up", "k"}, "↑/k", "up"),
		Down: bind([]string{"down", "j"}, "↓/j", "down"),
		Open: bind([]string{"enter"}, "enter", "fill the arguments and get the messages"),
	}
}

func (k promptsKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "move"), short(k.Open, "get"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k promptsKeys) FullHelp() [][]key.Binding { return [][]key.Binding{{k.Up, k.Down, k.Open}} }

var (
	_ help.KeyMap = promptsKeys{}
	_ screen      = (*promptsScreen)(nil)
)
