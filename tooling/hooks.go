package tooling

import "github.com/toolexplorer/toolexplorer/internal/toolhook"

func init() {
	toolhook.PrepareCall = prepareCall
	toolhook.AddWireNamed = addWireNamed
}

// addWireNamed adds a tool under MCP's name grammar, for package preview.
func addWireNamed(reg, tool any) error {
	t := tool.(Tool)
	e, problems := newEntryWith(t, false)
	if len(problems) > 0 {
		return &RegisterError{Tool: t.Name, Problems: problems}
	}
	return reg.(*Registry).insert(e)
}

// prepareCall builds the Call a tool's Run gets, for package tooltest.
func prepareCall(tool any, args []byte, o toolhook.CallOptions) (any, error) {
	t := tool.(Tool)
	r := NewRegistry() // a scratch registry, never the hosted one: not r.Add, which refuses confined tools once Main runs
	e, problems := newEntry(t)
	if len(problems) > 0 {
		return nil, &RegisterError{Tool: t.Name, Problems: problems}
	}
	if err := r.insert(e); err != nil {
		return nil, err
	}
	e = r.lookup(t.Name)
	origin := Origin(o.Origin)
	if origin == "" {
		origin = OriginApp
	}
	res := Result{CallID: o.ID, Tool: t.Name, Origin: origin}
	call := Call{ID: o.ID, Tool: t.Name, Origin: origin, Tenant: o.Tenant, Consent: o.Consent, meta: &e.tool.Meta, reg: r, workspace: o.Workspace}
	if !r.decodeArgs(&res, e, &call, args) {
		res.Status = statusDenied
		return nil, &Error{Code: res.Code, Tool: t.Name, Message: res.Message, Result: &res}
	}
	return call, nil
}
