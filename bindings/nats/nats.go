package nats

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	nats "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

func init() {
	driver.RegisterQueue("nats", driver.Queue{Schemes: []string{"nats://", "tls://", "ws://", "wss://"}, Dial: dialNATS})
}

// natsPublisher publishes to NATS JetStream and waits for the stream's
// acknowledgement. An idempotency key is the message id (Nats-Msg-Id): the
// stream keeps one message per id within its duplicate window (two
// minutes unless configured), so a retried publish is acknowledged as a
// duplicate instead of stored twice.
type natsPublisher struct {
	nc *nats.Conn
	js jetstream.JetStream
}

// dialNATS connects, within ctx, to the first server of the URL that
// answers; the client reconnects by itself after that.
func dialNATS(ctx context.Context, servers string) (driver.Publisher, error) {
	for _, s := range strings.Split(servers, ",") {
		if _, err := url.Parse(strings.TrimSpace(s)); err != nil {
			// The parser's message quotes the URL, credentials included.
			return nil, errors.New("queue: url: not a NATS URL (nats://[user:password@]host:port, tls://..., comma-separated)")
		}
	}
	type result struct {
		nc  *nats.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		nc, err := nats.Connect(servers, nats.Name("toolexplorer"), nats.NoCallbacksAfterClientClose(),
			// The client's default writes asynchronous errors to stderr, over
			// the console's screen; a publish reports its own failure.
			nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		done <- result{nc, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		go func() { // the connection is not wanted when it comes
			if r := <-done; r.nc != nil {
				r.nc.Close()
			}
		}()
		return nil, &driver.TransientError{Err: fmt.Errorf("queue: nats: connecting: %w", ctx.Err())}
	}
	if r.err != nil {
		return nil, natsError("connecting", r.err)
	}
	js, err := jetstream.New(r.nc)
	if err != nil {
		r.nc.Close()
		return nil, fmt.Errorf("queue: nats: %w", err)
	}
	return &natsPublisher{nc: r.nc, js: js}, nil
}

func (p *natsPublisher) Publish(ctx context.Context, m *driver.Message) (driver.Published, error) {
	msg := &nats.Msg{Subject: m.Subject, Data: m.Body}
	if len(m.Headers) > 0 {
		msg.Header = make(nats.Header, len(m.Headers))
		for _, h := range m.Headers {
			msg.Header.Set(h[0], h[1]) // as written: NATS headers are case-sensitive
		}
	}
	var opts []jetstream.PublishOpt
	if m.ID != "" {
		opts = append(opts, jetstream.WithMsgID(m.ID))
	}
	if m.Stream != "" {
		opts = append(opts, jetstream.WithExpectStream(m.Stream))
	}
	ack, err := p.js.PublishMsg(ctx, msg, opts...)
	if err != nil {
		if errors.Is(err, jetstream.ErrNoStreamResponse) {
			return driver.Published{}, fmt.Errorf("queue: nats subject %s: no JetStream stream takes it", m.Subject)
		}
		return driver.Published{}, natsError("subject "+m.Subject, err)
	}
	seq := ack.Stream + "#" + strconv.FormatUint(ack.Sequence, 10)
	out := map[string]any{"stream": ack.Stream, "sequence": ack.Sequence}
	status := "published " + seq
	if ack.Duplicate {
		out["duplicate"] = true
		status = "duplicate of " + seq
	}
	return driver.Published{Output: out, Status: status, ResponseBytes: len(ack.Stream) + 8}, nil
}

// Broken: the client gave up reconnecting; a new one is made.
func (p *natsPublisher) Broken() bool { return p.nc.IsClosed() }

func (p *natsPublisher) Close() error {
	p.nc.Close()
	return nil
}

// natsError says what failed; connection failures and timeouts are
// transient.
func natsError(what string, err error) error {
	e := fmt.Errorf("queue: nats %s: %w", what, err)
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return e
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrNoServers), errors.Is(err, nats.ErrConnectionClosed),
		errors.Is(err, nats.ErrConnectionReconnecting), errors.Is(err, nats.ErrDisconnected),
		errors.As(err, &ne):
		return &driver.TransientError{Err: e}
	}
	return e
}

var _ driver.Publisher = (*natsPublisher)(nil)
