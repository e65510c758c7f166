// Command coldhost is the smallest host of confined children: a main that calls confine.Main and
// registers one handler, test.echo. The start-up benchmarks of sandbox/confine run it as the
// child, to measure what confinement costs apart from a host's own initialisation; started with
// TOOLEXPLORER_TEST_NAIVE_CHILD=1 it is an unconfined child that echoes one read of fd 3 on fd 4.
// Started by hand it does nothing. Linux only.
package main
