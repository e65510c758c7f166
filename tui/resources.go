package tui

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// resourcesScreen lists a server's resources and resource templates: enter
// reads a resource into the output viewer, or fills a template's
// parameters in a form and reads what it names; s subscribes to a
// resource's updates, which are counted beside it and logged.
type resourcesScreen struct {
	c         *common
	v         *mcpViews
	keys      resourcesKeys
	server    string
	resources []Resource
	templates []ResourceTemplate
	cursor    int
	w, h      int
}

func newResourcesScreen(c *common, v *mcpViews) *resourcesScreen {
	return &resourcesScreen{c: c, v: v, keys: newResourcesKeys(&c.global)}
}

// open shows the resources of server.
func (s *resourcesScreen) open(server string) tea.Cmd {
	if s.server != server {
		s.cursor = 0
	}
	s.server = server
	s.refresh()
	return nil
}

func (s *resourcesScreen) refresh() {
	s.resources, s.templates = nil, nil
	if s.c.features != nil {
		s.resources, s.templates = s.c.features.Resources(s.server)
	}
	s.cursor = min(s.cursor, max(s.rows()-1, 0))
}

func (s *resourcesScreen) rows() int { return len(s.resources) + len(s.templates) }

func (s *resourcesScreen) Title() string { return "Resources of " + s.server }

func (s *resourcesScreen) Typing() bool { return false }

func (s *resourcesScreen) KeyMap() help.KeyMap { return s.keys }

func (s *resourcesScreen) SetSize(w, h int) { s.w, s.h = w, h }

// Show lists again: the server may have changed its list.
func (s *resourcesScreen) Show() tea.Cmd {
	s.refresh()
	return nil
}

func (s *resourcesScreen) Hide() {}

// resourceReadMsg is what reading a resource returned.
type resourceReadMsg struct {
	server, uri string
	out         json.RawMessage
	err         error
}

func (resourceReadMsg) mcpViews() {}

// subscribedMsg says whether a subscription (or its end) was made.
type subscribedMsg struct {
	server, uri string
	on          bool
	err         error
}

func (subscribedMsg) mcpViews() {}

func (s *resourcesScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resourceReadMsg:
		if msg.err != nil {
			return statusCmd(fmt.Sprintf("reading %s: %v", msg.uri, msg.err), true)
		}
		s.v.content.set("Resource "+msg.uri, []string{s.c.styles.Label.Render("Resource") + " " + termtext.Line(msg.uri) + s.c.styles.Faint.Render(" · read from "+msg.server)}, msg.out)
		return tea.Batch(pushCmd(s.v.content), statusCmd("read "+msg.uri, false))
	case subscribedMsg:
		k := serverURI{msg.server, msg.uri}
		switch {
		case msg.err != nil:
			return statusCmd(fmt.Sprintf("subscribing to %s: %v", msg.uri, msg.err), true)
		case msg.on:
			s.v.subscribed[k] = true
			delete(s.v.updates, k)
			return statusCmd("subscribed to "+msg.uri+": its updates are counted here and logged ("+keyName(s.keys.Subscribe)+" again stops)", false)
		}
		delete(s.v.subscribed, k)
		return statusCmd("no longer subscribed to "+msg.uri, false)
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Up):
			s.cursor = max(s.cursor-1, 0)
		case key.Matches(msg, s.keys.Down):
			s.cursor = min(s.cursor+1, max(s.rows()-1, 0))
		case key.Matches(msg, s.keys.Open):
			return s.openRow()
		case key.Matches(msg, s.keys.Subscribe):
			return s.subscribe()
		case key.Matches(msg, s.c.global.Back):
			return backCmd
		}
	}
	return nil
}

// openRow reads the resource under the cursor, or fills the template's
// parameters.
func (s *resourcesScreen) openRow() tea.Cmd {
	switch {
	case s.cursor < len(s.resources):
		return readResourceCmd(s.c, s.server, s.resources[s.cursor].URI)
	case s.cursor < s.rows():
		t := s.templates[s.cursor-len(s.resources)]
		vars := templateVars(t.URITemplate)
		server, c := s.server, s.c
		desc := []string{s.c.styles.Label.Render("Template") + " " + termtext.Line(t.URITemplate)}
		if t.Description != "" {
			desc = append(desc, termtext.Line(firstLine(t.Description)))
		}
		s.v.fill.set("Parameters of "+orName(t.Name, t.URITemplate), desc, varsSchema(vars), "read", func(values map[string]string) tea.Cmd {
			return readResourceCmd(c, server, expandTemplate(t.URITemplate, values))
		})
		return pushCmd(s.v.fill)
	}
	return nil
}

func orName(name, alt string) string {
	if name != "" {
		return name
	}
	return alt
}

func readResourceCmd(c *common, server, uri string) tea.Cmd {
	f := c.features
	ctx, cancel := c.callCtx()
	return tea.Batch(statusCmd("reading "+uri+"…", false), func() tea.Msg {
		defer cancel()
		out, err := f.ReadResource(ctx, server, uri)
		return resourceReadMsg{server: server, uri: uri, out: out, err: err}
	})
}

// subscribe subscribes to the resource under the cursor, or ends the
// subscription.
func (s *resourcesScreen) subscribe() tea.Cmd {
	if s.cursor >= len(s.resources) {
		return statusCmd("a template is not a resource: read it, then subscribe to a resource the server lists", true)
	}
	uri, server, f := s.resources[s.cursor].URI, s.server, s.c.features
	on := !s.v.subscribed[serverURI{server, uri}]
	ctx, cancel := s.c.callCtx()
	return func() tea.Msg {
		defer cancel()
		return subscribedMsg{server: server, uri: uri, on: on, err: f.Subscribe(ctx, server, uri, on)}
	}
}

func (s *resourcesScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	b.WriteString(st.Title.Render("Resources of "+termtext.Line(s.server)) + st.Subtle.Render(fmt.Sprintf(" · %s · %s", plural(len(s.resources), "resource"), plural(len(s.templates), "template"))) + "\n\n")
	if s.rows() == 0 {
		b.WriteString(st.Subtle.Render("the server lists no resources"))
		return b.String()
	}
	list := max(s.h-5, 3)
	first := max(0, min(s.cursor-list/2, s.rows()-list))
	nameW := 8
	for _, r := range s.resources {
		nameW = max(nameW, min(len(orName(r.Name, r.URI)), 28))
	}
	for _, t := range s.templates {
		nameW = max(nameW, min(len(orName(t.Name, t.URITemplate)), 28))
	}
	for i := first; i < min(first+list, s.rows()); i++ {
		marker := "  "
		if i == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		var line string
		if i < len(s.resources) {
			r := s.resources[i]
			k := serverURI{s.server, r.URI}
			mark := " "
			if s.v.subscribed[k] {
				mark = st.OK.Render("●")
			}
			line = marker + mark + " " + pad(cut(termtext.Line(orName(r.Name, r.URI)), 28), nameW) + " " + st.Subtle.Render(termtext.Line(r.URI))
			if r.MIMEType != "" {
				line += st.Faint.Render(" " + r.MIMEType)
			}
			if u, ok := s.v.updates[k]; ok {
				line += st.Warn.Render(fmt.Sprintf(" updated %s, last %s", plural(u.n, "time"), u.last.In(s.c.now().Location()).Format("15:04:05")))
			}
		} else {
			t := s.templates[i-len(s.resources)]
			line = marker + st.Faint.Render("T") + " " + pad(cut(termtext.Line(orName(t.Name, t.URITemplate)), 28), nameW) + " " + st.Value.Render(termtext.Line(t.URITemplate))
		}
		b.WriteString(cut(line, s.w) + "\n")
	}
	b.WriteString("\n")
	var desc string
	if s.cursor < len(s.resources) {
		desc = s.resources[s.cursor].Description
	} else if s.cursor < s.rows() {
		desc = s.templates[s.cursor-len(s.resources)].Description
	}
	if desc != "" {
		b.WriteString(st.Subtle.Render(cut(termtext.Line(firstLine(desc)), s.w)) + "\n")
	}
	b.WriteString(st.Faint.Render("● subscribed · T a template: enter fills its parameters"))
	return b.String()
}

// templateVars are the names of the variables of an RFC 6570 URI
// template, in order, each once.
func templateVars(tmpl string) []string {
	var out []string
	seen := map[string]bool{}
	for {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			return out
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return out
		}
		expr := strings.TrimLeft(tmpl[i+1:i+j], "+#./;?&")
		for _, v := range strings.Split(expr, ",") {
			v, _, _ = strings.Cut(v, ":")
			v = strings.TrimSuffix(v, "*")
			if v != "" && !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		tmpl = tmpl[i+j+1:]
	}
}

// expandTemplate fills an RFC 6570 URI template with values: simple
// ({x}), reserved ({+x}), fragment ({#x}), label ({.x}), path ({/x}),
// parameter ({;x}) and query ({?x,y}, {&x}) expressions; an empty value
// leaves its variable out.
func expandTemplate(tmpl string, values map[string]string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(tmpl, '{')
		j := strings.IndexByte(tmpl[max(i, 0):], '}')
		if i < 0 || j < 0 {
			b.WriteString(tmpl)
			return b.String()
		}
		b.WriteString(tmpl[:i])
		expr := tmpl[i+1 : i+j]
		tmpl = tmpl[i+j+1:]
		op := ""
		if expr != "" && strings.ContainsRune("+#./;?&", rune(expr[0])) {
			op, expr = expr[:1], expr[1:]
		}
		first, sep, named := map[string]string{"": "", "+": "", "#": "#", ".": ".", "/": "/", ";": ";", "?": "?", "&": "&"}[op],
			map[string]string{"": ",", "+": ",", "#": ",", ".": ".", "/": "/", ";": ";", "?": "&", "&": "&"}[op], op == ";" || op == "?" || op == "&"
		n := 0
		for _, name := range strings.Split(expr, ",") {
			name, _, _ = strings.Cut(name, ":")
			name = strings.TrimSuffix(name, "*")
			val, ok := values[name]
			if !ok || val == "" {
				continue
			}
			if n == 0 {
				b.WriteString(first)
			} else {
				b.WriteString(sep)
			}
			n++
			if named {
				b.WriteString(name + "=")
			}
			if op == "+" || op == "#" {
				b.WriteString(val)
			} else {
				b.WriteString(url.PathEscape(val))
			}
		}
	}
}

// varsSchema is the schema of a form of string parameters.
func varsSchema(vars []string) json.RawMessage {
	props := map[string]any{}
	for _, v := range vars {
		props[v] = map[string]any{"type": "string"}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": vars})
	return b
}

// resourcesKeys are the keys of the resources screen.
type resourcesKeys struct {
	Up, Down  key.Binding
	Open      key.Binding
	Subscribe key.Binding
	g         *globalKeys
}

func newResourcesKeys(g *globalKeys) resourcesKeys {
	return resourcesKeys{
		g:         g,
		Up:        bind([]string{"up", "k"}, "↑/k", "up"),
		Down:      bind([]string{"down", "j"}, "↓/j", "down"),
		Open:      bind([]string{"enter"}, "enter", "read the resource, or fill the template"),
		Subscribe: bind([]string{"s"}, "s", "subscribe to the resource's updates, or stop"),
	}
}

func (k resourcesKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "move"), short(k.Open, "read"), short(k.Subscribe, "subscribe"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k resourcesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Subscribe}}
}

var (
	_ help.KeyMap = resourcesKeys{}
	_ screen      = (*resourcesScreen)(nil)
)
