package tooling

// Confinement is what a confined tool may reach. A tool with a non-nil
// Meta.Confine never runs in the host process: each call runs in a child
// process of the host binary, confined by landlock (paths, TCP ports, IPC
// scopes), seccomp (no ptrace, mount, namespaces, raw or UDP sockets, and no
// fork or exec unless Exec names programs) and resource limits, with a clean
// environment and a private temporary directory. The config's confinement
// policy can only narrow it. Where confinement cannot be applied the call is
// refused with sandbox_unavailable, unless the config allows unconfined runs.
//
// Confinement is linked into a host that imports package tooling/confined
// (import _ "github.com/toolexplorer/toolexplorer/tooling/confined", in
// main); in a host that does not, confined calls are sandbox_unavailable.
//
// Confined tools must be in the registry the host hands to Main, built
// before Main is called: the child is the same binary, runs main up to
// Main again, and there Main serves the call from that registry. A
// confined tool of another registry is refused with sandbox_unavailable.
//
// Every zero value is the narrowest: no paths, no programs, no ports, no
// environment, default limits, a fresh child per call.
type Confinement struct {
	// Read and Write are the paths the tool may read, and read and write.
	// "$WORKSPACE" at the start of a path stands for the configured
	// workspace directory, created on demand. The private temporary directory
	// ($TMPDIR in the child) is always writable.
	Read, Write []string
	// Exec lists the programs (absolute paths) the tool may run.
	Exec []string
	// ConnectTCP lists the TCP ports the tool may connect to. A 0 stands
	// for every port of the config's confinement.allowed_ports (none when
	// that list is empty): a tool that may reach whatever the operator
	// allows, such as a test server on a port picked at run time.
	ConnectTCP []uint16
	// BindTCP lists the TCP ports the tool may bind and listen on, 0 standing
	// for an ephemeral port (the config's allowed_ports narrows it like
	// ConnectTCP). None by default: then the tool cannot listen at all, since
	// listen() on an unbound socket would bind an ephemeral port.
	BindTCP []uint16
	// Env names the variables of the host's environment passed on.
	Env []string
	// Limits are resource limits of the child, of the same type as the
	// caps of ConfinementBounds.MaxLimits; zero fields take safe
	// defaults (30 s of CPU, 1 GiB of memory, 256 open files, 64 MiB files,
	// 512 processes, a temporary directory of 256 MiB and 16384 entries).
	// Negative fields are refused by Register.
	Limits Limits
	// Reuse lets one pre-started worker serve several calls of this tool
	// (faster; the calls then share the worker's memory and temp dir). A
	// worker never serves another tool, retires after a call during which a
	// goroutine was made (a timer of an earlier call firing among them) or
	// that sent more than its answer, and cannot be combined with Exec (such
	// calls end sandbox_unavailable). A reused worker is only as trustworthy
	// as every earlier call of the tool it served: set Reuse only for a tool
	// that arms nothing (time.AfterFunc, an uncanceled context.WithTimeout)
	// that outlives its call.
	Reuse bool
}
