package bindings

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// The Redis tests publish to the redis-server at TOOLEXPLORER_TEST_REDIS
// (host:port; .ci/run starts one). Each test uses streams of its own and
// deletes them.

// testRedis returns the server's address and a client of the test's own to
// look at what was published, or skips the test when no server is given
// (fails under CI, which always gives one).
func testRedis(t *testing.T) (string, *redis.Client) {
	t.Helper()
	addr := os.Getenv("TOOLEXPLORER_TEST_REDIS")
	if addr == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("TOOLEXPLORER_TEST_REDIS is not set: CI must start a redis-server (see .ci/run)")
		}
		t.Skip("TOOLEXPLORER_TEST_REDIS is not set: set it to the host:port of a redis-server to run the Redis tests")
	}
	c := redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, Protocol: 2})
	t.Cleanup(func() { c.Close() })
	if err := c.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis-server at TOOLEXPLORER_TEST_REDIS=%s: %v", addr, err)
	}
	return addr, c
}

// testStream names a stream of the test's own, deleted at its end with the
// keys it made.
func testStream(t *testing.T, c *redis.Client) string {
	t.Helper()
	name := fmt.Sprintf("test:%s:%s", t.Name(), rand.Text()[:8])
	t.Cleanup(func() {
		keys, _ := c.Keys(context.Background(), name+"*").Result()
		if len(keys) > 0 {
			c.Del(context.Background(), keys...)
		}
	})
	return name
}

// entries reads a whole stream.
func entries(t *testing.T, c *redis.Client, stream string) []redis.XMessage {
	t.Helper()
	msgs, err := c.XRange(context.Background(), stream, "-", "+").Result()
	if err != nil {
		t.Fatalf("XRANGE %s: %v", stream, err)
	}
	return msgs
}

// TestQueueRedisPublish: the entry holds the message and the headers
// (a credential's value), and the output gives its id.
func TestQueueRedisPublish(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + addr + "/0"})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: stream,
		Message: map[string]any{"kind": "order.created", "order": "{order_id}", "lines": "{lines}"},
		Headers: map[string]string{"X-Tenant": "{tenant}", "X-Schema": "order.v1", "X-Key": "${QUEUE_TEST_KEY}"},
	}, src)
	env := func(n string) (string, bool) { return "k-123", n == "QUEUE_TEST_KEY" }
	args := `{"order_id":"A-1","lines":[{"sku":"tea","qty":2}],"tenant":"acme"}`
	output, err := publishJSON(t, b, env, args)
	if err != nil {
		t.Fatal(err)
	}
	var out struct{ Stream, ID string }
	if err := json.Unmarshal(output, &out); err != nil {
		t.Fatalf("output %s: %v", output, err)
	}
	msgs := entries(t, c, stream)
	if len(msgs) != 1 {
		t.Fatalf("the stream holds %d entries, want 1", len(msgs))
	}
	if out.Stream != stream || out.ID != msgs[0].ID {
		t.Errorf("output %s, want stream %s and id %s", output, stream, msgs[0].ID)
	}
	var msg any
	if err := json.Unmarshal([]byte(msgs[0].Values["message"].(string)), &msg); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"kind": "order.created", "order": "A-1", "lines": []any{map[string]any{"sku": "tea", "qty": 2.0}}}
	if !reflect.DeepEqual(msg, want) {
		t.Errorf("message %v, want %v", msg, want)
	}
	if v := msgs[0].Values; v["X-Tenant"] != "acme" || v["X-Schema"] != "order.v1" || v["X-Key"] != "k-123" || len(v) != 4 {
		t.Errorf("fields %v, want message, X-Tenant, X-Schema and X-Key with the credential's value", v)
	}

	// Argument text is data: quotes, a line break and RESP syntax land in
	// the message as they were sent.
	evil := "A-2\r\n*3\r\n$3\r\nDEL\r\n\"}"
	args2, _ := json.Marshal(map[string]any{"order_id": evil})
	if _, err := publishJSON(t, b, env, string(args2)); err != nil {
		t.Fatal(err)
	}
	msgs = entries(t, c, stream)
	if len(msgs) != 2 {
		t.Fatalf("the stream holds %d entries, want 2", len(msgs))
	}
	var m2 struct{ Order string }
	if err := json.Unmarshal([]byte(msgs[1].Values["message"].(string)), &m2); err != nil || m2.Order != evil {
		t.Errorf("order %q (%v), want %q", m2.Order, err, evil)
	}
}

// TestQueueRedisRefusalsSendNothing: a call refused for its arguments
// leaves the stream as it was.
func TestQueueRedisRefusalsSendNothing(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: stream,
		Message: map[string]any{"a": "{note}", "b": "{note}", "c": "{note}"},
		Headers: map[string]string{"X-Tenant": "{tenant}"}}, src)
	for name, args := range map[string]map[string]any{
		"header injection": {"order_id": "1", "tenant": "acme\r\nX-Admin: yes"},
		"oversized":        {"order_id": "1", "note": strings.Repeat("x", 400<<10)},
	} {
		if _, err := b.do(context.Background(), &Request{Args: args, Env: noEnv}); err == nil {
			t.Errorf("%s: the call succeeded", name)
		}
	}
	if n := c.Exists(context.Background(), stream).Val(); n != 0 {
		t.Errorf("the stream exists after refused calls: %v", entries(t, c, stream))
	}
}

// TestQueueRedisIdempotencyKey: a call repeated with the same key adds
// nothing and answers with the first entry's id.
func TestQueueRedisIdempotencyKey(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: stream}, src)
	call := func(key string) Outcome { t.Helper(); return publishWithKey(t, b, key) }
	first, again := call("order-A-1"), call("order-A-1")
	id := first.Output.(map[string]any)["id"]
	if first.Output.(map[string]any)["duplicate"] != nil || !strings.HasPrefix(first.Status, "published ") {
		t.Errorf("first call: %v, %q; want published", first.Output, first.Status)
	}
	if o := again.Output.(map[string]any); o["duplicate"] != true || o["id"] != id || again.Status != fmt.Sprintf("duplicate of %s", id) {
		t.Errorf("second call: %v, %q; want a duplicate of %v", o, again.Status, id)
	}
	if msgs := entries(t, c, stream); len(msgs) != 1 {
		t.Errorf("the stream holds %d entries after two calls with one key, want 1", len(msgs))
	}
	call("order-A-2")
	call("")
	call("")
	if msgs := entries(t, c, stream); len(msgs) != 4 {
		t.Errorf("the stream holds %d entries, want 4 (one per distinct key, one per call without)", len(msgs))
	}
}

// TestQueueRedisMaxLen: the stream is trimmed to about max_len entries.
func TestQueueRedisMaxLen(t *testing.T) {
	addr, c := testRedis(t)
	stream := testStream(t, c)
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + addr})
	for _, key := range []string{"", "with-key-"} { // both ways of adding trim
		b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: stream + key, MaxLen: 10}, src)
		const calls = 300
		for i := range calls {
			var k string
			if key != "" {
				k = fmt.Sprint(key, i)
			}
			if _, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1"}, IdempotencyKey: k, Env: noEnv}); err != nil {
				t.Fatal(err)
			}
		}
		// Trimming about: whole nodes of the stream (100 entries by
		// default) go, never below max_len.
		if n := c.XLen(context.Background(), stream+key).Val(); n >= calls || n < 10 {
			t.Errorf("%q: the stream holds %d entries after %d calls with max_len 10, want it trimmed", key, n, calls)
		}
	}
}

// TestQueueRedisCredentials: the URL's credential is read at call time; a
// wrong one fails without showing it, and a changed one is used at once.
func TestQueueRedisCredentials(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	user, pass := "queue-test-"+rand.Text()[:6], rand.Text()
	ctx := context.Background()
	if err := c.Do(ctx, "ACL", "SETUSER", user, "on", ">"+pass, "~*", "+@all").Err(); err != nil {
		t.Fatalf("ACL SETUSER: %v", err)
	}
	t.Cleanup(func() { c.Do(context.Background(), "ACL", "DELUSER", user) })
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + user + ":${QUEUE_TEST_PASSWORD}@" + addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: stream}, src)
	secret := pass
	env := func(n string) (string, bool) {
		if n == "QUEUE_TEST_PASSWORD" {
			return secret, true
		}
		return "", false
	}
	req := &Request{Args: map[string]any{"order_id": "1"}, Env: env}
	if _, err := b.do(ctx, req); err != nil {
		t.Fatalf("with the password: %v", err)
	}
	secret = "wrong-" + rand.Text()
	_, err := b.do(ctx, req)
	var te *TransientError
	if err == nil || errors.As(err, &te) || strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), pass) {
		t.Errorf("with a wrong password: err = %v; want a lasting failure that shows no password", err)
	}
	secret = pass
	if _, err := b.do(ctx, req); err != nil {
		t.Fatalf("with the password again: %v", err)
	}
	if n := c.XLen(ctx, stream).Val(); n != 2 {
		t.Errorf("the stream holds %d entries, want 2", n)
	}
}

// TestQueueSourceClosed: a call after the source is closed fails.
func TestQueueSourceClosed(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	src, err := openQueue("events", &QueueSource{Provider: "redis", URL: "redis://" + addr})
	if err != nil {
		t.Fatal(err)
	}
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: stream}, src)
	if _, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1"}, Env: noEnv}); err != nil {
		t.Fatal(err)
	}
	if err := src.close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1"}, Env: noEnv}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("after close: err = %v, want the source closed", err)
	}
}

// TestQueueRedisCredentialsChangeUnderACall: a call whose client is closed
// because the credentials changed (a new client replaces it) fails with a
// transient error, so that it may be tried again on the new client.
func TestQueueRedisCredentialsChangeUnderACall(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + addr + "/${QUEUE_TEST_DB}"})
	ctx := context.Background()
	old, err := src.client(ctx, env(map[string]string{"QUEUE_TEST_DB": "0"}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := src.client(ctx, env(map[string]string{"QUEUE_TEST_DB": "1"})); err != nil {
		t.Fatal(err)
	}
	// As a call's publish does (queueBinding.do), the driver's error is
	// read through fromDriver.
	_, err = old.Publish(ctx, &queueMessage{Stream: stream, Body: []byte(`{}`)})
	err = fromDriver(err)
	var te *TransientError
	if !errors.As(err, &te) {
		t.Errorf("publish on the replaced client: err = %v, want a *TransientError", err)
	}
}
