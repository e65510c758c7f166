// Package toolhook lets package tooling hand its subpackages what they need
// of its internals without exporting it: tooltest builds a call outside the
// registry, preview registers tools under MCP's name grammar. It is a leaf: it imports only the standard library.
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

// AddWireNamed is set by package tooling. It adds tool (a tooling.Tool) to
// reg (a *tooling.Registry) as Registry.Add does, but with the name
// grammar of MCP (letters, digits, '_', '-', '.') instead of "group.name".
var AddWireNamed func(reg, tool any) error
