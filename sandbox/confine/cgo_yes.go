//go:build linux && cgo

package confine

// cgoEnabled: the binary is built with cgo (its all-threads calls go through libpsx).
const cgoEnabled = true
