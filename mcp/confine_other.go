//go:build !linux

package mcp

import (
	"context"
	"errors"
	"os"
)

type confinedProcess struct {
	stderr  *tail
	in, out *os.File
}

func startConfined(context.Context, Spec, string) (*confinedProcess, error) {
	return nil, errors.New("a confined server needs Linux (landlock and seccomp)")
}

func (*confinedProcess) stop() error { return nil }

func (*confinedProcess) exited(context.Context) (string, bool) { return "", false }
