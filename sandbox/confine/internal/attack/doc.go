// Command attack is the escape helper of the sandbox/confine tests: a pure Go program (built with
// CGO_ENABLED=0, so that the tests may run with the race detector while the confined process stays
// free of cgo) that confines itself and then tries to break out.
//
// Usage:
//
//	attack NAME --policy JSON [--no-filter] [--victim PID] [--scratch DIR] [--addr HOST:PORT]
//
// It drops to uid and gid 65534 when started as root, installs the seccomp filter of the policy (a
// JSON confine.SeccompPolicy; --no-filter skips it, for a control run), performs the attack NAME and
// prints one JSON line {"attack","blocked","errno","detail"} before exiting 0. For an attack,
// blocked means the attempt failed and errno names its error; for a check that the process still
// works after confinement (threads, GC, sockets the policy allows, ...), blocked means the check
// failed. Set-up failures exit 3 with a message on stderr. The victim, a process the test starts
// for the purpose, and the scratch directory are the only things outside the helper it touches.
package main
