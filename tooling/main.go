package tooling

import (
	"os"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/sandbox"
)

// hosted is the registry handed to Main; nil before Main.
var hosted atomic.Pointer[Registry]

// hostedRegistry is the registry a confined child serves: the one handed
// to Main, else Default.
func hostedRegistry() *Registry {
	if r := hosted.Load(); r != nil {
		return r
	}
	return defaultRegistry
}

// Main is the one call a host's main makes, first thing, and it never
// returns: it hands the process main thread to the scheduler of MainThread
// tools, runs run on another goroutine, and when run returns, stops the
// pre-started confined workers, removes the temp dirs of confined calls
// and exits with run's result as the exit status:
//
//	func main() {
//		reg := tooling.NewRegistry()
//		reg.Register(mytools.New(db)...)
//		tooling.Main(reg, func() int { return serve(reg) })
//	}
//
// Deferred calls of main do not run: an Audit hook that queues events
// for a slow sink flushes them before run returns.
//
// reg (nil means Default) is the registry whose confined tools run: a
// confined call re-executes the host binary, and in that child Main serves
// the call from reg instead of calling run. So the child must build reg as
// the host does: every package's init() runs again in the child, and so
// does main up to its call of Main; build reg there, before Main, from
// nothing the child lacks (it has no environment beyond what the tool's
// Confinement passes, and no network or files beyond what it allows).
// Confined tools of any other registry are refused: once Main runs, when
// they are added (Add and Replace return the error, Register panics);
// those added before, when they are called, with sandbox_unavailable.
//
// MainThread tools run on the process main thread only when Main is called
// from main itself, before anything else: the runtime keeps the main
// goroutine on that thread through package initialisation and Main locks
// it there; no init of this module locks it. Between the end of package
// initialisation and Main's first statement the runtime may still move the
// main goroutine to another thread; a host that must be certain (a
// MainThread tool that calls a toolkit bound to the main thread) locks it
// in an init of package main, func init() { runtime.LockOSThread() }, and
// Main keeps it. Without Main they still run one at a time, in order, on a
// thread of their own.
func Main(reg *Registry, run func() int) {
	if reg == nil {
		reg = defaultRegistry
	}
	hosted.Store(reg)
	confinedEntry() // in a confined child: serves its calls and exits
	code := 0
	sandbox.Main.Run(func() { code = run() })
	endConfinement()
	os.Exit(code)
}
