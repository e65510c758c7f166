// Package prestart starts the supervisor of a confined child in the supervised mode (see
// sandbox/confine, supervise.go) from package initialisation, as early as a Go program can run
// anything: the supervisor's own start (a Go runtime and the host's packages) then overlaps the
// child's start and confinement instead of following them. It imports only the standard library
// and internal/childmark, so that it is initialised right after package os, before most of a
// host's packages.
//
// What the supervisor must not get is kept from it here: the thread that starts it has
// no_new_privs and an empty inheritable (hence ambient) capability set, so that the supervisor
// holds no capability in the child's user namespace from its first instruction on; only the
// standard descriptors and its end of a socket pair reach it. What it needs later (the child's
// rlimits, Landlock ruleset, seccomp listener, memory and working directory) the child applies
// or hands over once it has them, through that socket pair, before its handler runs.
package prestart
