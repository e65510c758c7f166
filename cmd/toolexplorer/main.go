package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// main hands the process main thread to the scheduler of MainThread tools
// (tooling.RunMain), then runs the command on another goroutine.
func main() {
	code := 0
	tooling.RunMain(func() {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code = run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
	})
	os.Exit(code)
}
