// Package confinehook is how confinement reaches the registry without the
// registry linking it: package tooling/confined installs a [Runner] when a
// host imports it, and tooling runs confined calls through whatever is
// installed, refusing them when nothing is.
package confinehook
