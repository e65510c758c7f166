package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// natsServer is an embedded NATS server with JetStream, and a client of
// the test's own to set up streams and look at what was published.
type natsServer struct {
	addr string // host:port
	js   jetstream.JetStream
}

// startNATS starts a server on a random loopback port with its store in a
// temporary directory, shut down at the end of the test. opts may set
// users and limits.
func startNATS(t testing.TB, opts *natsserver.Options) *natsServer {
	t.Helper()
	if opts == nil {
		opts = &natsserver.Options{}
	}
	opts.Host, opts.Port = "127.0.0.1", -1
	opts.JetStream, opts.StoreDir = true, t.TempDir()
	opts.NoLog, opts.NoSigs = true, true
	ns, err := natsserver.NewServer(opts)
	if err != nil {
		t.Fatalf("nats server: %v", err)
	}
	ns.Start()
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	if !ns.ReadyForConnections(time.Minute) {
		t.Fatal("the nats server did not start")
	}
	addr := ns.Addr().String()
	var copts []nats.Option
	if opts.Username != "" {
		copts = append(copts, nats.UserInfo(opts.Username, opts.Password))
	}
	nc, err := nats.Connect("nats://"+addr, copts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return &natsServer{addr: addr, js: js}
}

// stream makes a stream taking orders.>.
func (s *natsServer) stream(t testing.TB, cfg jetstream.StreamConfig) jetstream.Stream {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "ORDERS"
	}
	if cfg.Subjects == nil {
		cfg.Subjects = []string{"orders.>"}
	}
	st, err := s.js.CreateStream(context.Background(), cfg)
	if err != nil {
		t.Fatalf("create stream: %v", err)
	}
	return st
}

func streamLen(t *testing.T, st jetstream.Stream) uint64 {
	t.Helper()
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestQueueNATSPublish: the stream holds the message with its headers, and
// the output gives its sequence.
func TestQueueNATSPublish(t *testing.T) {
	noQueueLeaks(t)
	ns := startNATS(t, nil)
	st := ns.stream(t, jetstream.StreamConfig{})
	src := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://" + ns.addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Subject: "orders.created", Stream: "ORDERS",
		Message: map[string]any{"kind": "order.created", "order": "{order_id}", "qty": map[string]any{"$arg": "qty"}},
		Headers: map[string]string{"X-Tenant": "{tenant}", "x-schema": "order.v1"},
	}, src)
	output, err := publishJSON(t, b, noEnv, `{"order_id":"A-1","qty":2,"tenant":"acme"}`)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Stream   string
		Sequence uint64
	}
	if err := json.Unmarshal(output, &out); err != nil || out.Stream != "ORDERS" || out.Sequence != 1 {
		t.Fatalf("output %s (%v), want stream ORDERS, sequence 1", output, err)
	}
	msg, err := st.GetMsg(context.Background(), out.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(msg.Data, &got); err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"kind": "order.created", "order": "A-1", "qty": 2.0}; !reflect.DeepEqual(got, want) || msg.Subject != "orders.created" {
		t.Errorf("message %s on %s, want %v on orders.created", msg.Data, msg.Subject, want)
	}
	if msg.Header.Get("X-Tenant") != "acme" || msg.Header.Get("x-schema") != "order.v1" {
		t.Errorf("headers %v, want X-Tenant: acme and x-schema: order.v1", msg.Header)
	}
}

// TestQueueNATSIdempotencyKey: the key is the message id, so a retried
// publish is acknowledged as a duplicate and the stream holds one message.
func TestQueueNATSIdempotencyKey(t *testing.T) {
	noQueueLeaks(t)
	ns := startNATS(t, nil)
	st := ns.stream(t, jetstream.StreamConfig{Duplicates: time.Hour})
	src := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://" + ns.addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Subject: "orders.created"}, src)
	call := func(key string) Outcome { t.Helper(); return publishWithKey(t, b, key) }
	first, again := call("order-A-1"), call("order-A-1")
	if first.Status != "published ORDERS#1" || first.Output.(map[string]any)["duplicate"] != nil {
		t.Errorf("first publish: %v, %q; want published ORDERS#1", first.Output, first.Status)
	}
	if o := again.Output.(map[string]any); o["duplicate"] != true || o["sequence"] != uint64(1) || again.Status != "duplicate of ORDERS#1" {
		t.Errorf("second publish: %v, %q; want a duplicate of ORDERS#1", o, again.Status)
	}
	if n := streamLen(t, st); n != 1 {
		t.Errorf("the stream holds %d messages after two publishes with one key, want 1", n)
	}
	msg, err := st.GetMsg(context.Background(), 1)
	if err != nil || msg.Header.Get(jetstream.MsgIDHeader) != "order-A-1" {
		t.Errorf("message 1: %v, %v; want Nats-Msg-Id order-A-1", msg, err)
	}
	call("order-A-2")
	call("")
	call("")
	if n := streamLen(t, st); n != 4 {
		t.Errorf("the stream holds %d messages, want 4 (one per distinct key, one per publish without)", n)
	}
}

// TestQueueNATSStreamChecks: a subject no stream takes, and a subject of
// another stream than the binding names, fail for good and store nothing.
func TestQueueNATSStreamChecks(t *testing.T) {
	noQueueLeaks(t)
	ns := startNATS(t, nil)
	st := ns.stream(t, jetstream.StreamConfig{})
	src := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://" + ns.addr})
	for _, tc := range []struct {
		b    QueueBinding
		want string
	}{
		{QueueBinding{Source: "events", Subject: "invoices.created"}, "no JetStream stream takes it"},
		{QueueBinding{Source: "events", Subject: "orders.created", Stream: "INVOICES"}, "expected stream does not match"},
	} {
		b := mustCompileQueue(t, tc.b, src)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := b.do(ctx, &Request{Args: map[string]any{"order_id": "1"}, Env: noEnv})
		cancel()
		var te *TransientError
		if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &te) {
			t.Errorf("%+v: err = %v, want a lasting error with %q", tc.b, err, tc.want)
		}
	}
	if n := streamLen(t, st); n != 0 {
		t.Errorf("the stream holds %d messages, want none", n)
	}
}

// TestQueueNATSHeaderInjection attacks a stream through headers. Control:
// a Nats-Rollup header sent with the NATS client directly purges the
// subject's other messages. A tools file cannot declare such a header, and
// an argument only fills a header's value, never names one. A line break
// in a value (refused by the binding in any case, see
// TestQueueHeaderInjection) would smuggle a Nats-Rollup line in; whether
// it could through the NATS client is checked as a second control.
func TestQueueNATSHeaderInjection(t *testing.T) {
	noQueueLeaks(t)
	ns := startNATS(t, nil)
	st := ns.stream(t, jetstream.StreamConfig{AllowRollup: true})
	src := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://" + ns.addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Subject: "orders.created", Headers: map[string]string{"X-Tenant": "{tenant}"}}, src)
	count := func(subject string) uint64 {
		t.Helper()
		info, err := st.Info(context.Background(), jetstream.WithSubjectFilter(subject))
		if err != nil {
			t.Fatal(err)
		}
		return info.State.Subjects[subject]
	}
	publishRaw := func(subject, name, value string) {
		t.Helper()
		m := nats.NewMsg(subject)
		m.Data = []byte(`{}`)
		if name != "" {
			m.Header.Set(name, value)
		}
		if _, err := ns.js.PublishMsg(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		publishRaw("orders.control", "", "")
		if _, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1", "tenant": "Nats-Rollup"}, Env: noEnv}); err != nil {
			t.Fatal(err)
		}
	}
	publishRaw("orders.control", "Nats-Rollup", "sub")
	if n := count("orders.control"); n != 1 {
		t.Fatalf("control: orders.control holds %d messages after a rollup, want 1", n)
	}
	if _, err := compileQueue(&QueueBinding{Source: "events", Subject: "orders.created", Headers: map[string]string{"Nats-Rollup": "sub"}}, src, orderInput); err == nil {
		t.Error("a binding declared a Nats-Rollup header")
	}
	if n := count("orders.created"); n != 3 {
		t.Errorf("orders.created holds %d messages, want the 3 published", n)
	}

	publishRaw("orders.smuggle", "", "")
	publishRaw("orders.smuggle", "X-Tenant", "acme\r\nNats-Rollup: sub")
	if n := count("orders.smuggle"); n != 1 {
		t.Skipf("not applicable through the NATS client: a header value with CR LF did not smuggle a rollup in (%d messages kept); it writes line breaks as spaces", n)
	}
}

// TestQueueNATSMaxPayload: a message over the server's max_payload is
// refused for good.
func TestQueueNATSMaxPayload(t *testing.T) {
	noQueueLeaks(t)
	ns := startNATS(t, &natsserver.Options{MaxPayload: 1024})
	st := ns.stream(t, jetstream.StreamConfig{})
	src := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://" + ns.addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Subject: "orders.created"}, src)
	_, err := b.do(context.Background(), &Request{Args: map[string]any{"order_id": "1", "note": strings.Repeat("x", 2048)}, Env: noEnv})
	var te *TransientError
	if !errors.Is(err, nats.ErrMaxPayload) || errors.As(err, &te) {
		t.Errorf("err = %v, want nats.ErrMaxPayload, not transient", err)
	}
	if n := streamLen(t, st); n != 0 {
		t.Errorf("the stream holds %d messages, want none", n)
	}
}

// TestQueueNATSCredentials: the URL's credentials are read at call time:
// missing, wrong (a lasting failure that shows no password) and right.
func TestQueueNATSCredentials(t *testing.T) {
	noQueueLeaks(t)
	const pass = "n4ts-pa55word"
	ns := startNATS(t, &natsserver.Options{Username: "queue", Password: pass})
	st := ns.stream(t, jetstream.StreamConfig{})
	src := mustOpenQueue(t, QueueSource{Provider: "nats", URL: "nats://queue:${QUEUE_TEST_NATS_PASSWORD}@" + ns.addr})
	b := mustCompileQueue(t, QueueBinding{Source: "events", Subject: "orders.created"}, src)
	secret, set := "", false
	req := &Request{Args: map[string]any{"order_id": "1"}, Env: func(n string) (string, bool) {
		return secret, set && n == "QUEUE_TEST_NATS_PASSWORD"
	}}
	_, err := b.do(context.Background(), req)
	var missing *MissingEnvError
	if !errors.As(err, &missing) || missing.Name != "QUEUE_TEST_NATS_PASSWORD" {
		t.Errorf("without the variable: err = %v, want a *MissingEnvError", err)
	}
	secret, set = "wrong-password", true
	_, err = b.do(context.Background(), req)
	var te *TransientError
	if err == nil || errors.As(err, &te) || strings.Contains(err.Error(), secret) {
		t.Errorf("with a wrong password: err = %v; want a lasting failure that shows no password", err)
	}
	secret = pass
	if _, err := b.do(context.Background(), req); err != nil {
		t.Fatalf("with the password: %v", err)
	}
	if n := streamLen(t, st); n != 1 {
		t.Errorf("the stream holds %d messages, want 1", n)
	}
}
