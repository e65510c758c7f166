package tooling

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
)

// ProgramResult is what RunProgram reports of a program that ran.
type ProgramResult struct {
	// ExitCode is the program's exit status, -1 when a signal ended it.
	ExitCode int
	// Stdout and Stderr hold the first maxOutput bytes of each stream.
	Stdout, Stderr []byte
	// StdoutTruncated and StderrTruncated say that the stream was longer
	// and was cut.
	StdoutTruncated, StderrTruncated bool
}

// RunProgram runs the program at path with args, and is the only way a
// tool runs a program: tools never import os/exec. It refuses unless the
// call runs confined (in a child under landlock and seccomp, never in the
// host, and never in an unconfined run the config allows) and path is one
// of the tool's Meta.Confine.Exec, as given there. There is no shell: args
// reach the program as they are. The program runs in the workspace
// directory with an empty environment and no standard input; each of
// stdout and stderr is kept up to maxOutput bytes (at least 1), the rest
// counted as truncated. ctx ends the program (it is killed). A program
// that ran and exited, with whatever status, is a result, not an error; an
// error is a program that could not start (a denial by the sandbox is a
// permission error, reported as sandbox_denied) or ctx's error.
func (c Call) RunProgram(ctx context.Context, path string, args []string, maxOutput int) (ProgramResult, error) {
	if !c.confined {
		return ProgramResult{}, errors.New("tooling: programs run only in confined calls")
	}
	if !slices.Contains(c.programs, path) {
		return ProgramResult{}, fmt.Errorf("tooling: %s is not among the programs %s may run (Meta.Confine.Exec %v)", path, c.Tool, c.programs)
	}
	maxOutput = max(maxOutput, 1)
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{}
	cmd.Dir = c.Workspace
	stdout, stderr := &cappedBuffer{max: maxOutput}, &cappedBuffer{max: maxOutput}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	err := cmd.Run()
	res := ProgramResult{Stdout: stdout.buf, Stderr: stderr.buf, StdoutTruncated: stdout.cut, StderrTruncated: stderr.cut}
	if res.Stdout == nil {
		res.Stdout = []byte{}
	}
	if res.Stderr == nil {
		res.Stderr = []byte{}
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		res.ExitCode = cmd.ProcessState.ExitCode()
	case errors.As(err, &ee):
		res.ExitCode = ee.ExitCode()
	default:
		return res, err
	}
	return res, nil
}

// cappedBuffer keeps the first max bytes written to it and notes that more
// came; it never fails, so the program is never stopped by a full pipe.
type cappedBuffer struct {
	buf []byte
	max int
	cut bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - len(b.buf); room < len(p) {
		b.buf = append(b.buf, p[:max(room, 0)]...)
		b.cut = true
	} else {
		b.buf = append(b.buf, p...)
	}
	return len(p), nil
}
