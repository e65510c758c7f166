//go:build !linux

package tooling

import "context"

// ConfinedChild must run first in main when the host does not use RunMain;
// confinement exists on Linux only, so here it always returns false. Such a
// host calls EndConfinement as it exits.
func ConfinedChild() bool { return false }

func confinedEntry() bool { return false }

// runConfined refuses: confinement exists on Linux only.
func (r *Registry) runConfined(parent, runCtx context.Context, res *Result, e *entry, call Call, t *task) {
	defer t.release()
	res.failf(CodeSandboxUnavailable, "%s needs confinement, which exists on Linux only", e.tool.Name)
}

// inConfinedChild: there are no confined children off Linux.
const inConfinedChild = false

// EndConfinement has nothing to end off Linux.
func EndConfinement() {}
