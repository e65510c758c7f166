// Command realhost is a host program written the way a user writes one: its
// main hands over to tooling.Main with a registry of tools, one of them
// confined, so its confined children run the whole package initialisation of
// a program that links tooling. The confinement benchmarks of package tooling
// run it to measure a confined call in a real host:
//
//	realhost -calls N
//
// makes N cold calls of its confined tool, each interleaved, in a random order,
// with a run of `bwrap --unshare-all --ro-bind / / /bin/true` (when bwrap is
// installed) and a fork+exec of /bin/true, and prints every case's
// per-call durations in nanoseconds as JSON. Every call starts its own child
// (no pool), as the first call of a profile does. Between two runs, untimed,
// the previous one's teardown (reaping, the child's temp dir) ends, so that
// no run pays for another's. With -workspace, the writing tool's calls are
// timed too, beside bwrap confining the same tool: the host binary started
// again under bwrap (workspace writable, its .git read-only) to write the
// same file, which
//
//	realhost -write FILE
//
// does. Linux only.
package main
