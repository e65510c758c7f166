package toolstates

import "context"

// Follow makes f run after each change of a tool's state in reg, a
// *tooling.Registry, with the context of the change (without its
// cancellation), where the registry's audit hooks see its Event; stop
// ends that for the changes made afterwards. f must be quick; a panic in
// it is recovered and counted as an audit hook's is.
var Follow func(reg any, f func(ctx context.Context)) (stop func())
