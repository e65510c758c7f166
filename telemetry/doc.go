// Package telemetry makes OpenTelemetry spans and metrics of a
// tooling.Registry's calls: one span "execute_tool {tool}" per call, with
// the GenAI attributes of OpenTelemetry's semantic conventions and the
// registry's own, and the metrics tool_invocations, tool_denied,
// tool_errors, tool_latency, tool_budget_bytes, tool_in_flight and
// tool_queue. A host opts in by importing it and calling Instrument; a host
// that does not never links OpenTelemetry's SDK.
//
// Instrument attaches through the registry's hooks: the synchronous audit
// hook (Registry.Audit) opens the span when the call begins and closes it
// when it ends, so that every call, refusals before any middleware
// included, has one span and is counted once; a middleware (Registry.Use)
// puts the span in the context the tool runs with, so that what the tool
// does (an HTTP request of a file tool, a call to a remote MCP server)
// joins the trace.
//
// Providers come from options (WithTracerProvider, WithMeterProvider),
// OpenTelemetry's global providers by default. Arguments and outputs are
// never attributes unless WithContent says so.
//
// Every call pays for its span and measurements in the caller's
// goroutine, so what is the same from call to call is made once: a tool's
// span name and attributes, per origin and tenant, the attribute sets of
// the measurements and the attributes of its governance events. The
// measurements carry no exemplars (they are recorded without the call's
// span), which the SDK's default filter would otherwise take for each of
// the six measurements of every sampled call.
//
// Prometheus returns a meter provider and an http.Handler that serves its
// metrics in Prometheus' text format from a registry of its own; NewOTLP
// returns providers that export to an OpenTelemetry collector over
// OTLP/HTTP.
//
// Imports: tooling and OpenTelemetry (and the Prometheus client for the
// handler). tooling never imports this package; the gate in scripts/gate.sh
// checks it.
package telemetry
