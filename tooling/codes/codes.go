package codes

// Code is a stable, machine-readable reason. It is also the error a call's
// *tooling.Error matches: errors.Is(err, codes.Timeout) tells whether err is
// a call that timed out, the way errors.Is(err, syscall.ENOENT) tells a
// missing file. Its Error method returns the code as it is ("timeout"), so
// a Code prints the same as an error and as a string.
type Code string

// Error returns the code itself.
func (c Code) Error() string { return string(c) }

// The codes, in the order of the steps of a call that produce them.
const (
	// OK: the call succeeded.
	OK Code = ""
	// NotFound: no tool by that name (with a did-you-mean and an import hint).
	NotFound Code = "not_found"
	// Paused: the tool is paused (Registry.SetState, or config
	// tools.NAME.state); the message gives the reason.
	Paused Code = "paused"
	// IdempotencyConflict: the call's idempotency key was used before (or
	// is in use now) by a call of another tool or with other arguments, or
	// by a call with the same ones whose output was too large to keep
	// (Settings.IdempotencyMaxBytes); the message names that call. Nothing
	// ran.
	IdempotencyConflict Code = "idempotency_conflict"
	// Disabled: disabled by config (enabled, whitelist, blacklist,
	// override) or at runtime.
	Disabled Code = "disabled"
	// OriginDenied: the caller's origin is not in Meta.Origins.
	OriginDenied Code = "origin_denied"
	// Unavailable: the tool's Available func said why it cannot run now.
	Unavailable Code = "unavailable"
	// ValidationError: arguments too large, malformed, or not valid against
	// the input schema.
	ValidationError Code = "validation_error"
	// Forbidden: the registry's Authorizer does not let the call's
	// principal make it; the message names the rule or policy that decided.
	Forbidden Code = "forbidden"
	// ConsentRequired: the tool needs consent and the call carried none.
	ConsentRequired Code = "consent_required"
	// Refused: a middleware refused the call with an error that carried no
	// code of its own.
	Refused Code = "refused"
	// RateLimited: no token left in the tool's rate bucket (see
	// Result.RetryAfter).
	RateLimited Code = "rate_limited"
	// Busy: a slot, resource lock or the main thread could not be had
	// before the deadline.
	Busy Code = "busy"
	// Timeout: the call ran past its deadline (the caller gets control back
	// on time).
	Timeout Code = "timeout"
	// Canceled: the caller's context was canceled.
	Canceled Code = "canceled"
	// ToolError: the tool returned an error.
	ToolError Code = "tool_error"
	// Panic: the tool panicked; the stack is in the result, the host lives
	// on.
	Panic Code = "panic"
	// SandboxDenied: the confinement refused something the tool tried (a
	// path, a port, a system call) or killed it at a resource limit.
	SandboxDenied Code = "sandbox_denied"
	// SandboxUnavailable: confinement cannot be applied here (no landlock,
	// an old kernel), and the config does not allow unconfined runs.
	SandboxUnavailable Code = "sandbox_unavailable"
	// OutputInvalid: the output is not JSON, over the size cap or not valid
	// against the output schema.
	OutputInvalid Code = "output_invalid"
)
