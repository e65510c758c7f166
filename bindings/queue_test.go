package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// orderInput is the input of the order tools of these tests.
var orderInput = Input{
	Properties: map[string]string{"order_id": "string", "qty": "integer", "note": "string", "lines": "array", "tenant": "string", "urgent": "boolean"},
	Required:   []string{"order_id"},
}

// mustOpenQueue opens a source and closes it at the end of the test.
func mustOpenQueue(t *testing.T, s QueueSource) *queueSource {
	t.Helper()
	src, err := openQueue("events", &s)
	if err != nil {
		t.Fatalf("openQueue(%+v): %v", s, err)
	}
	t.Cleanup(func() {
		if err := src.close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return src
}

func mustCompileQueue(t *testing.T, b QueueBinding, src *queueSource) *queueBinding {
	t.Helper()
	bnd, err := compileQueue(&b, src, orderInput)
	if err != nil {
		t.Fatalf("compileQueue(%+v): %v", b, err)
	}
	return bnd.(*queueBinding)
}

// publishJSON calls the binding with arguments given as JSON, decoded as
// the registry decodes them (numbers as json.Number), and returns its
// output as JSON.
func publishJSON(t *testing.T, b binding, env Env, args string) (json.RawMessage, error) {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(args))
	d.UseNumber()
	var a map[string]any
	if err := d.Decode(&a); err != nil {
		t.Fatal(err)
	}
	o, err := b.do(context.Background(), &Request{Tool: "shop.order", Args: a, Env: env})
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(o.Output)
	if err != nil {
		t.Fatal(err)
	}
	return out, nil
}

// noQueueLeaks fails the test if goroutines started during it outlive it,
// once its cleanups (closing the sources) have run. Closed connections end
// their goroutines soon after, not at once: the check is repeated for up
// to a minute.
func noQueueLeaks(t *testing.T) {
	t.Helper()
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		deadline := time.Now().Add(time.Minute)
		for {
			err := goleak.Find(before)
			if err == nil {
				return
			}
			if time.Now().After(deadline) {
				t.Errorf("goroutines left behind: %v", err)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

func noEnv(string) (string, bool) { return "", false }

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestOpenQueueRefuses(t *testing.T) {
	for _, tc := range []struct {
		src  QueueSource
		want string
	}{
		{QueueSource{URL: "redis://localhost"}, "provider: missing"},
		{QueueSource{Provider: "kafka", URL: "redis://localhost"}, `"kafka" is not a queue provider`},
		{QueueSource{Provider: "redis"}, "url: missing"},
		{QueueSource{Provider: "redis", URL: "http://localhost:6379"}, "url: a redis URL starts with redis://"},
		{QueueSource{Provider: "nats", URL: "nats://a:4222,redis://b"}, "url: a nats URL starts with nats://"},
		{QueueSource{Provider: "redis", URL: "redis://{host}:6379"}, "url: {host}: a source takes no arguments"},
		{QueueSource{Provider: "redis", URL: "redis://:${PASS WORD}@localhost"}, "is not a variable name"},
	} {
		_, err := openQueue("events", &tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("openQueue(%+v) = %v, want an error with %q", tc.src, err, tc.want)
		}
	}
	for _, ok := range []QueueSource{
		{Provider: "redis", URL: "redis://:${REDIS_PASSWORD}@localhost:6379/0"},
		{Provider: "redis", URL: "${REDIS_URL}"},
		{Provider: "nats", URL: "nats://a:4222, nats://b:4222"},
	} {
		src, err := openQueue("events", &ok)
		if err != nil {
			t.Errorf("openQueue(%+v): %v", ok, err)
			continue
		}
		if err := src.close(); err != nil {
			t.Errorf("close of a source never used: %v", err)
		}
	}
}

func TestCompileQueueRefuses(t *testing.T) {
	redisSrc := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://localhost"})
	natsSrc := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://localhost"})
	for _, tc := range []struct {
		name string
		src  *queueSource
		b    QueueBinding
		want string
	}{
		{"no stream", redisSrc, QueueBinding{}, "stream: missing"},
		{"redis subject", redisSrc, QueueBinding{Stream: "s", Subject: "a.b"}, "subject: a Redis binding has a stream"},
		{"no subject", natsSrc, QueueBinding{}, "subject: missing"},
		{"wildcard", natsSrc, QueueBinding{Subject: "orders.*"}, "has a wildcard"},
		{"tail wildcard", natsSrc, QueueBinding{Subject: "orders.>"}, "has a wildcard"},
		{"empty token", natsSrc, QueueBinding{Subject: "orders..new"}, "empty token"},
		{"space", natsSrc, QueueBinding{Subject: "orders new"}, "white space"},
		{"nats max_len", natsSrc, QueueBinding{Subject: "orders", MaxLen: 5}, "max_len: NATS streams"},
		{"negative max_len", redisSrc, QueueBinding{Stream: "s", MaxLen: -1}, "max_len: -1 is negative"},
		{"unknown property", redisSrc, QueueBinding{Stream: "s", Message: map[string]any{"id": "{order}"}},
			"message.id: {order} is not a property of the input"},
		{"unknown $arg", redisSrc, QueueBinding{Stream: "s", Message: []any{map[string]any{"$arg": "order"}}},
			"message[0]: {order} is not a property of the input"},
		{"$arg not a string", redisSrc, QueueBinding{Stream: "s", Message: map[string]any{"x": map[string]any{"$arg": 3}}},
			"message.x: $arg takes the name of a property"},
		{"non-string key", redisSrc, QueueBinding{Stream: "s", Message: map[any]any{1: "x"}}, "keys that are not strings"},
		{"bad header name", redisSrc, QueueBinding{Stream: "s", Headers: map[string]string{"X Order": "1"}}, `headers.X Order: "X Order" is not a header name`},
		{"header unknown property", redisSrc, QueueBinding{Stream: "s", Headers: map[string]string{"X-Order": "{order}"}},
			"headers.X-Order: {order} is not a property"},
		{"header from an array", redisSrc, QueueBinding{Stream: "s", Headers: map[string]string{"X-Lines": "{lines}"}},
			"headers.X-Lines: {lines} is an array, not text"},
		{"header constant CRLF", redisSrc, QueueBinding{Stream: "s", Headers: map[string]string{"X-A": "1\r\nX-Admin: yes"}},
			"headers.X-A: a control character"},
		{"header default CRLF", redisSrc, QueueBinding{Stream: "s", Headers: map[string]string{"X-A": "${KEY:-a\nb}"}},
			"headers.X-A: a control character"},
		{"header field message", redisSrc, QueueBinding{Stream: "s", Headers: map[string]string{"message": "x"}},
			`"message" is the stream field of the message`},
		{"nats control header", natsSrc, QueueBinding{Subject: "orders", Headers: map[string]string{"nats-rollup": "all"}},
			"headers starting with Nats- direct the server"},
	} {
		_, err := compileQueue(&tc.b, tc.src, orderInput)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: compileQueue = %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestQueueBindingContract(t *testing.T) {
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://localhost"})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: "orders"}, src)
	if b.kind() != "queue" || b.source() != "events" || !b.writes() {
		t.Errorf("kind, source, writes = %q, %q, %v; want queue, events, true", b.kind(), b.source(), b.writes())
	}
	if err := b.close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestQueueMessageTemplate builds messages without a server: values are
// placed whole, absent ones left out, and argument text stays data.
func TestQueueMessageTemplate(t *testing.T) {
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://localhost"})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: "orders",
		Message: map[string]any{
			"kind":   "order.created",
			"order":  map[string]any{"id": "{order_id}", "qty": map[string]any{"$arg": "qty"}, "note": "{note}"},
			"all":    []any{"{urgent}", "{tenant}", 7, nil, true},
			"braces": "{}", "text": "order {order_id} is text",
		},
		Headers: map[string]string{"X-Tenant": "{tenant}", "X-Qty": "{qty}", "X-Urgent": "{urgent}", "X-Schema": "order.v1", "X-Ref": "order-{order_id}"},
	}, src)
	args := map[string]any{
		"order_id": `A-1", "admin": true, "x": "`, // a quote cannot end the string
		"qty":      json.Number("3"),
		"note":     "{order_id}", // text that looks like a reference is text
		"urgent":   false,
	}
	m, err := b.build(&Request{Args: args}, false)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(m.Body, &got); err != nil {
		t.Fatalf("message %s: %v", m.Body, err)
	}
	want := map[string]any{
		"kind":   "order.created",
		"order":  map[string]any{"id": `A-1", "admin": true, "x": "`, "qty": 3.0, "note": "{order_id}"},
		"all":    []any{false, nil, 7.0, nil, true},
		"braces": "{}", "text": "order {order_id} is text",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("message:\n got %s\nwant %v", m.Body, want)
	}
	// No X-Tenant: its argument is absent.
	wantH := [][2]string{{"X-Qty", "3"}, {"X-Ref", `order-A-1", "admin": true, "x": "`}, {"X-Schema", "order.v1"}, {"X-Urgent", "false"}}
	if !reflect.DeepEqual(m.Headers, wantH) {
		t.Errorf("headers = %q, want %q", m.Headers, wantH)
	}

	// Without a template the arguments are the message.
	plain := mustCompileQueue(t, QueueBinding{Source: "events", Stream: "orders"}, src)
	m, err = plain.build(&Request{Args: args}, false)
	if err != nil {
		t.Fatal(err)
	}
	var gotArgs map[string]any
	if err := json.Unmarshal(m.Body, &gotArgs); err != nil {
		t.Fatal(err)
	}
	if gotArgs["order_id"] != args["order_id"] || gotArgs["note"] != "{order_id}" || len(gotArgs) != len(args) {
		t.Errorf("message %s, want the arguments %v", m.Body, args)
	}
}

// TestQueueHeaderInjection: an argument with a line break or a NUL never
// becomes a header, and the call fails before anything is sent (the
// source points at a closed port: a send would fail otherwise).
func TestQueueHeaderInjection(t *testing.T) {
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + closedPort(t)})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: "orders", Headers: map[string]string{"X-Tenant": "{tenant}"}}, src)
	for _, v := range []string{"acme\r\nX-Admin: yes", "acme\nX-Admin: yes", "acme\rX", "acme\x00", strings.Repeat("a", queueMaxHeader+1)} {
		_, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1", "tenant": v}, Env: noEnv})
		if err == nil || !strings.Contains(err.Error(), "header X-Tenant: ") {
			t.Errorf("tenant %q: err = %v, want the header refused", v, err)
		}
		var te *TransientError
		if errors.As(err, &te) {
			t.Errorf("tenant %q: the refusal is transient: %v", v, err)
		}
	}
	_, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1"}, IdempotencyKey: "k\r\nNats-Rollup: all", Env: noEnv})
	if err == nil || !strings.Contains(err.Error(), "idempotency key") {
		t.Errorf("idempotency key with CRLF: err = %v, want it refused", err)
	}
}

// TestQueueOversizedMessage: a template can make a message larger than
// its arguments; one over the limit is refused before anything is sent.
func TestQueueOversizedMessage(t *testing.T) {
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://" + closedPort(t)})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: "orders",
		Message: map[string]any{"a": "{note}", "b": "{note}", "c": "{note}"}}, src)
	args, _ := json.Marshal(map[string]any{"order_id": "1", "note": strings.Repeat("x", 400<<10)})
	_, err := publishJSON(t, b, noEnv, string(args))
	if err == nil || !strings.Contains(err.Error(), "over the limit of 1048576") {
		t.Errorf("err = %v, want the message over the limit", err)
	}
}

// TestQueueShadow: a shadow call returns what it would publish, marked,
// with credentials as their ${NAME}, and connects to nothing (the source's
// port is closed, and its URL's credential is not even set).
func TestQueueShadow(t *testing.T) {
	src := mustOpenQueue(t, QueueSource{Provider: "redis", URL: "redis://:${QUEUE_TEST_PASSWORD}@" + closedPort(t)})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Stream: "orders",
		Message: map[string]any{"id": "{order_id}"}, Headers: map[string]string{"X-Tenant": "{tenant}", "X-Key": "key ${QUEUE_TEST_KEY}"}}, src)
	const secret = "s3cr3t-value"
	env := func(n string) (string, bool) { return secret, n == "QUEUE_TEST_KEY" }
	o, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "A-1", "tenant": "acme"}, Shadow: true, IdempotencyKey: "k1", Env: env})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(o.Output)
	want := `{"headers":{"X-Key":"key ${QUEUE_TEST_KEY}","X-Tenant":"acme"},"idempotency_key":"k1","message":{"id":"A-1"},"provider":"redis","source":"events","stream":"orders"}`
	if string(got) != want || o.Status != "shadow" {
		t.Errorf("shadow output %s, status %q;\nwant %s, shadow", got, o.Status, want)
	}
	if src.pub != nil {
		t.Error("a shadow call made a client")
	}
	// The header's credential must be set, even in shadow.
	_, err = b.do(context.Background(), &Request{Args: map[string]any{"order_id": "A-1"}, Shadow: true, Env: noEnv})
	var missing *MissingEnvError
	if !errors.As(err, &missing) || missing.Name != "QUEUE_TEST_KEY" {
		t.Errorf("shadow without the header's credential: err = %v, want a *MissingEnvError for QUEUE_TEST_KEY", err)
	}
	// The same call, not in shadow, needs the URL's credential too.
	_, err = b.do(context.Background(), &Request{Args: map[string]any{"order_id": "A-1"}, Env: env})
	if !errors.As(err, &missing) || missing.Name != "QUEUE_TEST_PASSWORD" {
		t.Errorf("err = %v, want a *MissingEnvError for QUEUE_TEST_PASSWORD", err)
	}
}

// publishWithKey publishes order A-1 with the idempotency key.
func publishWithKey(t *testing.T, b binding, key string) Outcome {
	t.Helper()
	o, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "A-1"}, IdempotencyKey: key, Env: noEnv})
	if err != nil {
		t.Fatalf("key %q: %v", key, err)
	}
	return o
}

// silentServer is the address of a server that accepts connections and
// never says a word. accepted receives each connection it accepts, spoke
// each connection whose client sent something.
func silentServer(t *testing.T) (addr string, accepted, spoke <-chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16)
	acc, spk := make(chan struct{}, 16), make(chan struct{}, 16)
	var readers sync.WaitGroup
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				close(held)
				return
			}
			held <- c
			acc <- struct{}{}
			readers.Go(func() {
				if _, err := c.Read(make([]byte, 1)); err == nil {
					spk <- struct{}{}
				}
			})
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for c := range held {
			c.Close()
		}
		readers.Wait()
	})
	return l.Addr().String(), acc, spk
}

// TestQueueUnreachable: a server that refuses connections, and one that
// accepts and never answers (the call is held only until its context's
// deadline), are transient failures for both providers.
func TestQueueUnreachable(t *testing.T) {
	noQueueLeaks(t)
	for _, provider := range []string{"redis", "nats"} {
		silent, _, _ := silentServer(t)
		for name, addr := range map[string]string{"refused": closedPort(t), "silent": silent} {
			src := mustOpenQueue(t, QueueSource{Provider: provider, URL: provider + "://" + addr})
			qb := QueueBinding{Source: "events", Stream: "orders"}
			if provider == "nats" {
				qb = QueueBinding{Source: "events", Subject: "orders.created"}
			}
			b := mustCompileQueue(t, qb, src)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			_, err := b.do(ctx, &Request{Args: map[string]any{"order_id": "1"}, Env: noEnv})
			cancel()
			var te *TransientError
			if !errors.As(err, &te) {
				t.Errorf("%s, %s: err = %v (%T), want a *TransientError", provider, name, err, err)
			}
		}
	}
}

// TestQueueCanceled: a call to a server that accepted the connection and
// never answers returns when its context is canceled, although the
// clients' own timeouts are an hour.
func TestQueueCanceled(t *testing.T) {
	noQueueLeaks(t)
	for _, provider := range []string{"redis", "nats"} {
		addr, accepted, spoke := silentServer(t)
		url := provider + "://" + addr
		qb := QueueBinding{Source: "events", Subject: "orders.created"}
		if provider == "redis" {
			url += "/0?dial_timeout=1h&read_timeout=1h&write_timeout=1h"
			qb = QueueBinding{Source: "events", Stream: "orders"}
		}
		b := mustCompileQueue(t, qb, mustOpenQueue(t, QueueSource{Provider: provider, URL: url}))
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := b.do(ctx, &Request{Args: map[string]any{"order_id": "1"}, Env: noEnv})
			errc <- err
		}()
		// The call waits for the server now: the NATS client for the
		// server's greeting, the Redis client for the answer to its own.
		if provider == "nats" {
			<-accepted
		} else {
			<-spoke
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("%s: err = %v, want context.Canceled", provider, err)
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s: the canceled call has not returned", provider)
		}
	}
}
