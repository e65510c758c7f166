//lint:file-ignore SA1019 sampling, roots and logging are deprecated from protocol 2026-07-28, and servers still use them

package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Observer receives what happens between the client and a server besides
// calls: the JSON-RPC messages exchanged, the server's log and its
// resources' updates. Each function may be nil; each is called from the
// connection's goroutines and must not block.
type Observer struct {
	// Traffic gets every JSON-RPC message exchanged with the server, in
	// the order read or written: a stdio server's as they pass on its
	// pipes, an HTTP server's as they pass in requests' bodies and in
	// responses' (JSON or an event stream).
	Traffic func(Message)
	// Log gets each log message the server sends (notifications/message)
	// and each line a stdio server writes to its stderr.
	Log func(LogEntry)
	// Updated gets the URI of each resource the server says changed
	// (notifications/resources/updated), once subscribed to.
	Updated func(server, uri string)
}

// Message is one JSON-RPC message exchanged with a server.
type Message struct {
	Server string
	Time   time.Time
	// Sent is true for a message the client wrote, false for one it read.
	Sent bool
	// Kind is "request", "notification", "response" or "error".
	Kind string
	// Method is a request's or notification's method; a response's is the
	// method of the request it answers, when that request was seen.
	Method string
	// ID is a request's or response's id as JSON; "" for a notification.
	ID string
	// Raw is the message as it travels.
	Raw json.RawMessage
}

// LogEntry is one line of a server's log.
type LogEntry struct {
	Server string
	Time   time.Time
	// Source is "log" for the server's notifications/message, "stderr"
	// for a line of its stderr.
	Source string
	// Level is the message's level (debug … emergency); "" for stderr.
	Level  string
	Logger string
	// Text is the message: its data as text, or as JSON when it is not a
	// string.
	Text string
}

// WithObserver has o told what happens between the client and the server
// (Observer).
func WithObserver(o Observer) ConnectOption {
	return func(c *connectOptions) { c.observer = o }
}

// tap is a stdio server's transport seen from the client: it reports each
// message to the observer, and notes which tools the server runs only as
// tasks from its tools/list answers, which the SDK's Tool drops.
type tap struct {
	sdk.Transport
	r *Remote
}

func (t *tap) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, tapState: newTapState(t.r)}, nil
}

type tapConn struct {
	sdk.Connection
	*tapState
}

// tapState is what a tap, of a stdio connection or of HTTP requests,
// keeps: the method of each request in flight, so that its response is
// named by it.
type tapState struct {
	r *Remote

	mu      sync.Mutex
	pending map[string]string // the method of each request in flight, by direction and id
}

func newTapState(r *Remote) *tapState { return &tapState{r: r, pending: map[string]string{}} }

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if err == nil {
		c.seen(m, false)
	}
	return m, err
}

func (c *tapConn) Write(ctx context.Context, m jsonrpc.Message) error {
	c.seen(m, true)
	return c.Connection.Write(ctx, m)
}

// seen notes the message m, sent or received.
func (c *tapState) seen(m jsonrpc.Message, sent bool) {
	var msg Message
	switch m := m.(type) {
	case *jsonrpc.Request:
		msg.Kind, msg.Method = "notification", m.Method
		if m.ID.IsValid() {
			msg.Kind, msg.ID = "request", idText(m.ID)
			c.mu.Lock()
			c.pending[direction(sent)+msg.ID] = m.Method
			c.mu.Unlock()
		}
	case *jsonrpc.Response:
		msg.Kind, msg.ID = "response", idText(m.ID)
		if m.Error != nil {
			msg.Kind = "error"
		}
		key := direction(!sent) + msg.ID // the request went the other way
		c.mu.Lock()
		msg.Method = c.pending[key]
		delete(c.pending, key)
		c.mu.Unlock()
		if msg.Method == "tools/list" && !sent && m.Error == nil {
			c.r.noteTaskOnly(m.Result)
		}
	default:
		return
	}
	f := c.r.observer.Traffic
	if f == nil {
		return
	}
	raw, err := jsonrpc.EncodeMessage(m)
	if err != nil {
		return
	}
	msg.Server, msg.Time, msg.Sent, msg.Raw = c.r.name, time.Now(), sent, raw
	f(msg)
}

func direction(sent bool) string {
	if sent {
		return ">"
	}
	return "<"
}

// idText is a JSON-RPC id as JSON: 3, or "abc".
func idText(id jsonrpc.ID) string {
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return fmt.Sprint(id.Raw())
	}
	return string(b)
}

// noteTaskOnly notes, from a tools/list result, the tools whose
// execution.taskSupport is "required": a plain tools/call of them fails.
func (r *Remote) noteTaskOnly(result json.RawMessage) {
	var list struct {
		Tools []struct {
			Name      string `json:"name"`
			Execution *struct {
				TaskSupport string `json:"taskSupport"`
			} `json:"execution"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &list) != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.taskOnly == nil {
		r.taskOnly = map[string]bool{}
	}
	for _, t := range list.Tools {
		if t.Execution != nil && t.Execution.TaskSupport == "required" {
			r.taskOnly[t.Name] = true
		}
	}
}

// needsTask reports whether the server said it runs its tool remote only
// as a task.
func (r *Remote) needsTask(remote string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.taskOnly[remote]
}

// logged passes the server's log message on to the observer.
func (r *Remote) logged(_ context.Context, req *sdk.LoggingMessageRequest) {
	f := r.observer.Log
	if f == nil || req.Params == nil {
		return
	}
	p := req.Params
	text, ok := p.Data.(string)
	if !ok {
		b, _ := json.Marshal(p.Data)
		text = string(b)
	}
	f(LogEntry{Server: r.name, Time: time.Now(), Source: "log", Level: string(p.Level), Logger: p.Logger, Text: text})
}

// stderrLines passes each line a stdio server writes to its stderr on to
// the observer.
func (r *Remote) stderrLines() func(string) {
	f := r.observer.Log
	if f == nil {
		return nil
	}
	return func(line string) {
		f(LogEntry{Server: r.name, Time: time.Now(), Source: "stderr", Text: line})
	}
}

// lineSplitter calls f with each whole line written to it, and with what
// is left of a line longer than maxLogLine.
type lineSplitter struct {
	f    func(string)
	part []byte
}

const maxLogLine = 4 << 10

func (l *lineSplitter) write(p []byte) {
	for len(p) > 0 {
		i := strings.IndexByte(string(p), '\n')
		if i < 0 {
			l.part = append(l.part, p...)
			if len(l.part) >= maxLogLine {
				l.f(strings.TrimRight(string(l.part), "\r"))
				l.part = l.part[:0]
			}
			return
		}
		l.part = append(l.part, p[:i]...)
		l.f(strings.TrimRight(string(l.part), "\r"))
		l.part = l.part[:0]
		p = p[i+1:]
	}
}

// SetLogLevel asks the server to send its log messages of level and above
// (logging/setLevel): debug, info, notice, warning, error, critical,
// alert or emergency.
//
// From protocol 2026-07-28 the level travels in each request's _meta, and
// the server logs only while it serves a request.
func (r *Remote) SetLogLevel(ctx context.Context, level string) error {
	if err := r.Err(); err != nil {
		return err
	}
	r.logLevel.Store(&level)
	if init := r.session.InitializeResult(); init != nil && init.ProtocolVersion >= mrtrVersion {
		return nil
	}
	return r.session.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: sdk.LoggingLevel(level)})
}

// levelMeta puts the log level set (SetLogLevel) in each request's _meta,
// where servers on protocol 2026-07-28 and later read it.
func (r *Remote) levelMeta(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		level := r.logLevel.Load()
		if level == nil || method == "initialize" {
			return next(ctx, method, req)
		}
		if p := req.GetParams(); p != nil {
			meta := p.GetMeta()
			if meta == nil {
				meta = map[string]any{}
			}
			meta[sdk.MetaKeyLogLevel] = *level
			p.SetMeta(meta)
		}
		return next(ctx, method, req)
	}
}
