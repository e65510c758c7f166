package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/toolexplorer/toolexplorer/demotools"
	"github.com/toolexplorer/toolexplorer/tooling"
	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
)

// main hands the process main thread to the scheduler of MainThread tools
// and serves confined children (tooling.Main), and runs the command on
// another goroutine.
func main() {
	tooling.Main(tooling.Default(), func() int {
		ctx, stop := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	})
}

// signalContext returns a context canceled by the first of sigs, and a
// function that stops catching them and cancels the context.
//
// The first signal only asks the command to stop: the call or the bench is
// canceled and what happened is reported. It also ends the catching, before
// the context is canceled, so a second signal ends the process the default
// way even while a step does not heed the context.
func signalContext(parent context.Context, sigs ...os.Signal) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	c := make(chan os.Signal, 1)
	signal.Notify(c, sigs...)
	go func() {
		select {
		case <-c:
		case <-ctx.Done():
		}
		signal.Stop(c)
		cancel()
	}()
	return ctx, func() {
		signal.Stop(c)
		cancel()
	}
}
