//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that stopping the
// server also stops what it started (npx starts node, for instance) and a
// terminal's Ctrl-C reaches toolexplorer, not the server.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killGroup kills every process left in the group pid leads.
func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

// terminate asks p to exit.
func terminate(p *os.Process) error { return p.Signal(syscall.SIGTERM) }
