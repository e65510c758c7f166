package tui

import (
	"context"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// mcpViews are the screens of what MCP servers offer besides tools
// (resources, prompts, their log, the messages exchanged, the roots),
// with what the console keeps of the servers' feed. The root Model routes
// to it every message of these screens (mcpMsg) and the feed.
type mcpViews struct {
	c         *common
	resources *resourcesScreen
	prompts   *promptsScreen
	fill      *fillScreen
	content   *contentScreen
	log       *logScreen
	traffic   *trafficScreen
	roots     *rootsScreen

	// logLines and messages are the servers' log and the messages
	// exchanged, oldest first, the last feedBound of each.
	logLines []LogLine
	messages []Message
	// updates counts each resource's updates since it was subscribed to,
	// with the time of the last; subscribed are the resources subscribed
	// to, by server and URI.
	updates    map[serverURI]updateCount
	subscribed map[serverURI]bool
}

type serverURI struct{ server, uri string }

type updateCount struct {
	n    int
	last time.Time
}

func newMCPViews(c *common) *mcpViews {
	v := &mcpViews{c: c, updates: map[serverURI]updateCount{}, subscribed: map[serverURI]bool{}}
	v.resources = newResourcesScreen(c, v)
	v.prompts = newPromptsScreen(c, v)
	v.fill = newFillScreen(c)
	v.content = newContentScreen(c)
	v.log = newLogScreen(c, v)
	v.traffic = newTrafficScreen(c, v)
	v.roots = newRootsScreen(c)
	return v
}

func (v *mcpViews) screens() []screen {
	return []screen{v.resources, v.prompts, v.fill, v.content, v.log, v.traffic, v.roots}
}

// mcpMsg is a message of the MCP screens, which mcpViews routes.
type mcpMsg interface{ mcpViews() }

// mcpView names one of the MCP screens.
type mcpView int

const (
	viewResources mcpView = iota
	viewPrompts
	viewLog
	viewTraffic
	viewRoots
)

// openMCPMsg opens the view of server.
type openMCPMsg struct {
	view   mcpView
	server string
}

func (openMCPMsg) mcpViews() {}

func openMCPCmd(view mcpView, server string) tea.Cmd {
	return msgCmd(openMCPMsg{view: view, server: server})
}

// pushMsg puts a screen on top.
type pushMsg struct{ s screen }

func (pushMsg) mcpViews() {}

func pushCmd(s screen) tea.Cmd { return msgCmd(pushMsg{s}) }

// Update handles a message of the MCP screens; the screen to put on top,
// if any, is returned for the root to push.
func (v *mcpViews) Update(msg mcpMsg) (screen, tea.Cmd) {
	switch msg := msg.(type) {
	case openMCPMsg:
		switch msg.view {
		case viewResources:
			return v.resources, v.resources.open(msg.server)
		case viewPrompts:
			return v.prompts, v.prompts.open(msg.server)
		case viewLog:
			v.log.open(msg.server)
			return v.log, nil
		case viewTraffic:
			v.traffic.open(msg.server)
			return v.traffic, nil
		case viewRoots:
			return v.roots, nil
		}
	case pushMsg:
		return msg.s, nil
	case resourceReadMsg, subscribedMsg:
		return nil, v.resources.Update(msg)
	case promptGotMsg:
		return nil, v.prompts.Update(msg)
	case logLevelMsg:
		return nil, v.log.Update(msg)
	case rootsSetMsg:
		return nil, v.roots.Update(msg)
	}
	return nil, nil
}

// fed keeps what the feed brought and watches it again.
func (v *mcpViews) fed(msg feedMsg) tea.Cmd {
	v.logLines = keepLast(v.logLines, msg.log)
	v.messages = keepLast(v.messages, msg.traffic)
	for _, u := range msg.updates {
		k := serverURI{u.server, u.uri}
		n := v.updates[k]
		v.updates[k] = updateCount{n: n.n + 1, last: u.time}
		v.logLines = keepLast(v.logLines, []LogLine{{Server: u.server, Time: u.time, Source: "update", Text: "resource updated: " + u.uri}})
	}
	v.log.refresh()
	v.traffic.refresh()
	return watchFeedCmd(v.c)
}

// keepLast appends more to s, keeping the last feedBound.
func keepLast[T any](s, more []T) []T {
	s = append(s, more...)
	if over := len(s) - feedBound; over > 0 {
		s = slices.Delete(s, 0, over)
	}
	return s
}

// connectedServers are the names of the servers connected now.
func (c *common) connectedServers() []string {
	if c.servers == nil {
		return nil
	}
	var out []string
	for _, s := range c.servers.List() {
		if s.Status == ServerConnected {
			out = append(out, s.Name)
		}
	}
	return out
}

// paletteEntries adds the MCP screens of each connected server to the
// command palette.
// The keys shown are those of the servers screen, sk.
func (v *mcpViews) paletteEntries(sk *serversKeys, add func(kind int, name, desc string, b *key.Binding, run func(m *Model) tea.Cmd)) {
	if v.c.features == nil {
		return
	}
	for _, s := range v.c.connectedServers() {
		add(paletteScreen, "Resources of "+s, "read, fill templates, subscribe", &sk.Resources, func(*Model) tea.Cmd { return openMCPCmd(viewResources, s) })
		add(paletteScreen, "Prompts of "+s, "fill a prompt's arguments and see its messages", &sk.Prompts, func(*Model) tea.Cmd { return openMCPCmd(viewPrompts, s) })
		add(paletteScreen, "Log of "+s, "its log messages and stderr", &sk.Log, func(*Model) tea.Cmd { return openMCPCmd(viewLog, s) })
		add(paletteScreen, "Traffic of "+s, "the JSON-RPC messages exchanged", &sk.Traffic, func(*Model) tea.Cmd { return openMCPCmd(viewTraffic, s) })
	}
	add(paletteScreen, "Roots", "the directories the MCP servers are given", &sk.Roots, func(*Model) tea.Cmd { return openMCPCmd(viewRoots, "") })
}

// callCtx is the context of a request to a server made from a screen:
// the console's, bounded.
func (c *common) callCtx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(c.ctx, requestTimeout)
}

// requestTimeout bounds a read, a get or a subscription asked from the
// console.
const requestTimeout = time.Minute
