// Package tooling is an in-process, reflection-free registry of tools and
// the one governed path that runs them.
//
// A tool is a named function with a JSON Schema for its arguments and a
// Meta that declares how it behaves: concurrency, side effects, risk (Safety),
// consent, timeout, rate, allowed origins. Tool packages register their
// tools from init():
//
//	func init() {
//		tooling.Register(tooling.Tool{
//			Name:  "demo.echo",
//			Input: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
//			Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
//			Run: tooling.Func(func(ctx context.Context, c tooling.Call, in struct{ Text string }) (string, error) {
//				return in.Text, nil
//			}),
//		})
//	}
//
// and a host blank-imports those packages and calls ExecuteTool. Tools
// that need a dependency are built by a constructor that takes it
// (func NewTools(db *sql.DB) []tooling.Tool) and registered by the host;
// per-call values reach a tool under typed context keys. Func makes a Run
// from a typed handler; package tooltest calls a Run in a unit test. Every call
// goes through the same steps, in order, and every refusal or failure has a
// stable Code (see Code) with a message for people and a Go error that
// matches the Code with errors.Is:
//
//	look-up            not_found (with did-you-mean and a forgotten-import hint)
//	enabled            disabled (Settings: Disabled, Whitelist, Blacklist, Tools; SetEnabled)
//	origin             origin_denied
//	availability       unavailable (with the tool's reason)
//	arguments          validation_error (size cap, malformed JSON, every failing field)
//	consent            consent_required (WithConsent, else the registry's
//	                   consent function is asked: once, for the session, or no)
//	middleware         refused, or a code of the middleware's own (Use)
//	rate               rate_limited (with Result.RetryAfter)
//	deadline           the shortest of the tool's timeout, config and caller
//	slot, locks, main  busy (a global slot, the resource locks of Exclusive
//	                   tools, or the main thread, not had before the deadline)
//	run                timeout, canceled, tool_error, panic
//	output             output_invalid
//
// Schema defaults are filled into absent optional properties (and into
// nested objects that are present) after validation and before Run; a
// tool sees them in Call.Args and Call.Raw. Defaults under array items and
// under anyOf, oneOf or allOf are not filled.
//
// A call returns by its deadline even if the tool ignores its context: the
// tool's goroutine is then abandoned and counted in Stats().Abandoned until
// it returns. A panicking tool yields code panic with its stack.
//
// Middleware (Use) is the one extension point of the call path, shaped like
// net/http middleware and gRPC interceptors: each sees a call that passed
// the checks up to consent (its tool, Meta, validated arguments, origin,
// tenant and id) and its Result, and may refuse it with a code, wrap it (a
// span, a timer) or replace its result (an idempotent replay). It runs
// around the steps that spend or wait for resources, from the rate token to
// the output check, so a refusal or a replay spends nothing.
//
// Audit hooks (Registry.Audit) get a begin and an end event for every call,
// refusals included, with digests and sizes of the arguments and output,
// never their content, and the call's context values so that they can join
// its trace. They run in the caller's goroutine, must be quick, and cannot
// change a call.
//
// Package tooling/export describes the tools for language models (MCP,
// OpenAI, Anthropic); OpenAI and Anthropic refuse dots in names, so their
// names spell "." as "__", and Execute accepts both spellings. Package
// tooling/lint finds what Register lets through but a model, an MCP client
// or a person would trip over.
//
// A host's main hands over to Main(reg, run) first thing: it gives the
// process main thread to the scheduler of MainThread tools (package
// sandbox), serves confined calls of reg in the re-executed children, runs
// run and exits with its result. No init of this module locks a thread.
// Confined tools run only in a host that imports package tooling/confined
// (for its effect, in main); without it they are refused with
// sandbox_unavailable and the host links no confinement code.
//
// A host configures a registry with Settings (Configure): bounds, which
// tools are enabled, per-tool overrides and confinement bounds; package
// config reads them from the config file (reg.Configure(cfg.Settings)).
//
// Imports: the standard library, sandbox and the project's internal
// packages (tooling/internal/schema compiles and checks the schemas). Never
// config (config imports tooling), reflect nor any UI package, and none of
// the parts that plug into it (policy, ledger, telemetry, state, mcp,
// bindings, history): each imports tooling, and a host installs it through
// tooling's extension points. The gate in scripts/gate.sh checks it.
package tooling
