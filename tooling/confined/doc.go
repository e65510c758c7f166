// Package confined runs the confined tools of a registry (tools whose
// Meta.Confine is set) in confined children of the host binary: landlock,
// seccomp, resource limits and, where user namespaces exist, a private
// mount namespace. A host that registers confined tools imports it for
// its effect, in its main package:
//
//	import _ "github.com/toolexplorer/toolexplorer/tooling/confined"
//
// A host that does not import it links none of that (no landlock, seccomp
// or cgo thread code), and its confined tools are refused with
// sandbox_unavailable, naming this package (or run unconfined where the
// config's confinement.allow_unconfined says so).
//
// Confinement exists on Linux only: elsewhere importing the package
// changes nothing.
package confined
