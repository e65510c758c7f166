// Package confine runs a named function in a confined child process of the same binary.
//
// Landlock and seccomp apply to a whole process and can never be lifted, so a confined call runs in
// a child: the host re-executes itself (/proc/self/exe), the child finds the [Handler] registered
// under the call's name (handlers register from init(), like database/sql drivers), confines
// itself, runs it once and exits (a reused worker of a [Pool] serves call after call). The
// package knows nothing of what the handlers do.
//
// # Host programs
//
// [Main] must be the first thing main calls (and TestMain, in tests that use [Run]):
//
//	func main() {
//		confine.Main() // in a child: confines, serves, exits; elsewhere returns false at once
//		// ... the program
//	}
//
// # The child, in order
//
//  0. In [ModeSupervised], starts its supervisor (see supervise.go) while its packages are
//     initialised, before any of the steps below, so that the supervisor's start overlaps them:
//     from a thread with no_new_privs and no inheritable or ambient capability, with the
//     child's credentials (a child that still has to switch its user, step 2, starts it then).
//  1. Closes every descriptor but stdin, stdout, stderr, its two pipes (fds 3 and 4,
//     close-on-exec from then on) and the Go runtime's own epoll and eventfd: those inherited
//     through exec and those package init code opened before confinement alike (one poll(2)
//     finds the open ones among the first 256 numbers; everything above is closed wholesale).
//  2. Reads its setup and moves into its private temp dir (the parent makes it while the child
//     starts), which is also its TMPDIR. When the parent is root it runs as uid and gid 65534
//     with no supplementary groups (the parent switches it between fork and exec; the child
//     checks, and switches itself if it finds root), and makes itself non-dumpable, so that no
//     other child running as the same user can read its memory or environment. A child of a
//     profile with write paths, where user namespaces work ([ModeNamespace]), starts in a user
//     namespace that maps only its own uid and gid, with a private mount namespace: there it
//     mounts every protected entry under its write grants read-only over itself and its temp
//     dir as a tmpfs of its budget, then drops the namespace's capabilities on every thread.
//     In [ModeSupervised] the supervisor gets the child's rlimits at step 3 and, after step 6,
//     when the child installs a second filter that hands every call that makes a name to it,
//     the filter's listener with the Landlock ruleset of step 5.
//  3. Sets its rlimits (cpu, address space, open files, file size; processes when the profile
//     declares a limit, the parent is root, or the child may start programs; no core dumps) and
//     caps its Go runtime's threads.
//     SIGXCPU gets its default action back, so the child dies at the CPU limit.
//  4. Sets no_new_privs on every thread, which Landlock needs: it installs a seccomp filter that
//     allows everything with TSYNC, which copies the flag to every thread in one call.
//  5. Checks the Landlock ABI itself and refuses below [MinLandlockABI] (go-landlock's
//     BestEffort is fail-open and is not used), then enforces one ruleset on every thread: the
//     profile's paths, its TCP connect and bind ports, and the IPC scopes (abstract unix sockets,
//     signals).
//  6. Installs the seccomp filter, which the parent built once per policy, on every thread
//     (TSYNC).
//  7. Reads the request, runs the handler with the caller's deadline, writes the response. The
//     child starts with GOMAXPROCS=1 (fewer threads to confine) and then takes the parent's, or
//     the one the profile passes on: before its ready message when it starts ahead of its
//     request (a pooled worker), at its first wait when the request is already there.
//
// Any failure before step 7 ends the child with the reason and [Run] returns an [Error] of kind
// [Unavailable]: a handler never runs unconfined.
//
// # Threads
//
// Landlock's landlock_restrict_self applies to the calling thread only (before ABI 8 and its
// TSYNC flag), and a Go process always has several threads by the time main runs. The ruleset
// is therefore applied with an all-threads system call: Go's
// syscall.AllThreadsSyscall in binaries built without cgo, libpsx (through
// go-landlock/landlock/syscall) with cgo. Threads the runtime starts later are cloned from
// confined threads and inherit the domain.
//
// # The parent
//
// Children are started from spawner threads: goroutines locked to their threads for the life of
// the process (a host's goroutine leak check ignores confine.spawner), because a child's
// parent-death signal is sent when the thread that started it ends, and Go ends a thread when a
// goroutine locked to it returns, whatever ran on it before.
//
// [Run] gives the child a clean environment (the variables the profile names, the child marker,
// MALLOC_ARENA_MAX=2, GOMAXPROCS=1 until it is confined, GORACE in race builds; the child sets
// TMPDIR), its own process group, SIGKILL on the parent's death, a private temp dir, stdout and
// stderr captured up to [OutputCap], and kills the whole process group at the context's end,
// and again once the child has answered (stragglers it left behind die with it). Reaping the
// child and emptying or removing its temp dir finish in the background; [Settle] waits for
// them. Errors are [*Error] values whose [ErrorKind] tells a refusal of the confinement
// (Denied), a resource limit (Limit), the deadline (Timeout), the caller's cancellation
// (Canceled), a confinement that could not be set up (Unavailable), a crash (Crashed) and a
// handler's own error (Failed) apart.
//
// The parent trusts nothing the child sends once its handler may have run: a response must
// carry the random nonce of its request, may claim only the kinds a child can know (Denied,
// Limit, Crashed, Failed; [Error.FromChild] marks them), and is refused from its frame header,
// unread, when it is larger than [Limits.ResponseBytes]. Profile paths are resolved by the
// parent, following only root's symlinks in directories only root changes, and the child makes
// each Landlock rule from a descriptor of the very object the parent checked (device and
// inode). Inside write grants, [ProtectedNames] stay read-only (see [Mode]). The private temp dir has a
// budget (Limits.TmpBytes, TmpInodes): a tmpfs of that size when the parent is root, measured
// by the parent during each call otherwise.
//
// [Profile.Narrow] intersects what a caller declares with what the configuration allows
// ([Bounds]): narrowest wins. A [Pool] keeps pre-started, already confined workers per profile.
//
// # Limits of the design
//
//   - No process of the child's may leave its process group (setsid and setpgid are refused), so
//     the group kill reaches them all. When the parent dies, only the child gets SIGKILL; the
//     rest of its group stays confined and bounded by its rlimits until it exits.
//   - Landlock's TCP rules do not cover MPTCP sockets; the seccomp filter refuses those.
//   - RLIMIT_AS is not applied in binaries built with the race detector.
package confine
