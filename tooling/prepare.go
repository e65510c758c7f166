package tooling

import (
	"encoding/json"

	"github.com/toolexplorer/toolexplorer/internal/wirename"
)

// Prepare returns the Call that t's Run would get from a call with args and
// opts, without registering or running anything: t is checked as Register
// checks it, args as Execute checks them (the size cap, decoding,
// validation against t.Input) and schema defaults are filled in. workspace
// is what Call.Workspace returns, as the config's confinement workspace is
// for a confined call ("" for none). Unit tests of a tool's Run use it
// (package tooltest). A tool that would not register yields a
// *RegisterError; arguments that do not pass, an *Error with code
// validation_error whose Result.Fields name every failing field.
func Prepare(t Tool, args json.RawMessage, workspace string, opts ...Option) (Call, error) {
	var o callOptions
	for _, f := range opts {
		f(&o)
	}
	r := NewRegistry() // a scratch registry, never the hosted one: not r.Add, which refuses confined tools once Main runs
	e, problems := newEntry(t)
	if len(problems) > 0 {
		return Call{}, &RegisterError{Tool: t.Name, Problems: problems}
	}
	if err := r.insert(e); err != nil {
		return Call{}, err
	}
	e = r.lookup(t.Name)
	if o.origin == "" {
		o.origin = OriginApp
	}
	var who Principal
	if o.principal != nil {
		who = *o.principal
	}
	res := Result{CallID: o.callID, Tool: t.Name, Origin: o.origin, Principal: who}
	call := Call{ID: o.callID, Tool: t.Name, Origin: o.origin, Principal: who, Consent: o.consent, IdempotencyKey: o.idemKey,
		meta: &e.tool.Meta, reg: r, Workspace: workspace, progress: o.progress}
	if !r.decodeArgs(&res, e, &call, args) {
		res.Status = statusDenied
		return Call{}, &Error{Code: res.Code, Tool: t.Name, Message: res.Message, Result: &res}
	}
	return call, nil
}

// AddNamedAsIs adds t as Add does, but takes its name in the grammar of MCP
// (1 to 128 letters, digits, '_', '-' or '.') instead of requiring
// "group.name": for tools described by data, such as another MCP server's
// tools in preview mode (package preview).
func (r *Registry) AddNamedAsIs(t Tool) error {
	if !wirename.Valid(t.Name, 128, true) {
		return &RegisterError{Tool: t.Name, Problems: []string{"an MCP tool name is 1 to 128 letters, digits, '_', '-' or '.'"}}
	}
	e, problems := newEntryWith(t, false)
	if len(problems) > 0 {
		return &RegisterError{Tool: t.Name, Problems: problems}
	}
	return r.insert(e)
}
