// Package demotools holds example tools that walk every governance path of
// a call: a plain function (demo.echo), host state (demo.host_status), a
// deadline (demo.slow), each kind of failure (demo.fail), an availability
// check (demo.unavailable), consent and exclusive state (demo.write_note)
// and an origin restriction (demo.llm_only). The confined tools run each
// call in a child process under landlock and seccomp, on the configured
// workspace directory: fs.read_file, fs.list_dir, fs.write_file, proc.run
// (programs start only through tooling.Call.RunProgram) and net.http_get.
//
// Each tool lives in its own file. demo.echo's Run is a typed handler
// (tooling.Func). A tool that needs nothing registers
// itself with tooling.Register from init(). A tool that needs a dependency
// is built by a constructor that takes it: KVTools(store) makes demo.kv_put
// and demo.kv_get on a KV store, and a host registers them with
// reg.Register(demotools.KVTools(store)...); per-call values reach a tool
// under typed context keys (WithKVSpace). A host blank-imports the package
// to make every tool callable (the kv tools on a store of their own):
//
//	import _ "github.com/toolexplorer/toolexplorer/demotools"
//
// The package imports the standard library and tooling only: never os/exec,
// syscall, unsafe, reflect, golang.org/x/sys, sandbox or tui. Its tools
// never call the default registry from Run; everything they need arrives
// in their context and their tooling.Call.
package demotools
