package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// namedServer is one MCP server to connect, as --server or the config
// names it.
type namedServer struct {
	name   string
	server config.Server
}

// serverFlag collects the repeatable --server NAME=COMMAND... and
// --server NAME=URL.
type serverFlag struct{ list *[]namedServer }

func (f serverFlag) String() string { return "" }

func (f serverFlag) Get() any { return *f.list }

func (f serverFlag) Set(v string) error {
	s, err := parseServerFlag(v)
	if err != nil {
		return err
	}
	*f.list = append(*f.list, s)
	return nil
}

// parseServerFlag reads NAME=URL (http or https) or NAME=COMMAND ARGS...,
// the command's words split as a POSIX shell splits them (quotes and
// backslashes; see shellWords), with no shell run.
func parseServerFlag(v string) (namedServer, error) {
	name, spec, ok := strings.Cut(v, "=")
	spec = strings.TrimSpace(spec)
	if !ok || strings.TrimSpace(name) == "" || spec == "" {
		return namedServer{}, errors.New(`want NAME=COMMAND or NAME=URL, like everything="npx -y @modelcontextprotocol/server-everything"`)
	}
	name = strings.TrimSpace(name)
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		return namedServer{name, config.Server{URL: spec}}, nil
	}
	words, err := shellWords(spec)
	if err != nil {
		return namedServer{}, fmt.Errorf("server %q: %w", name, err)
	}
	if len(words) == 0 || words[0] == "" {
		return namedServer{}, fmt.Errorf("server %q: the command is empty", name)
	}
	return namedServer{name, config.Server{Command: words[0], Args: words[1:]}}, nil
}

// shellWords splits s into words as a POSIX shell does, without expanding
// anything: blanks separate words; 'single quotes' keep everything up to
// the next single quote; "double quotes" keep everything but a backslash
// before one of $ ` " \ or a newline, which stands for that character
// (the newline is dropped); outside quotes a backslash keeps the next
// character as it is (a backslash and a newline are dropped). A pair of
// quotes with nothing between them is an empty word.
func shellWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(s) {
				return nil, errors.New("the command ends with a lone backslash")
			}
			i++
			if s[i] != '\n' {
				w.WriteByte(s[i])
				inWord = true
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("the single quote at byte %d is not closed", i+1)
			}
			w.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case c == '"':
			inWord = true
			start := i
			for i++; ; i++ {
				if i == len(s) {
					return nil, fmt.Errorf("the double quote at byte %d is not closed", start+1)
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue
					}
				}
				w.WriteByte(s[i])
			}
		default:
			inWord = true
			w.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// server is one MCP server of --server or the config: connected (remote
// set) or not (err says why).
type server struct {
	name   string
	cfg    config.Server
	spec   mcp.Spec // cfg as connected: its variables expanded (serverSpec)
	remote *mcp.Remote
	err    error
	// misconfigured: it cannot be connected as the config gives it (its
	// tools would be named as another server's, a variable is undefined);
	// it is never connected.
	misconfigured bool
	// unsupervise stops the goroutine that starts the server again when it
	// stops (supervise), and waits for it; nil before the first.
	unsupervise func()
}

// connectNotice is how long the servers may take to connect before the
// command says it is waiting for them.
var connectNotice = 2 * time.Second

// connectServers connects the servers of the config and of --server (which
// wins for a name both give), all at once, and adds their tools to the
// registry. A server that cannot be connected, or a tool of it the registry
// refuses, is a warning, kept in serverProblems for the console; the other
// servers and tools are added. When they take longer than connectNotice,
// it says which ones it waits for. It returns false when there are servers
// and ctx was canceled (Ctrl-C) meanwhile.
func (a *app) connectServers(cfg config.Config) bool {
	byName := map[string]config.Server{}
	for name, s := range cfg.Servers {
		byName[name] = s
	}
	for _, s := range a.flagServers {
		byName[s.name] = s.server
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	if len(names) == 0 {
		return true
	}
	sort.Strings(names)
	ready := make([]chan struct{}, len(names))
	var wg sync.WaitGroup
	groups := map[string]string{}
	for i, name := range names {
		s := &server{name: name, cfg: byName[name]}
		a.servers = append(a.servers, s)
		ready[i] = make(chan struct{})
		group := serverGroup(name)
		if other, ok := groups[group]; ok {
			// Connected at once, the two would share the names of the
			// tools they have in common, each taking some.
			s.err = fmt.Errorf("server %q: its tools would be named %s.*, as those of the server %q are: rename one of the two", name, group, other)
			s.misconfigured = true
			close(ready[i])
			continue
		}
		groups[group] = name
		if s.spec, s.err = a.serverSpec(name, s.cfg); s.err != nil {
			s.misconfigured = true
			close(ready[i])
			continue
		}
		wg.Go(func() {
			defer close(ready[i])
			s.remote, s.err = mcp.Connect(a.ctx, a.reg, name, s.spec, a.connectOptions()...)
		})
	}
	all := make(chan struct{})
	go func() {
		wg.Wait()
		close(all)
	}()
	notice := time.NewTimer(connectNotice)
	select {
	case <-all:
	case <-notice.C:
		var waiting []string
		for i, name := range names {
			select {
			case <-ready[i]:
			default:
				waiting = append(waiting, strconv.Quote(name))
			}
		}
		what := "server " + waiting[0]
		if len(waiting) > 1 {
			what = "servers " + strings.Join(waiting, ", ")
		}
		fmt.Fprintf(a.stderr, "toolexplorer: waiting for the MCP %s to answer (at most %s; Ctrl-C stops waiting)\n", what, mcp.ConnectTimeout)
		<-all
	}
	notice.Stop()
	for _, s := range a.servers {
		if s.err != nil {
			a.serverProblem(s.err)
			continue
		}
		for _, err := range s.remote.Skipped() {
			a.serverProblem(err)
		}
		a.supervise(s)
	}
	return a.ctx.Err() == nil
}

func (a *app) serverProblem(err error) {
	msg := strings.TrimPrefix(err.Error(), "mcp: ")
	a.serverProblems = append(a.serverProblems, msg)
	fmt.Fprintf(a.stderr, "toolexplorer: warning: %s\n", msg)
}

// closeServers removes the servers' tools and stops the servers, and
// closes the tools files' sources.
func (a *app) closeServers() {
	defer a.closeToolFiles()
	// A server restarting would be started after the others are stopped,
	// and outlive the command: its restart is canceled, and waited for.
	a.serversMu.Lock()
	a.serversClosed = true
	for _, cancel := range a.restartCancel {
		cancel()
	}
	if a.superviseCancel != nil {
		a.superviseCancel()
	}
	a.serversMu.Unlock()
	a.restarts.Wait()
	a.supervisors.Wait()
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	for _, s := range a.servers {
		if s.remote == nil {
			continue
		}
		if err := s.remote.Close(); err != nil {
			a.errorf("server %q: stopping it: %v", s.name, err)
		}
	}
	a.servers = nil
}

// remoteOf says where the tool name comes from when it is a server's; nil
// for a local tool.
func (a *app) remoteOf(name string) *remoteInfo {
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	for _, s := range a.servers {
		if s.remote == nil {
			continue
		}
		for _, t := range s.remote.Tools() {
			if t.Name == name {
				return &remoteInfo{Server: s.remote.Name(), Name: t.Remote, Confinement: confinementText(s.cfg.Confine)}
			}
		}
	}
	return nil
}

// target is how a server is reached, as a person would write it.
func (s *server) target() string {
	if s.cfg.URL != "" {
		return mcp.ShownURL(s.cfg.URL)
	}
	words := append([]string{s.cfg.Command}, s.cfg.Args...)
	for i, w := range words {
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?[]{}()<>|&;~#") {
			words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(words, " ")
}

// elicit answers a server's request for input during a call: the console
// asks the person when it is open; a command has no one to ask, declines,
// and says so on stderr.
func (a *app) elicit(ctx context.Context, e mcp.Elicitation) (map[string]any, bool, error) {
	if ask := a.consoleAsker(); ask != nil {
		return ask.Ask(ctx, e.Server, e.Message, e.Schema)
	}
	a.errorf("server %q asked for input during the call (%s): declined, there is no console to ask", e.Server, strings.TrimSpace(strings.SplitN(e.Message, "\n", 2)[0]))
	return nil, false, nil
}

// confinementText says what a confined server may reach; "" for nil.
func confinementText(c *tooling.Confinement) string {
	if c == nil {
		return ""
	}
	list := func(what string, items []string) string {
		if len(items) == 0 {
			return what + ": none"
		}
		return what + ": " + strings.Join(items, ", ")
	}
	ports := make([]string, len(c.ConnectTCP))
	for i, p := range c.ConnectTCP {
		ports[i] = fmt.Sprint(p)
	}
	parts := []string{"confined (landlock, seccomp, limits)", list("reads", c.Read), list("writes", c.Write),
		list("TCP ports", ports), list("other programs", c.Exec)}
	if c.Limits.CPUSeconds > 0 {
		parts = append(parts, fmt.Sprintf("CPU: %d s", c.Limits.CPUSeconds))
	}
	if c.Limits.MemoryBytes > 0 {
		parts = append(parts, fmt.Sprintf("memory: %d bytes", c.Limits.MemoryBytes))
	}
	return strings.Join(parts, "; ")
}

// serverGroup is the group of a server's tools, as mcp.Connect names them.
func serverGroup(name string) string {
	return toolname.Snake(strings.ReplaceAll(name, ".", "_"))
}

// serverHint says why there is no tool name in a server's group: the
// server could not be connected (and why), it left the tool out (and why),
// or it has no tool of that name (and which it has). "" when name is not
// in the group of one of the servers.
func (a *app) serverHint(name string) string {
	group, tool, ok := strings.Cut(name, ".")
	if !ok {
		return ""
	}
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	for _, s := range a.servers {
		if serverGroup(s.name) != group {
			continue
		}
		if s.remote == nil {
			var re *restartingError
			if s.err == nil || errors.As(s.err, &re) {
				return fmt.Sprintf("the MCP server %q is restarting: its tools are back once it is connected", s.name)
			}
			why := s.err.Error()
			var ce *mcp.ConnectError
			if errors.As(s.err, &ce) {
				why = ce.Err.Error()
			}
			return fmt.Sprintf("the MCP server %q, whose tools are %s.*, could not be connected: %s", s.name, group, why)
		}
		for _, err := range s.remote.Skipped() {
			remote, why, ok := leftOut(s.name, err)
			if ok && toolname.Snake(strings.ReplaceAll(remote, ".", "_")) == tool {
				return fmt.Sprintf("the MCP server %q lists %q, but it was left out: %s", s.name, remote, why)
			}
		}
		var names []string
		for _, t := range s.remote.Tools() {
			names = append(names, t.Name)
		}
		if len(names) == 0 {
			return fmt.Sprintf("the MCP server %q has no tools", s.name)
		}
		if len(names) > 8 {
			names = append(names[:8], fmt.Sprintf("and %d more (toolexplorer list)", len(names)-8))
		}
		return fmt.Sprintf("the MCP server %q has no tool of that name; its tools: %s", s.name, strings.Join(names, ", "))
	}
	return ""
}

// leftOut reads a tool left out by server (an error of Skipped): the name
// the server gives it and why it was left out.
func leftOut(server string, err error) (remote, why string, ok bool) {
	rest, ok := strings.CutPrefix(err.Error(), fmt.Sprintf("mcp: server %q: tool ", server))
	if !ok {
		return "", "", false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return "", "", false
	}
	remote, _ = strconv.Unquote(q)
	why, ok = strings.CutPrefix(rest[len(q):], " left out: ")
	return remote, why, ok
}
