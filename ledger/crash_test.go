package ledger_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/toolexplorer/toolexplorer/ledger"
	"github.com/toolexplorer/toolexplorer/tooling"
)

const writerEnv = "LEDGER_TEST_WRITER"

func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		writer(path)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// writer is the process the crash test kills: it starts a call that never
// ends, says "ready" once its begin is written, and goes on making calls.
func writer(path string) {
	l, err := ledger.Open(ledger.Options{Path: path, CheckpointEvery: 50})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := registry(nil)
	running := make(chan struct{})
	r.Register(tooling.Tool{Name: "t.hold", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Timeout: 1 << 40},
		Run: func(ctx context.Context, c tooling.Call) (any, error) { close(running); <-ctx.Done(); return nil, nil }})
	l.Attach(r)
	go r.Execute(context.Background(), "t.hold", nil, tooling.WithPrincipal(tooling.Principal{Subject: "held"}))
	<-running
	for i := 0; i < 200; i++ {
		r.Execute(context.Background(), "t.echo", nil)
	}
	if err := l.Sync(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ready")
	for {
		r.Execute(context.Background(), "t.echo", nil)
	}
}

// A writer killed with SIGKILL mid-stream leaves a ledger that verifies
// (or has only a torn last line), whose unfinished call reads interrupted;
// the next writer sets a torn line aside and goes on with an intact chain.
func TestKilledWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), writerEnv+"="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("the writer said %q, %v", line, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true

	rep := verify(t, path)
	if !rep.OK() && !strings.Contains(rep.Problem.Reason, "torn") {
		t.Fatalf("after kill -9: %v", rep.Problem)
	}
	if rep.Records < 400 {
		t.Fatalf("after kill -9: %d records, want the 400 written before ready at least", rep.Records)
	}
	held, err := ledger.Read(path, ledger.Filter{Tool: "t.hold"})
	if err != nil || len(held) != 1 || held[0].Status != "interrupted" || held[0].End != nil {
		t.Fatalf("the unfinished call: %+v, %v", held, err)
	}
	if es, _ := ledger.Read(path, ledger.Filter{Code: "interrupted"}); len(es) < 1 {
		t.Fatalf("filter interrupted: %+v", es)
	}

	l := open(t, "", ledger.Options{Path: path})
	r := registry(nil)
	l.Attach(r)
	for i := 0; i < 10; i++ {
		r.Execute(context.Background(), "t.fail", nil)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if rep := verify(t, path); !rep.OK() {
		t.Fatalf("after going on: %v", rep.Problem)
	}
	if es, _ := ledger.Read(path, ledger.Filter{Tool: "t.fail"}); len(es) != 10 {
		t.Fatalf("the calls after the crash: %d, want 10", len(es))
	}
}
