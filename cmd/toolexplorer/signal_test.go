//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const signalChildEnv = "TOOLEXPLORER_TEST_SIGNAL_CHILD"

// TestSecondInterruptKills runs a process that, once signalContext's
// context is canceled, goes on with a step that does not heed it: the first
// SIGINT cancels the context, the second ends the process the default way.
func TestSecondInterruptKills(t *testing.T) {
	if os.Getenv(signalChildEnv) == "1" {
		signalChild()
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSecondInterruptKills$")
	cmd.Env = append(os.Environ(), signalChildEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	lines := bufio.NewScanner(out)
	await := func(want string) {
		t.Helper()
		for lines.Scan() {
			if lines.Text() == want {
				return
			}
		}
		cmd.Process.Kill()
		t.Fatalf("the child ended before it said %q: %v", want, cmd.Wait())
	}
	await("ready")
	cmd.Process.Signal(os.Interrupt)
	await("canceled")
	cmd.Process.Signal(os.Interrupt)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		var exitErr *exec.ExitError
		if !errors.As(err, &exitErr) {
			t.Fatalf("the child ended with %v, want killed by SIGINT", err)
		}
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Errorf("the child ended with %v, want killed by SIGINT", err)
		}
	case <-time.After(2 * time.Minute): // a hang guard
		cmd.Process.Kill()
		<-waited
		t.Fatal("the second SIGINT did not end the child: it is still caught")
	}
}

// signalChild is the process TestSecondInterruptKills signals.
func signalChild() {
	ctx, stop := signalContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Println("ready")
	<-ctx.Done()
	fmt.Println("canceled")
	time.Sleep(time.Minute) // a step that does not heed the context
	os.Exit(0)
}

// TestArgsFileFIFOInterrupted: an arguments file that is a FIFO nobody
// writes to blocks even its opening; Ctrl-C still ends run at once.
func TestArgsFileFIFOInterrupted(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "args.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("cannot make a FIFO:", err)
	}
	// Let the read still waiting in the background end.
	defer func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}()
	before := echoCalls()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(50*time.Millisecond, cancel)
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"run", "demo.echo", "--args-file", fifo}, strings.NewReader(""), &stdout, &stderr)
	}()
	select {
	case code := <-done:
		if code != exitRefused || !strings.Contains(stderr.String(), "run: interrupted while reading the arguments file: no call was made") {
			t.Errorf("exit %d, want %d and no call\n%s", code, exitRefused, outcome{code, stdout.String(), stderr.String()})
		}
	case <-time.After(2 * time.Minute): // a hang guard
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatal("still opening the arguments file 2m after the interrupt")
	}
	if n := echoCalls() - before; n != 0 {
		t.Errorf("%d calls of demo.echo were made, want none", n)
	}
}
