// Package choice is a stream of choices for the generators of test inputs
// that fuzz targets drive: it hands out the fuzzer's bytes first, then draws
// from a generator seeded from them, so that a short input still makes a
// whole input and the fuzzer's mutations steer the first choices. It imports
// the standard library only.
package choice
