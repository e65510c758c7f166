//go:build !(linux && amd64)

package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "attack: the seccomp filter is built for linux/amd64 only")
	os.Exit(2)
}
