// Replicas is a small host whose replicas share their tools' rate limits,
// idempotency records and budgets on one Redis server (package state): the
// registry, three tools and the wiring a production host needs, reading
// one call a line on standard input and answering each with a line of
// JSON. Its tests start three of it against a real redis-server.
//
//	replicas -redis 127.0.0.1:6379 -writes /tmp/writes [-on-failure local]
//
// A call is {"tool": "shared.pay", "args": {"id": "a"}, "key": "k1",
// "subject": "alice"}; the tools are shared.limited (10 calls a minute),
// shared.pay (takes idempotency keys; appends its id to the writes file)
// and shared.spend (a budget of 5 calls an hour per subject).
//
// Its tests also start three toolexplorer serve --http --stateless
// replicas behind a round-robin reverse proxy, sharing a redis-server,
// and the go-sdk client calling through it; and, as the control, replicas
// that keep sessions, which need the proxy's affinity on Mcp-Session-Id.
package main
