package demotools_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

func TestProcRun(t *testing.T) {
	ws := confinedWorkspace(t)
	writeFile(t, filepath.Join(ws, "words.txt"), "one two three\n")
	consent := tooling.WithConsent()
	type result struct {
		ExitCode        int    `json:"exit_code"`
		Stdout          string `json:"stdout"`
		Stderr          string `json:"stderr"`
		StdoutTruncated bool   `json:"stdout_truncated"`
		StderrTruncated bool   `json:"stderr_truncated"`
	}
	run := func(t *testing.T, args string) result {
		t.Helper()
		res, _ := execute(t, "proc.run", args, codes.OK, consent)
		var got result
		decodeOutput(t, res, &got)
		return got
	}
	t.Run("echo", func(t *testing.T) {
		if got := run(t, `{"command":"/bin/echo","args":["hi"]}`); got != (result{Stdout: "hi\n"}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("no shell", func(t *testing.T) {
		if got := run(t, `{"command":"/bin/echo","args":["$HOME","*","a;b"]}`); got.Stdout != "$HOME * a;b\n" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("in the workspace", func(t *testing.T) {
		if got := run(t, `{"command":"/usr/bin/wc","args":["-w","words.txt"]}`); got.ExitCode != 0 || got.Stdout != "3 words.txt\n" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("exit status", func(t *testing.T) {
		got := run(t, `{"command":"/bin/ls","args":["no-such-file"]}`)
		if got.ExitCode == 0 || got.Stderr == "" {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("outside the workspace", func(t *testing.T) {
		got := run(t, `{"command":"/bin/cat","args":["/etc/hostname"]}`)
		if got.ExitCode == 0 || !strings.Contains(got.Stderr, "Permission denied") {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("truncated", func(t *testing.T) {
		args := `{"command":"/bin/echo","args":[` + strings.TrimSuffix(strings.Repeat(`"`+strings.Repeat("x", 1000)+`",`, 20), ",") + `]}`
		got := run(t, args)
		if len(got.Stdout) != 16<<10 || !got.StdoutTruncated || got.ExitCode != 0 {
			t.Errorf("%d bytes, truncated %v, exit %d", len(got.Stdout), got.StdoutTruncated, got.ExitCode)
		}
	})
	t.Run("without consent", func(t *testing.T) {
		execute(t, "proc.run", `{"command":"/bin/echo","args":["hi"]}`, codes.ConsentRequired)
	})
	for name, args := range map[string]string{
		"not allowed":      `{"command":"/bin/sh","args":["-c","echo hi"]}`,
		"relative":         `{"command":"echo"}`,
		"too many args":    `{"command":"/bin/echo","args":[` + strings.TrimSuffix(strings.Repeat(`"a",`, 33), ",") + `]}`,
		"arg not a string": `{"command":"/bin/echo","args":[1]}`,
	} {
		t.Run(name, func(t *testing.T) {
			execute(t, "proc.run", args, codes.ValidationError, consent)
		})
	}
}

// A confined tool that asks for a program its Meta does not list.
func init() {
	tooling.Register(tooling.Tool{Name: "demotest.run_unlisted", Description: "runs /bin/ls while allowed only /bin/echo",
		Meta: tooling.Meta{Concurrency: tooling.Exclusive, Effects: tooling.EffectProcess, Confine: &tooling.Confinement{Exec: []string{"/bin/echo"}}},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			return c.RunProgram(ctx, "/bin/ls", nil, 10)
		}})
}

func TestRunProgramUnlisted(t *testing.T) {
	confinedWorkspace(t)
	res, _ := execute(t, "demotest.run_unlisted", "", codes.ToolError, tooling.WithConsent())
	if !strings.Contains(res.Message, "not among the programs") {
		t.Errorf("message %q", res.Message)
	}
}

// TestRunProgramUnconfined checks that programs never run from a call
// that is not confined.
func TestRunProgramUnconfined(t *testing.T) {
	r := tooling.NewRegistry()
	err := r.Add(tooling.Tool{Name: "t.run", Description: "runs echo in the host process, which is refused",
		Meta: tooling.Meta{Concurrency: tooling.Exclusive, Effects: tooling.EffectProcess},
		Run: func(ctx context.Context, c tooling.Call) (any, error) {
			return c.RunProgram(ctx, "/bin/echo", []string{"hi"}, 10)
		}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(t.Context(), "t.run", nil, tooling.WithConsent())
	if !errors.Is(err, codes.ToolError) || !strings.Contains(err.Error(), "programs run only in confined calls") {
		t.Fatalf("err %v (%+v)", err, res)
	}
}
