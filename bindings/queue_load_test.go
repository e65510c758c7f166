package bindings

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// queueToolsFile declares queue tools the way a tools file does: a source
// (provider and URL, %s) and two tools, one of them a shadow write. The
// target line (%s) is "stream: NAME" for Redis, "subject: ..." for NATS.
const queueToolsFile = `sources:
  bus:
    queue:
      provider: %s
      url: %s
tools:
  - name: shop.order_placed
    description: Tell the warehouse an order was placed.
    input:
      type: object
      properties: {order_id: {type: string}, qty: {type: integer, default: 1}, tenant: {type: string}}
      required: [order_id]
    meta: {effects: [write, network]}
    binding:
      queue:
        source: bus
        %s
        message: {kind: order.placed, order: "{order_id}", qty: {$arg: qty}}
        headers: {X-Tenant: "{tenant}", X-Key: "${BUS_KEY}"}
  - name: shop.order_draft
    description: What an order would tell the warehouse.
    input:
      type: object
      properties: {order_id: {type: string}}
      required: [order_id]
    meta: {effects: [write, network]}
    shadow: true
    binding:
      queue:
        source: bus
        %s
        headers: {X-Key: "${BUS_KEY}"}
`

const busKey = "bus-k3y-value"

// loadQueueTools loads the tools file into a registry; the set is closed
// (its client with it) at the end of the test.
func loadQueueTools(t *testing.T, provider, url, target string, vars map[string]string) *tooling.Registry {
	t.Helper()
	dir := writeFiles(t, map[string]string{"bus.yaml": fmt.Sprintf(queueToolsFile, provider, url, target, target)})
	set, err := Load([]string{dir}, Options{Env: env(vars)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := set.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	r := tooling.NewRegistry()
	r.Register(set.Tools()...)
	return r
}

// checkQueueToolsFile runs the tools: a publish twice with one idempotency
// key (one message, the second marked duplicate), then a shadow call that
// publishes nothing and shows the credential as ${BUS_KEY}. count says how
// many messages the server holds.
func checkQueueToolsFile(t *testing.T, r *tooling.Registry, count func() int) {
	t.Helper()
	ctx := context.Background()
	var outs []map[string]any
	for range 2 {
		res, err := r.Execute(ctx, "shop.order_placed", json.RawMessage(`{"order_id": "A-1", "tenant": "acme"}`),
			tooling.WithConsent(), tooling.WithIdempotencyKey("order-A-1"))
		if err != nil {
			t.Fatalf("Execute: %v", err)
		}
		var out map[string]any
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	if outs[0]["duplicate"] != nil || outs[1]["duplicate"] != true {
		t.Errorf("outputs %v, want the second marked duplicate", outs)
	}
	if n := count(); n != 1 {
		t.Errorf("the server holds %d messages after two calls with one key, want 1", n)
	}
	res, err := r.Execute(ctx, "shop.order_draft", json.RawMessage(`{"order_id": "A-2"}`), tooling.WithConsent())
	if err != nil {
		t.Fatalf("shadow call: %v", err)
	}
	out := string(res.Output)
	for _, want := range []string{`"shadow":true`, `"X-Key":"${BUS_KEY}"`, `"message":{"order_id":"A-2"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("shadow output lacks %s: %s", want, out)
		}
	}
	if strings.Contains(out, busKey) {
		t.Errorf("the credential's value is in the shadow output: %s", out)
	}
	if n := count(); n != 1 {
		t.Errorf("the server holds %d messages after a shadow call, want still 1", n)
	}
}

func TestQueueNATSToolsFile(t *testing.T) {
	noQueueLeaks(t)
	ns := startNATS(t, &natsserver.Options{Username: "shop", Password: "bus-pa55"})
	st := ns.stream(t, jetstream.StreamConfig{})
	r := loadQueueTools(t, "nats", `"nats://shop:${BUS_PASSWORD}@`+ns.addr+`"`, "subject: orders.placed",
		map[string]string{"BUS_PASSWORD": "bus-pa55", "BUS_KEY": busKey})
	checkQueueToolsFile(t, r, func() int { return int(streamLen(t, st)) })
	msg, err := st.GetMsg(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if string(msg.Data) != `{"kind":"order.placed","order":"A-1","qty":1}` || msg.Header.Get("X-Key") != busKey || msg.Header.Get("X-Tenant") != "acme" {
		t.Errorf("message %s with %v", msg.Data, msg.Header)
	}
}

func TestQueueRedisToolsFile(t *testing.T) {
	noQueueLeaks(t)
	addr, c := testRedis(t)
	stream := testStream(t, c)
	r := loadQueueTools(t, "redis", "redis://"+addr, "stream: "+stream, map[string]string{"BUS_KEY": busKey})
	checkQueueToolsFile(t, r, func() int { return len(entries(t, c, stream)) })
	e := entries(t, c, stream)[0].Values
	if e["message"] != `{"kind":"order.placed","order":"A-1","qty":1}` || e["X-Key"] != busKey || e["X-Tenant"] != "acme" {
		t.Errorf("entry %v", e)
	}
}

// TestQueueToolsFileProblems: each problem of a queue binding is reported
// with its file, line and path.
func TestQueueToolsFileProblems(t *testing.T) {
	dir := writeFiles(t, map[string]string{"bus.yaml": `sources:
  bus:
    queue: {provider: nats, url: "nats://localhost:4222"}
  cache:
    queue: {provider: kafka, url: "kafka://localhost"}
tools:
  - name: shop.wild
    description: A wildcard subject.
    input: {type: object, properties: {id: {type: string}}}
    meta: {effects: [write, network]}
    binding:
      queue: {source: bus, subject: "orders.*"}
  - name: shop.unknown
    description: A message with no such property.
    input: {type: object, properties: {id: {type: string}}}
    meta: {effects: [write, network]}
    binding:
      queue:
        source: bus
        subject: orders.new
        message: {order: "{order_id}"}
  - name: shop.read
    description: A publish that says it only reads.
    input: {type: object, properties: {id: {type: string}}}
    meta: {effects: [read]}
    binding:
      queue: {source: bus, subject: orders.new}
  - name: shop.header
    description: A header NATS acts on.
    input: {type: object, properties: {id: {type: string}}}
    meta: {effects: [write, network]}
    binding:
      queue: {source: bus, subject: orders.new, headers: {Nats-Msg-Id: "{id}"}}
`})
	_, err := Load([]string{dir}, Options{Env: env(nil)})
	var le *LoadError
	if !errors.As(err, &le) {
		t.Fatalf("Load: %v, want a *LoadError", err)
	}
	msg := err.Error()
	for _, want := range []string{
		`"kafka" is not a queue provider`,
		`orders.*" has a wildcard`,
		`message.order: {order_id} is not a property of the input`,
		`headers starting with Nats- direct the server`,
		`the binding writes (a publish) but the effects declared are read`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("problems lack %q:\n%s", want, msg)
		}
	}
	for _, p := range le.Problems {
		if !strings.HasSuffix(p.File, "bus.yaml") || p.Line == 0 {
			t.Errorf("problem %v has no file and line", p)
		}
	}
}

// TestQueueExampleFile: the example's queue tool runs offline, in shadow.
func TestQueueExampleFile(t *testing.T) {
	set, err := Load([]string{"../examples/tools/events.yaml"}, Options{Env: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	r := tooling.NewRegistry()
	r.Register(set.Tools()...)
	res, err := r.Execute(context.Background(), "shop.announce_order",
		json.RawMessage(`{"order_id": 7, "lines": [{"product_id": 2, "qty": 3}]}`), tooling.WithConsent())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"headers":{"X-Channel":"web","X-Schema":"shop.order.v1"},` +
		`"message":{"lines":[{"product_id":2,"qty":3}],"order_id":7,"type":"order.placed"},` +
		`"provider":"redis","shadow":true,"source":"shop_events","stream":"shop.orders"}`
	if string(res.Output) != want {
		t.Errorf("output %s\nwant   %s", res.Output, want)
	}
}
