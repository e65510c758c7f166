//go:build !linux

package tooling

import "context"

func confinedEntry() bool { return false }

// runConfined refuses: confinement exists on Linux only.
func (r *Registry) runConfined(parent, runCtx context.Context, res *Result, e *entry, call Call, t *task) {
	defer t.release()
	res.failf(CodeSandboxUnavailable, "%s needs confinement, which exists on Linux only", e.tool.Name)
}

// inConfinedChild: there are no confined children off Linux.
const inConfinedChild = false

// endConfinement has nothing to end off Linux.
func endConfinement() {}

// explainConfine refuses, as runConfined does.
func (r *Registry) explainConfine(res *Result, e *entry) {
	res.failf(CodeSandboxUnavailable, "%s needs confinement, which exists on Linux only", e.tool.Name)
}
