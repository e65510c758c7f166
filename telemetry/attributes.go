package telemetry

import "go.opentelemetry.io/otel/attribute"

// The attributes of a call's span. The GenAI ones are those of
// OpenTelemetry's semantic conventions for an execute_tool span, which the
// Go semconv package does not ship; the toolexplorer ones are the
// registry's own.
const (
	// AttrOperationName is "execute_tool" on a call's span.
	AttrOperationName = attribute.Key("gen_ai.operation.name")
	// AttrToolName is the tool's registered name ("demo.echo").
	AttrToolName = attribute.Key("gen_ai.tool.name")
	// AttrToolCallID is the call id (tooling.Result.CallID).
	AttrToolCallID = attribute.Key("gen_ai.tool.call.id")
	// AttrToolType is "function" for a tool of the program (in process or
	// confined) and "extension" for one backed by a tools file or a remote
	// MCP server.
	AttrToolType = attribute.Key("gen_ai.tool.type")
	// AttrToolDescription is the tool's description.
	AttrToolDescription = attribute.Key("gen_ai.tool.description")
	// AttrToolArguments and AttrToolResult are the arguments and output as
	// JSON, only with WithContent.
	AttrToolArguments = attribute.Key("gen_ai.tool.call.arguments")
	AttrToolResult    = attribute.Key("gen_ai.tool.call.result")
	// AttrErrorType is the registry's code of a call that did not succeed
	// ("rate_limited", "tool_error").
	AttrErrorType = attribute.Key("error.type")

	// AttrOrigin is the caller's origin ("app", "llm").
	AttrOrigin = attribute.Key("toolexplorer.origin")
	// AttrTenant is the principal's tenant, when it has one.
	AttrTenant = attribute.Key("toolexplorer.tenant")
	// AttrSubject is the principal's subject, only with WithSubject.
	AttrSubject = attribute.Key("toolexplorer.subject")
	// AttrCode is the call's code, "ok" for a call that succeeded.
	AttrCode = attribute.Key("toolexplorer.code")
	// AttrStatus is "ok", "denied" or "error" (tooling.Result.Status).
	AttrStatus = attribute.Key("toolexplorer.status")
	// AttrWaitMS and AttrRunMS are the time queued for a slot, lock or
	// thread and the time the tool ran, in milliseconds.
	AttrWaitMS = attribute.Key("toolexplorer.wait_ms")
	AttrRunMS  = attribute.Key("toolexplorer.run_ms")
	// AttrConfined says the tool runs in a confined child.
	AttrConfined = attribute.Key("toolexplorer.confined")
	// AttrProfileHash is the hash of the confinement profile a confined
	// call ran under, as the registry computes it (its "confine" decision).
	AttrProfileHash = attribute.Key("toolexplorer.profile_hash")
	// AttrStep and AttrDetail are a governance decision's, on the span's
	// "governance" events.
	AttrStep   = attribute.Key("toolexplorer.step")
	AttrDetail = attribute.Key("toolexplorer.detail")
)

// The attributes of the metrics.
const (
	labelTool   = attribute.Key("tool")
	labelOrigin = attribute.Key("origin")
	labelTenant = attribute.Key("tenant")
	labelCode   = attribute.Key("code")
	labelStage  = attribute.Key("stage")
	labelDir    = attribute.Key("dir")
)
