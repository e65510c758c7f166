package tui

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Features are what the MCP servers offer besides their tools: resources,
// prompts, their log level and the roots the person gives them. The host
// provides them (Options.Features); each method names the server.
type Features interface {
	// Resources returns the server's resources and resource templates as
	// last listed.
	Resources(server string) ([]Resource, []ResourceTemplate)
	// ReadResource reads uri and returns the server's result as JSON
	// ({"contents":[…]}).
	ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error)
	// Subscribe asks the server to say when uri changes (on), or to stop.
	Subscribe(ctx context.Context, server, uri string, on bool) error
	// Prompts returns the server's prompts as last listed.
	Prompts(server string) []Prompt
	// GetPrompt fills the prompt name with args and returns the server's
	// result as JSON ({"messages":[…]}).
	GetPrompt(ctx context.Context, server, name string, args map[string]string) (json.RawMessage, error)
	// SetLogLevel asks the server to log from level up.
	SetLogLevel(ctx context.Context, server, level string) error
	// Roots are the roots every server is given; SetRoots replaces them
	// and tells the servers.
	Roots() []Root
	SetRoots(roots []Root) error
}

// Resource is a resource a server lists.
type Resource struct {
	URI, Name, Title, Description, MIMEType string
	Size                                    int64
}

// ResourceTemplate is a server's template of resource URIs, like
// "demo://resource/dynamic/text/{index}".
type ResourceTemplate struct {
	URITemplate, Name, Title, Description, MIMEType string
}

// Prompt is a prompt a server lists.
type Prompt struct {
	Name, Title, Description string
	Arguments                []PromptArgument
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name, Title, Description string
	Required                 bool
}

// Root is a file:// URI the person gives the servers to work in.
type Root struct {
	URI, Name string
}

// LogLine is one line of a server's log: a log message it sent, or a line
// of its stderr.
type LogLine struct {
	Server string
	Time   time.Time
	// Source is "log" or "stderr"; Level is a log message's level.
	Source, Level, Logger string
	Text                  string
}

// Message is one JSON-RPC message exchanged with a server.
type Message struct {
	Server string
	Time   time.Time
	// Sent is true for a message the console's client wrote.
	Sent bool
	// Kind is "request", "notification", "response" or "error"; Method is
	// a response's request's method when known.
	Kind, Method, ID string
	Raw              json.RawMessage
}

// feedBound is how many log lines and messages the console keeps, the
// oldest dropped first.
const feedBound = 5000

// Feed carries what servers say outside of calls to the console: their
// log, the messages exchanged with them and their resources' updates. Make
// one with NewFeed, give it to Options.Feed, and call its methods from any
// goroutine: they never block. It keeps the last feedBound of each kind
// until the console takes them.
type Feed struct {
	mu      sync.Mutex
	log     []LogLine
	traffic []Message
	updates []resourceUpdate
	ready   chan struct{} // holds a token while something waits to be taken

	done      chan struct{}
	closeOnce sync.Once
}

// NewFeed returns a Feed for one console.
func NewFeed() *Feed { return &Feed{ready: make(chan struct{}, 1), done: make(chan struct{})} }

// Close ends the console's wait for the feed.
func (f *Feed) Close() { f.closeOnce.Do(func() { close(f.done) }) }

type resourceUpdate struct {
	server, uri string
	time        time.Time
}

// Log adds a line of a server's log.
func (f *Feed) Log(l LogLine) { f.add(func() { f.log = bounded(f.log, l) }) }

// Traffic adds a message exchanged with a server.
func (f *Feed) Traffic(m Message) { f.add(func() { f.traffic = bounded(f.traffic, m) }) }

// Updated says that the server's resource uri changed.
func (f *Feed) Updated(server, uri string) {
	f.add(func() { f.updates = bounded(f.updates, resourceUpdate{server, uri, time.Now()}) })
}

func (f *Feed) add(change func()) {
	f.mu.Lock()
	change()
	f.mu.Unlock()
	select {
	case f.ready <- struct{}{}:
	default:
	}
}

func bounded[T any](s []T, v T) []T {
	if len(s) >= feedBound {
		s = append(s[:0], s[len(s)-feedBound+1:]...)
	}
	return append(s, v)
}

// feedMsg brings what the Feed held to the console.
type feedMsg struct {
	log     []LogLine
	traffic []Message
	updates []resourceUpdate
}

// take returns what the feed holds and empties it.
func (f *Feed) take() feedMsg {
	f.mu.Lock()
	defer f.mu.Unlock()
	m := feedMsg{log: f.log, traffic: f.traffic, updates: f.updates}
	f.log, f.traffic, f.updates = nil, nil, nil
	return m
}

// watchFeedCmd waits until the feed holds something, and takes it.
func watchFeedCmd(c *common) tea.Cmd {
	if c.feed == nil {
		return nil
	}
	f, done := c.feed, c.ctx.Done()
	return func() tea.Msg {
		select {
		case <-f.ready:
			return f.take()
		case <-f.done:
		case <-done:
		}
		return nil
	}
}
