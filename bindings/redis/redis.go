package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	redis "github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/logging"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/toolexplorer/toolexplorer/bindings/internal/driver"
)

func init() {
	driver.RegisterQueue("redis", driver.Queue{Schemes: []string{"redis://", "rediss://", "unix://"}, Dial: dialRedis})
}

// redisDedupeWindow is how long a Redis publish remembers an idempotency
// key, as NATS JetStream's default duplicate window.
const redisDedupeWindow = 2 * time.Minute

// redisPublisher adds messages to Redis streams: the message in the field
// "message", each header in a field of its own.
type redisPublisher struct{ c *redis.Client }

// quietRedis turns off go-redis's own log, which writes every failed dial
// to stderr (over the console's screen): each failure is in the call's
// result already. The log is the process's, so this reaches any other
// go-redis client of the program; it is done only once a Redis source is
// used.
var quietRedis sync.Once

// dialRedis makes a client; it connects on its first command.
func dialRedis(_ context.Context, url string) (driver.Publisher, error) {
	quietRedis.Do(logging.Disable)
	opt, err := redis.ParseURL(url)
	if err != nil {
		// The parser's message may quote the URL, credentials included.
		return nil, errors.New("queue: url: not a Redis URL (redis://[user:password@]host:port/db, rediss://..., unix:///path)")
	}
	// A publish is retried by the binding's caller, under its rules.
	opt.MaxRetries, opt.DialerRetries = -1, 1
	opt.ContextTimeoutEnabled = true
	opt.DisableIdentity = true
	opt.MaintNotificationsConfig = &maintnotifications.Config{Mode: maintnotifications.ModeDisabled}
	return &redisPublisher{c: redis.NewClient(opt)}, nil
}

// redisDedupe adds an entry unless the idempotency key (KEYS[2]) was seen
// within the window; either way it returns the entry's id and whether it
// was a duplicate. ARGV: window in seconds, max_len (0: none), then the
// entry's fields and values.
var redisDedupe = redis.NewScript(`
local prev = redis.call('GET', KEYS[2])
if prev then return {prev, 1} end
local id
if tonumber(ARGV[2]) > 0 then
  id = redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', unpack(ARGV, 3))
else
  id = redis.call('XADD', KEYS[1], '*', unpack(ARGV, 3))
end
redis.call('SET', KEYS[2], id, 'EX', ARGV[1])
return {id, 0}
`)

// redisDedupeKey is where a stream's idempotency key is remembered.
func redisDedupeKey(stream, key string) string {
	return stream + ":idempotency:" + key
}

// publish adds the message. go-redis heeds a context's deadline but not its
// cancellation while it waits for the server: the command runs aside and a
// canceled call returns at once (the command ends by its deadline or the
// client's timeouts, and may still add the message, as any canceled
// publish may).
func (p *redisPublisher) Publish(ctx context.Context, m *driver.Message) (driver.Published, error) {
	type result struct {
		o   driver.Published
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := p.add(ctx, m)
		done <- result{o, err}
	}()
	select {
	case r := <-done:
		return r.o, r.err
	case <-ctx.Done():
		return driver.Published{}, redisError(m.Stream, ctx.Err())
	}
}

func (p *redisPublisher) add(ctx context.Context, m *driver.Message) (driver.Published, error) {
	fields := make([]any, 0, 2+2*len(m.Headers))
	fields = append(fields, "message", string(m.Body))
	for _, h := range m.Headers {
		fields = append(fields, h[0], h[1])
	}
	var (
		id  string
		dup bool
	)
	if m.ID == "" {
		var err error
		id, err = p.c.XAdd(ctx, &redis.XAddArgs{Stream: m.Stream, MaxLen: m.MaxLen, Approx: m.MaxLen > 0, Values: fields}).Result()
		if err != nil {
			return driver.Published{}, redisError(m.Stream, err)
		}
	} else {
		args := append([]any{int(redisDedupeWindow / time.Second), m.MaxLen}, fields...)
		res, err := redisDedupe.Run(ctx, p.c, []string{m.Stream, redisDedupeKey(m.Stream, m.ID)}, args...).Slice()
		if err != nil {
			return driver.Published{}, redisError(m.Stream, err)
		}
		if len(res) != 2 {
			return driver.Published{}, fmt.Errorf("queue: redis stream %s: unexpected reply %v", m.Stream, res)
		}
		id, _ = res[0].(string)
		n, _ := res[1].(int64)
		dup = n == 1
	}
	out := map[string]any{"stream": m.Stream, "id": id}
	status := "published " + id
	if dup {
		out["duplicate"] = true
		status = "duplicate of " + id
	}
	return driver.Published{Output: out, Status: status, ResponseBytes: len(id)}, nil
}

func (p *redisPublisher) Close() error { return p.c.Close() }

// Broken is never so: the client dials again as it needs.
func (p *redisPublisher) Broken() bool { return false }

// redisError says what failed; connection failures, timeouts, a server
// that asks to try again and a client closed under the call (its source's
// credentials changed) are transient.
func redisError(stream string, err error) error {
	e := fmt.Errorf("queue: redis stream %s: %w", stream, err)
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return e
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne), errors.Is(err, redis.ErrClosed),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, redis.ErrPoolTimeout),
		redis.IsLoadingError(err), redis.IsTryAgainError(err), redis.IsMasterDownError(err),
		redis.IsClusterDownError(err), redis.IsMaxClientsError(err):
		return &driver.TransientError{Err: e}
	}
	return e
}

var _ driver.Publisher = (*redisPublisher)(nil)
