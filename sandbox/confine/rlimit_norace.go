//go:build linux && !race

package confine

// raceEnabled is true in binaries built with the race detector, whose shadow memory does not fit
// any address-space limit: RLIMIT_AS is not applied there.
const raceEnabled = false
