// Package toolhook lets package tooling hand package tooling/tooltest what
// it needs to build a call outside the registry, without exporting it from
// tooling. It is a leaf: it imports only the standard library.
package toolhook

// CallOptions are what tooltest sets on a call.
type CallOptions struct {
	ID        string
	Origin    string
	Tenant    string
	Consent   bool
	Workspace string
}

// PrepareCall is set by package tooling. It compiles tool (a tooling.Tool)
// as Register does, checks args as Execute does (size cap, decoding,
// validation, schema defaults) and returns the tooling.Call the tool's Run
// would get. A tool that does not register yields a *tooling.RegisterError,
// arguments that do not pass a *tooling.Error with code validation_error.
var PrepareCall func(tool any, args []byte, o CallOptions) (call any, err error)
