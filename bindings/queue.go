package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
	"github.com/toolexplorer/toolexplorer/internal/jsonenc"
)

// QueueSource is a message queue in a tools file:
//
//	sources:
//	  events:
//	    queue: {provider: redis, url: "redis://:${REDIS_PASSWORD}@localhost:6379/0"}
//	  bus:
//	    queue: {provider: nats, url: "nats://${NATS_USER}:${NATS_PASSWORD}@localhost:4222"}
//
// A call's idempotency key makes a repeated publish add nothing: NATS sends
// it as the message id (Nats-Msg-Id), which the stream remembers for its
// duplicate window (two minutes unless configured); Redis remembers it for
// two minutes beside the stream (key STREAM:idempotency:KEY). Either way the
// repeat answers with the first message's id, marked duplicate.
type QueueSource struct {
	// Provider is "redis" (Redis Streams, XADD) or "nats" (NATS JetStream).
	Provider string `yaml:"provider" json:"provider"`
	// URL is the server: redis://, rediss:// or unix:// for Redis, nats://
	// or tls:// (a comma-separated list of servers) for NATS. Its ${NAME}
	// references are resolved at call time; a missing one fails the call,
	// naming the variable.
	URL string `yaml:"url" json:"url"`
}

// QueueBinding is a tool's publish to a queue source: one message per call.
//
//	binding:
//	  queue:
//	    source: events
//	    stream: orders            # Redis; NATS takes subject (and optionally stream)
//	    message: {order: "{order_id}", lines: {$arg: lines}, kind: created}
//	    headers: {X-Tenant: "{tenant}", X-Schema: "order.v1"}
//	    max_len: 100000
type QueueBinding struct {
	// Source names the source, one of the file's queue sources.
	Source string `yaml:"source" json:"source"`
	// Stream is the Redis stream the message is added to (required for
	// Redis). For NATS it is optional: the JetStream stream the subject must
	// belong to, checked by the server on every publish.
	Stream string `yaml:"stream,omitempty" json:"stream,omitempty"`
	// Subject is the NATS subject published to (required for NATS; no
	// wildcards). Redis has none.
	Subject string `yaml:"subject,omitempty" json:"subject,omitempty"`
	// Message is a JSON template of the message, as an HTTP binding's body:
	// a string that is exactly "{name}", or an object that is exactly
	// {"$arg": "name"}, is replaced by the argument's JSON value (left out of
	// its object, or null in an array, when the argument is absent);
	// everything else is sent as written. Text is never spliced. Zero: the
	// arguments object is the message.
	Message any `yaml:"message,omitempty" json:"message,omitempty"`
	// Headers are the message's headers (stream fields beside "message" for
	// Redis), templates as an HTTP binding's: constant text, {name} for an
	// argument's text (the header is left out when it is absent) and
	// ${NAME} credentials (shown as ${NAME} in shadow calls). A value with a
	// control character (CR, LF, NUL, ...) is refused. Zero: none.
	Headers map[string]string `yaml:"headers,omitempty" json:"headers,omitempty"`
	// MaxLen caps a Redis stream at about this many entries (XADD MAXLEN ~),
	// the oldest trimmed first. Zero: no cap. NATS streams are capped by
	// their own configuration.
	MaxLen int64 `yaml:"max_len,omitempty" json:"max_len,omitempty"`
}

// Limits of one message, whatever the server would take: NATS's default
// max_payload, and a header line no proxy or library would choke on.
const (
	queueMaxMessage = 1 << 20
	queueMaxHeader  = 4 << 10
)

// publisher is a connection to one queue server, made by the provider a
// package registered (bindings/redis, bindings/nats).
type publisher = driver.Publisher

// queueMessage is one message, built from a call's arguments.
type queueMessage = driver.Message

// queueSource is an opened queue source: its client is made on first use,
// with the URL resolved then, and made again when the URL's credentials
// change; close closes it.
type queueSource struct {
	name     string
	provider string
	url      tmpl // as written, ${NAME} references unresolved
	dial     func(ctx context.Context, url string) (publisher, error)

	lock   chan struct{} // a mutex that a waiting call can give up on
	pub    publisher
	pubURL string // the resolved URL pub was made with
	closed bool
}

func openQueue(name string, s *QueueSource) (*queueSource, error) {
	if s == nil {
		return nil, errors.New("queue: the source is empty")
	}
	q := &queueSource{name: name, provider: s.Provider, lock: make(chan struct{}, 1)}
	var schemes []string
	switch s.Provider {
	case "redis", "nats":
		p, ok := driver.LookupQueue(s.Provider)
		if !ok {
			return nil, notLinked("provider", s.Provider)
		}
		q.dial, schemes = p.Dial, p.Schemes
	case "":
		return nil, errors.New("provider: missing; it is redis or nats")
	default:
		return nil, fmt.Errorf("provider: %q is not a queue provider; it is redis or nats", s.Provider)
	}
	if strings.TrimSpace(s.URL) == "" {
		return nil, errors.New("url: missing")
	}
	if !strings.HasPrefix(s.URL, "${") {
		for _, u := range strings.Split(s.URL, ",") {
			if !hasAnyPrefix(strings.TrimSpace(u), schemes) {
				return nil, fmt.Errorf("url: a %s URL starts with %s", s.Provider, strings.Join(schemes, ", "))
			}
		}
	}
	t, err := parseTemplate(s.URL, true)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	for _, sg := range t {
		if sg.kind == segArg {
			return nil, fmt.Errorf("url: {%s}: a source takes no arguments", sg.text)
		}
	}
	q.url = t
	return q, nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// client returns the source's publisher, made on first use with the URL as
// it resolves now.
func (q *queueSource) client(ctx context.Context, env Env) (publisher, error) {
	url, _, err := q.url.render(nil, env, false, renderQuery)
	if err != nil {
		return nil, fmt.Errorf("queue %s: url: %w", q.name, err)
	}
	select {
	case q.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, &TransientError{Err: fmt.Errorf("queue %s: %w", q.name, ctx.Err())}
	}
	defer func() { <-q.lock }()
	if q.closed {
		return nil, fmt.Errorf("queue %s: the source is closed", q.name)
	}
	if q.pub != nil && q.pubURL == url && !q.pub.Broken() {
		return q.pub, nil
	}
	if q.pub != nil {
		_ = q.pub.Close() // the credentials changed: calls still using it fail and may be retried
		q.pub = nil
	}
	p, err := q.dial(ctx, url)
	if err != nil {
		return nil, fromDriver(err)
	}
	q.pub, q.pubURL = p, url
	return p, nil
}

// close closes the client, if one was made. Calls after it fail.
func (q *queueSource) close() error {
	q.lock <- struct{}{}
	defer func() { <-q.lock }()
	q.closed = true
	if q.pub == nil {
		return nil
	}
	err := q.pub.Close()
	q.pub = nil
	return err
}

// queueBinding is a compiled queue binding.
type queueBinding struct {
	src     *queueSource
	stream  string
	subject string
	maxLen  int64
	message any // a body template (checkBody); nil: the arguments are the message
	headers []queueHeader
}

func compileQueue(b *QueueBinding, src *queueSource, in Input) (binding, error) {
	if b == nil || src == nil {
		return nil, errors.New("queue: the binding or its source is empty")
	}
	qb := &queueBinding{src: src, stream: b.Stream, subject: b.Subject, maxLen: b.MaxLen}
	switch src.provider {
	case "redis":
		if b.Stream == "" {
			return nil, errors.New("stream: missing; a Redis binding names the stream it adds to")
		}
		if b.Subject != "" {
			return nil, errors.New("subject: a Redis binding has a stream, not a subject")
		}
	case "nats":
		if err := checkSubject(b.Subject); err != nil {
			return nil, err
		}
		if b.MaxLen != 0 {
			return nil, errors.New("max_len: NATS streams are capped by their own configuration")
		}
	}
	if b.MaxLen < 0 {
		return nil, fmt.Errorf("max_len: %d is negative", b.MaxLen)
	}
	if b.Message != nil {
		if err := checkBody("message", b.Message, in); err != nil {
			return nil, err
		}
		qb.message = b.Message
	}
	h, err := compileQueueHeaders(b.Headers, src.provider, in)
	if err != nil {
		return nil, err
	}
	qb.headers = h
	return qb, nil
}

// checkSubject refuses what a NATS publish cannot take: an empty subject or
// token, wildcards, white space.
func checkSubject(s string) error {
	if s == "" {
		return errors.New("subject: missing; a NATS binding names the subject it publishes to")
	}
	for _, tok := range strings.Split(s, ".") {
		switch {
		case tok == "":
			return fmt.Errorf("subject: %q has an empty token", s)
		case tok == "*" || tok == ">":
			return fmt.Errorf("subject: %q has a wildcard; a message is published to one subject", s)
		case strings.ContainsAny(tok, " \t\r\n\x00"):
			return fmt.Errorf("subject: %q holds white space", s)
		}
	}
	return nil
}

func (b *queueBinding) kind() string   { return "queue" }
func (b *queueBinding) source() string { return b.src.name }
func (b *queueBinding) writes() bool   { return true } // a publish always is
func (b *queueBinding) close() error   { return nil }  // the client is the source's

func (b *queueBinding) do(ctx context.Context, req *Request) (Outcome, error) {
	if req.Env == nil {
		r := *req
		r.Env = os.LookupEnv
		req = &r
	}
	m, err := b.build(req, req.Shadow)
	if err != nil {
		return Outcome{}, err
	}
	if req.Shadow {
		return b.shadow(m), nil
	}
	p, err := b.src.client(ctx, req.Env)
	if err != nil {
		return Outcome{}, err
	}
	o, err := p.Publish(ctx, m)
	effects := map[string]string{"bytes": strconv.Itoa(len(m.Body))}
	if m.Stream != "" {
		effects["stream"] = m.Stream
	}
	if m.Subject != "" {
		effects["subject"] = m.Subject
	}
	return Outcome{Output: o.Output, Status: o.Status, ResponseBytes: o.ResponseBytes, Effects: effects}, fromDriver(err)
}

// build makes the message of one call, checking its size and headers;
// with redact, the headers' credentials are written as ${NAME}.
func (b *queueBinding) build(req *Request, redact bool) (*queueMessage, error) {
	m := &queueMessage{Stream: b.stream, Subject: b.subject, MaxLen: b.maxLen, ID: req.IdempotencyKey}
	var v any = req.Args
	if req.Args == nil {
		v = map[string]any{}
	}
	if b.message != nil {
		v, _ = fillBody(b.message, req.Args)
	}
	body, err := jsonenc.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("queue: the message: %w", err)
	}
	if len(body) > queueMaxMessage {
		return nil, fmt.Errorf("queue: the message is %d bytes, over the limit of %d", len(body), queueMaxMessage)
	}
	m.Body = body
	if m.Headers, err = placeQueueHeaders(b.headers, req, redact); err != nil {
		return nil, err
	}
	if !validHeaderValue(m.ID) || len(m.ID) > queueMaxHeader {
		return nil, errors.New("queue: the idempotency key holds a control character or is too long")
	}
	return m, nil
}

// shadow is what a call would publish, without publishing it (the loader
// marks it as a shadow call).
func (b *queueBinding) shadow(m *queueMessage) Outcome {
	out := map[string]any{
		"provider": b.src.provider,
		"source":   b.src.name,
		"message":  json.RawMessage(m.Body),
	}
	if m.Stream != "" {
		out["stream"] = m.Stream
	}
	if m.Subject != "" {
		out["subject"] = m.Subject
	}
	if len(m.Headers) > 0 {
		h := make(map[string]string, len(m.Headers))
		for _, f := range m.Headers {
			h[f[0]] = f[1]
		}
		out["headers"] = h
	}
	if m.ID != "" {
		out["idempotency_key"] = m.ID
	}
	return Outcome{Output: out, Status: "shadow"}
}

var (
	_ binding = (*queueBinding)(nil)
)
