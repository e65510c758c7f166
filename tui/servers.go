package tui

import (
	"context"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
)

// Servers are the MCP servers whose tools are in the registry, as the
// console shows and restarts them. The host provides them
// (Options.Servers).
type Servers interface {
	// List reports every server, in name order.
	List() []ServerState
	// Restart stops the named server if it runs and connects it again:
	// its tools leave the registry and come back.
	Restart(ctx context.Context, name string) error
	// Stopped gets the name of each server that stops, or drops the
	// connection, on its own.
	Stopped() <-chan string
}

// ServerStatus says whether a server's tools can be used.
type ServerStatus string

const (
	ServerConnected ServerStatus = "connected" // its tools are in the registry
	ServerFailed    ServerStatus = "failed"    // it could not be connected
	ServerStopped   ServerStatus = "stopped"   // it stopped after connecting: its tools are unavailable
)

// ServerState is what the console shows of one server.
type ServerState struct {
	Name string
	// Target is the command line or the URL of the server.
	Target string
	Status ServerStatus
	// Problem says why the server failed or stopped; "" when connected.
	Problem string
	// Stderr is the end of what a stdio server wrote to its stderr.
	Stderr string
	// Tools are the names of its tools in the registry.
	Tools []string
	// LeftOut says, one line each, which of its tools the registry
	// refused and why (a schema that does not compile), like
	// `"find": input schema does not compile: ...`.
	LeftOut []string
	// Confinement describes what a confined server may reach, or why
	// confinement does not apply (a server reached over HTTP); "" when it
	// runs unconfined.
	Confinement string
}

// serverRestartedMsg says that a restart of the named server ended.
type serverRestartedMsg struct {
	name string
	err  error
}

// serverStoppedMsg says that the named server stopped on its own.
type serverStoppedMsg struct{ name string }

// watchServersCmd waits for the next server that stops on its own.
func watchServersCmd(s Servers) tea.Cmd {
	if s == nil {
		return nil
	}
	ch := s.Stopped()
	return func() tea.Msg {
		name, ok := <-ch
		if !ok {
			return nil
		}
		return serverStoppedMsg{name}
	}
}

// serversScreen lists the MCP servers: each one's state, and for the one
// under the cursor its problem, the end of its stderr, its confinement and
// its tools. r restarts the server under the cursor.
type serversScreen struct {
	c          *common
	keys       serversKeys
	list       []ServerState
	cursor     int
	restarting map[string]bool
	w, h       int
}

func newServersScreen(c *common) *serversScreen {
	return &serversScreen{c: c, keys: newServersKeys(&c.global), restarting: map[string]bool{}}
}

func (s *serversScreen) Title() string { return "MCP servers" }

func (s *serversScreen) Typing() bool { return false }

func (s *serversScreen) KeyMap() help.KeyMap { return s.keys }

func (s *serversScreen) SetSize(w, h int) { s.w, s.h = w, h }

func (s *serversScreen) Show() tea.Cmd {
	s.refresh()
	return nil
}

func (s *serversScreen) Hide() {}

func (s *serversScreen) refresh() {
	if s.c.servers == nil {
		s.list = nil
		return
	}
	s.list = s.c.servers.List()
	s.cursor = min(s.cursor, max(len(s.list)-1, 0))
}

func (s *serversScreen) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case serverRestartedMsg:
		delete(s.restarting, msg.name)
		s.refresh()
		return nil
	case serverStoppedMsg:
		s.refresh()
		return nil
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, s.keys.Up):
			s.cursor = max(s.cursor-1, 0)
		case key.Matches(msg, s.keys.Down):
			s.cursor = min(s.cursor+1, max(len(s.list)-1, 0))
		case key.Matches(msg, s.keys.Restart):
			return s.restart()
		case key.Matches(msg, s.keys.Resources, s.keys.Prompts, s.keys.Log, s.keys.Traffic):
			return s.openView(msg)
		case key.Matches(msg, s.keys.Roots) && s.c.features != nil:
			return openMCPCmd(viewRoots, "")
		case key.Matches(msg, s.c.global.Back):
			return backCmd
		}
	}
	return nil
}

// restart restarts the server under the cursor in a command; the screen
// shows it as restarting until serverRestartedMsg comes.
func (s *serversScreen) restart() tea.Cmd {
	if len(s.list) == 0 || s.c.servers == nil {
		return nil
	}
	name := s.list[s.cursor].Name
	if s.restarting[name] {
		return nil
	}
	s.restarting[name] = true
	servers, ctx := s.c.servers, s.c.ctx
	return func() tea.Msg {
		return serverRestartedMsg{name: name, err: servers.Restart(ctx, name)}
	}
}

func (s *serversScreen) View() string {
	st := s.c.styles
	var b strings.Builder
	n := len(s.list)
	what := "servers"
	if n == 1 {
		what = "server"
	}
	b.WriteString(st.Title.Render("MCP servers") + st.Subtle.Render(fmt.Sprintf(" · %d %s", n, what)) + "\n\n")
	if n == 0 {
		b.WriteString(st.Subtle.Render("no MCP servers: add them with --server NAME=COMMAND or NAME=URL, or in the config's servers or mcpServers"))
		return b.String()
	}
	nameW := len("NAME")
	for _, sv := range s.list {
		nameW = max(nameW, len(sv.Name))
	}
	const statusW = len("reconnecting")
	b.WriteString(st.Faint.Render("  "+pad("NAME", nameW)+" "+pad("STATE", statusW)+" "+pad("TOOLS", 6)+" TARGET") + "\n")
	for i, sv := range s.list {
		marker := "  "
		if i == s.cursor {
			marker = st.Cursor.Render("›") + " "
		}
		state := string(sv.Status)
		style := st.OK
		switch {
		case s.restarting[sv.Name]:
			state, style = "reconnecting", st.Warn
		case sv.Status != ServerConnected:
			style = st.Err
		}
		tools := "—"
		if sv.Status == ServerConnected {
			tools = fmt.Sprint(len(sv.Tools))
		}
		line := marker + pad(termtext.Line(sv.Name), nameW) + " " + style.Render(pad(state, statusW)) + " " + pad(tools, 6) + " "
		line += st.Subtle.Render(cut(termtext.Line(sv.Target), max(s.w-len(marker)-nameW-statusW-9, 10)))
		b.WriteString(line + "\n")
	}
	b.WriteString("\n" + s.details(s.list[s.cursor]))
	return b.String()
}

// details describes the selected server: why it failed or stopped, its
// confinement, the end of its stderr and its tools.
func (s *serversScreen) details(sv ServerState) string {
	st := s.c.styles
	width := max(s.w-2, 20)
	var lines []string
	add := func(label, text string, style func(...string) string) {
		for i, l := range wrapText(text, width-len(label)-1) {
			if i == 0 {
				lines = append(lines, st.Label.Render(label)+" "+style(l))
			} else {
				lines = append(lines, strings.Repeat(" ", len(label)+1)+style(l))
			}
		}
	}
	if sv.Problem != "" {
		add("problem:", sv.Problem, st.Err.Render)
	}
	conf := sv.Confinement
	if conf == "" {
		conf = "none: the server runs with toolexplorer's own rights"
	}
	add("confinement:", conf, st.Value.Render)
	if sv.Stderr != "" {
		tail := strings.Split(sv.Stderr, "\n")
		if len(tail) > 5 {
			tail = tail[len(tail)-5:]
		}
		lines = append(lines, st.Label.Render("stderr (end):"))
		for _, l := range tail {
			lines = append(lines, "  "+st.Subtle.Render(cut(termtext.Line(l), width-2)))
		}
	}
	if len(sv.Tools) > 0 {
		add("tools:", strings.Join(sv.Tools, ", "), st.Value.Render)
	}
	for _, l := range sv.LeftOut {
		add("left out:", l, st.Warn.Render)
	}
	if sv.Status != ServerConnected {
		lines = append(lines, st.Faint.Render("r restarts it"))
	}
	return strings.Join(lines, "\n")
}

// wrapText wraps s at spaces to width, control characters escaped.
func wrapText(s string, width int) []string {
	words := strings.Fields(termtext.Line(s))
	var out []string
	var line string
	for _, w := range words {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > width:
			out = append(out, line)
			line = w
		default:
			line += " " + w
		}
	}
	if line != "" || len(out) == 0 {
		out = append(out, line)
	}
	return out
}

// openView opens the resources, prompts, log or traffic of the server
// under the cursor, once it is connected.
func (s *serversScreen) openView(k tea.KeyPressMsg) tea.Cmd {
	if len(s.list) == 0 || s.c.features == nil {
		return nil
	}
	sv := s.list[s.cursor]
	if sv.Status != ServerConnected {
		return statusCmd("server "+sv.Name+" is not connected: "+keyName(s.keys.Restart)+" restarts it", true)
	}
	view := viewTraffic
	switch {
	case key.Matches(k, s.keys.Resources):
		view = viewResources
	case key.Matches(k, s.keys.Prompts):
		view = viewPrompts
	case key.Matches(k, s.keys.Log):
		view = viewLog
	}
	return openMCPCmd(view, sv.Name)
}

// serversKeys are the keys of the servers screen.
type serversKeys struct {
	Up, Down  key.Binding
	Restart   key.Binding
	Resources key.Binding
	Prompts   key.Binding
	Log       key.Binding
	Traffic   key.Binding
	Roots     key.Binding
	g         *globalKeys
}

func newServersKeys(g *globalKeys) serversKeys {
	return serversKeys{
		g:         g,
		Up:        bind([]string{"up", "k"}, "↑/k", "up"),
		Down:      bind([]string{"down", "j"}, "↓/j", "down"),
		Restart:   bind([]string{"r"}, "r", "restart"),
		Resources: bind([]string{"o"}, "o", "the server's resources and templates"),
		Prompts:   bind([]string{"p"}, "p", "the server's prompts"),
		Log:       bind([]string{"l"}, "l", "the server's log and stderr"),
		Traffic:   bind([]string{"t"}, "t", "the JSON-RPC messages exchanged with the server"),
		Roots:     bind([]string{"f"}, "f", "the roots given to the servers"),
	}
}

func (k serversKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "move"), k.Restart, short(k.Resources, "resources"), short(k.Prompts, "prompts"),
		short(k.Log, "log"), short(k.Traffic, "traffic"), short(k.Roots, "roots"), k.g.short(backKey, "back"), k.g.short(helpKey, "help")}
}

func (k serversKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Restart}, {k.Resources, k.Prompts, k.Log, k.Traffic, k.Roots}}
}

// serverChanged follows a server that restarted or stopped: the tool list
// is rebuilt (its tools left or came back), availability checked again,
// the status line says what happened, and a stop is watched for again.
func (m *Model) serverChanged(msg tea.Msg) tea.Cmd {
	cmds := []tea.Cmd{m.servers.Update(msg)}
	switch msg := msg.(type) {
	case serverRestartedMsg:
		if msg.err != nil {
			m.setStatus(fmt.Sprintf("server %s: restart failed: %v", msg.name, msg.err), false)
		} else {
			m.setStatus("server "+msg.name+" restarted", true)
		}
	case serverStoppedMsg:
		m.setStatus("server "+msg.name+" has stopped: its tools are unavailable; "+keyName(m.c.global.Servers)+" shows it, "+keyName(m.servers.keys.Restart)+" there restarts it", false)
		cmds = append(cmds, watchServersCmd(m.c.servers))
	}
	m.list.reload()
	cmds = append(cmds, availabilityCmd(m.c, m.list.names()))
	return tea.Batch(cmds...)
}
