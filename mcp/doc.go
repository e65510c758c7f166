// Package mcp serves a tooling.Registry to MCP clients, over stdio or
// streamable HTTP, with the official MCP SDK.
//
// tools/list is the registry's MCP export (package tooling/export): names
// as exported, titles, annotations and output schemas, paginated. Every
// tools/call is one Registry.Execute under the listener's origin (default
// llm), so every step of governance applies. A call that is refused or fails
// is a tool result with isError set, whose text names the code and message
// (and every failing field of invalid arguments) and whose
// structuredContent is the full tooling.Result, less the stack of a panic,
// which stays with the host; for a tool with an output schema, which clients check structuredContent against even in errors,
// the Result is in _meta under ResultMetaKey instead. A call canceled by the
// client (notifications/cancelled) cancels the call's context, and a tool
// that reports progress (tooling.Call.ReportProgress) sends progress
// notifications to a client that asked for them.
//
// Consent: a call that needs consent asks the client with a form
// elicitation when the client supports it, and runs on yes; otherwise it is
// refused with consent_required, unless the listener grants consent to the
// tool (Options.Consent).
//
// The registry has no hook for tools enabled or disabled at runtime: a
// host that changes them (SetEnabled, Configure) calls Server.Refresh, which
// updates the list and notifies the clients (tools/list_changed).
//
// The client side, Connect, adds the tools of another MCP server (a stdio
// command or a streamable HTTP URL) to a registry as remote tools named
// "SERVER.tool", so that each call to them goes through Registry.Execute
// and its governance before it is sent, and their output is checked there
// against their outputSchema. Remote.Close removes them and stops the
// server and whatever it started.
//
// A streamable HTTP server that requires OAuth 2.1 is signed in to when
// its Spec has OAuth (OAuthClient): discovery from its protected resource
// metadata, client registration, the authorization code grant with PKCE
// through a browser and a loopback redirect (the SDK's auth package) or the
// device grant (golang.org/x/oauth2), tokens kept in a file and refreshed.
//
// A Server whose registry holds remote tools is a gateway. A successful
// call of a remote tool is answered with the remote server's result as it
// gave it (content blocks, structuredContent), once the registry has
// checked it. A remote server that asks for input during a call
// (elicitation) has its question asked of the MCP client that made the
// call, when that client supports elicitation (WithElicitation), and
// declined otherwise; a client on protocol 2026-07-28 or later is asked by
// the call's result (an input request), and its call made again with the
// answer runs the remote tool again.
//
// A stdio server whose Spec has Confine runs confined: a confined
// child of the binary (sandbox/confine) starts it under landlock, seccomp
// and limits, and the client talks to it over FIFOs; the host's main must
// call the confine entry point first (tooling.Main does).
//
// Tracing: a tools/call served is a server span, and a tools/call sent to
// a remote server a client span, named "tools/call {tool}" with
// mcp.method.name, made with OpenTelemetry's global tracer provider (the
// client span with that of the span it continues); the trace context
// travels in the request's _meta (traceparent), so that a trace runs from
// an MCP host through a gateway into a remote server. Without a provider
// set, nothing is recorded.
//
// Imports: the standard library, the MCP SDK, golang.org/x/oauth2, OpenTelemetry's API, tooling
// and sandbox/confine (for confined servers). tooling never imports this
// package; the gate in scripts/gate.sh checks it.
package mcp
