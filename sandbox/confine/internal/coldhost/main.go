// Command coldhost is the smallest host of confined children: a main that calls confine.Main
// and one handler. The start-up benchmarks run it as the child, to measure what confinement
// costs apart from a host's own initialisation. It does nothing when started by hand.
package main

import (
	"context"
	"os"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
)

func init() {
	confine.Handle("test.echo", func(ctx context.Context, req []byte) ([]byte, error) { return req, nil })
}

func main() {
	if confine.Main() {
		return
	}
	if os.Getenv("TOOLEXPLORER_TEST_NAIVE_CHILD") == "1" {
		// Unconfined: one read of the request pipe, echoed on the response pipe.
		buf := make([]byte, 64)
		n, _ := os.NewFile(3, "request").Read(buf)
		os.NewFile(4, "response").Write(buf[:max(n, 0)])
	}
}
