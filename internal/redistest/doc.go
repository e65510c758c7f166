// Package redistest starts a redis-server (Debian's package) of a test's
// own on a loopback port, so that a test may stop it and start it again.
// Without redis-server the test is skipped, and fails when CI=true. It is
// a leaf: it imports only the standard library.
package redistest
