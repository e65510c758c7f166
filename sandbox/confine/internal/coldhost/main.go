//go:build linux

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
