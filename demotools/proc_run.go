package demotools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// procPrograms are the programs proc.run may start; its input schema lists
// the same.
var procPrograms = []string{"/bin/cat", "/bin/date", "/bin/echo", "/bin/ls", "/usr/bin/uname", "/usr/bin/wc"}

// maxProcOutput is how much of each of stdout and stderr proc.run returns.
const maxProcOutput = 16 << 10

var procRunInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Run-program arguments",
  "properties": {
    "command": {
      "type": "string",
      "title": "Command",
      "description": "The program to run, one of the allowed ones, by absolute path.",
      "enum": ["/bin/cat", "/bin/date", "/bin/echo", "/bin/ls", "/usr/bin/uname", "/usr/bin/wc"]
    },
    "args": {
      "type": "array",
      "title": "Arguments",
      "description": "The program's arguments, passed as they are (no shell: no globbing, quoting or variables).",
      "items": {
        "type": "string",
        "title": "Argument",
        "description": "One argument.",
        "maxLength": 4096
      },
      "maxItems": 32,
      "default": []
    }
  },
  "required": ["command"],
  "additionalProperties": false
}`)

var procRunOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "Run-program result",
  "properties": {
    "exit_code": {
      "type": "integer",
      "title": "Exit code",
      "description": "The program's exit status; -1 when a signal ended it.",
      "minimum": -1,
      "maximum": 255
    },
    "stdout": {
      "type": "string",
      "title": "Standard output",
      "description": "What the program wrote to stdout, at most 16 KiB of it."
    },
    "stderr": {
      "type": "string",
      "title": "Standard error",
      "description": "What the program wrote to stderr, at most 16 KiB of it."
    },
    "stdout_truncated": {
      "type": "boolean",
      "title": "Stdout truncated",
      "description": "True when stdout was longer than returned."
    },
    "stderr_truncated": {
      "type": "boolean",
      "title": "Stderr truncated",
      "description": "True when stderr was longer than returned."
    }
  },
  "required": ["exit_code", "stdout", "stderr", "stdout_truncated", "stderr_truncated"],
  "additionalProperties": false
}`)

type procRunArgs struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

type procRunResult struct {
	ExitCode        int    `json:"exit_code"`
	Stdout          string `json:"stdout"`
	Stderr          string `json:"stderr"`
	StdoutTruncated bool   `json:"stdout_truncated"`
	StderrTruncated bool   `json:"stderr_truncated"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:  "proc.run",
		Title: "Run program",
		Description: "Runs one of a few allowed programs (cat, date, echo, ls, uname, wc, by absolute path) with the given arguments, without a shell, in the workspace directory, " +
			"and returns its exit code and its stdout and stderr (each cut at 16 KiB), within 10 s. It starts a process, so every call needs consent. " +
			"It runs confined: the program can read the workspace and, as the dynamic loader needs them, the system library directories " +
			"(/lib, /lib64, /usr/lib, /usr/lib64, /usr/local/lib and /etc/ld.so.cache); it can write nothing outside its private temp dir.",
		Input:  procRunInput,
		Output: procRunOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.Exclusive,
			Effects:     tooling.EffectProcess,
			Timeout:     10 * time.Second,
			Tags:        []string{"demo", "proc", "confined"},
			Version:     "1.0.0",
			Confine:     &tooling.Confinement{Read: []string{"$WORKSPACE"}, Exec: procPrograms},
		},
		Run: runProcRun,
	})
}

func runProcRun(ctx context.Context, c tooling.Call) (any, error) {
	var a procRunArgs
	if err := c.Decode(&a); err != nil {
		return nil, err
	}
	if a.Args == nil {
		a.Args = []string{}
	}
	r, err := c.RunProgram(ctx, a.Command, a.Args, maxProcOutput)
	if err != nil {
		return nil, err
	}
	res := procRunResult{ExitCode: r.ExitCode, StdoutTruncated: r.StdoutTruncated, StderrTruncated: r.StderrTruncated}
	res.Stdout, _ = cutText(r.Stdout, maxProcOutput)
	res.Stderr, _ = cutText(r.Stderr, maxProcOutput)
	return res, nil
}
