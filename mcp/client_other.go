//go:build !unix

package mcp

import (
	"errors"
	"os"
	"os/exec"
)

func ownGroup(*exec.Cmd) {}

func killGroup(int) {}

// terminate cannot ask p to exit: there is no SIGTERM; p is killed.
func terminate(*os.Process) error { return errors.New("no SIGTERM") }
