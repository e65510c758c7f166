package bindings

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The queue benchmarks publish one order event to NATS JetStream on an
// embedded server (a file-backed stream), through a file tool and as a host
// writes it with nats.go alone.

var benchQueueArgs = json.RawMessage(`{"order_id": 1042, "lines": [{"product_id": 7, "qty": 2}, {"product_id": 9, "qty": 1}], "channel": "web"}`)

const benchQueueFile = `sources:
  bus:
    queue: {provider: nats, url: "nats://%s"}
tools:
  - name: shop.announce_order
    description: Publish an order event.
    input:
      type: object
      properties:
        order_id: {type: integer, minimum: 1}
        lines:
          type: array
          items:
            type: object
            properties: {product_id: {type: integer, minimum: 1}, qty: {type: integer, minimum: 1}}
            required: [product_id, qty]
        channel: {enum: [web, store, phone]}
      required: [order_id, lines]
      additionalProperties: false
    meta: {effects: [write, network]}
    binding:
      queue:
        source: bus
        subject: orders.placed
        message: {type: order.placed, order_id: "{order_id}", lines: "{lines}"}
        headers: {X-Channel: "{channel}"}
`

// BenchmarkQueueToolExecute is the file tool called through the whole
// governed pipeline (decode, validate, consent, the loader's call, the
// binding, the acknowledgement as output).
func BenchmarkQueueToolExecute(b *testing.B) {
	ns := startNATS(b, nil)
	ns.stream(b, jetstream.StreamConfig{})
	file := filepath.Join(b.TempDir(), "bus.yaml")
	if err := os.WriteFile(file, fmt.Appendf(nil, benchQueueFile, ns.addr), 0o600); err != nil {
		b.Fatal(err)
	}
	set, err := Load([]string{file}, Options{Env: env(nil)})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { set.Close() })
	r := tooling.NewRegistry()
	r.Register(set.Tools()...)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Execute(ctx, "shop.announce_order", benchQueueArgs, tooling.WithConsent()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueueDirect is the same publish as a host writes it: the
// arguments decoded into a struct, the message encoded, a header set,
// jetstream's PublishMsg, the acknowledgement encoded as output.
func BenchmarkQueueDirect(b *testing.B) {
	ns := startNATS(b, nil)
	ns.stream(b, jetstream.StreamConfig{})
	nc, err := nats.Connect("nats://" + ns.addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	type line struct {
		ProductID int `json:"product_id"`
		Qty       int `json:"qty"`
	}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		var in struct {
			OrderID int    `json:"order_id"`
			Lines   []line `json:"lines"`
			Channel string `json:"channel"`
		}
		if err := json.Unmarshal(benchQueueArgs, &in); err != nil {
			b.Fatal(err)
		}
		data, err := json.Marshal(map[string]any{"type": "order.placed", "order_id": in.OrderID, "lines": in.Lines})
		if err != nil {
			b.Fatal(err)
		}
		m := nats.NewMsg("orders.placed")
		m.Data = data
		m.Header.Set("X-Channel", in.Channel)
		ack, err := js.PublishMsg(ctx, m)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(map[string]any{"stream": ack.Stream, "sequence": ack.Sequence}); err != nil {
			b.Fatal(err)
		}
	}
}
