package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// stderrTail is how much of a stdio server's stderr is kept.
const stderrTail = 4 << 10

// stdoutHead is how much of the start of a stdio server's stdout is kept,
// to show what a program that is not an MCP server wrote.
const stdoutHead = 512

// process is a stdio server's child process.
type process struct {
	cmd    *exec.Cmd
	stderr *tail
	stdout *head

	out     *os.File      // the read end of its stdout, once started
	read    chan struct{} // closed once something, or the end, was read from its stdout
	readSet sync.Once

	mu     sync.Mutex
	waited bool
	exit   error // what cmd.Wait returned, once waited
}

func newProcess(s Spec) *process {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = environ(s.Env, s.InheritEnv)
	cmd.Dir = s.Dir
	p := &process{cmd: cmd, stderr: &tail{max: stderrTail}, stdout: &head{max: stdoutHead}, read: make(chan struct{})}
	cmd.Stderr = p.stderr
	ownGroup(cmd)
	return p
}

// kill kills whatever is left of the server's process group and closes
// its stdout.
func (p *process) kill() {
	if p.cmd.Process != nil {
		killGroup(p.cmd.Process.Pid)
	}
	if p.out != nil {
		p.out.Close()
	}
}

// drained waits until the start of what the server wrote on its stdout
// before it exited, or its end, has been read, so that p.stdout holds it,
// or until ctx is done (a process it started may hold its stdout open).
func (p *process) drained(ctx context.Context) {
	select {
	case <-p.read:
	default:
		select {
		case <-p.read:
		case <-ctx.Done():
		}
	}
}

// Read reads the server's stdout, keeping its start.
func (p *process) Read(b []byte) (int, error) {
	n, err := p.out.Read(b)
	if n > 0 {
		_, _ = p.stdout.Write(b[:n])
	}
	if n > 0 || err != nil {
		p.readSet.Do(func() { close(p.read) })
	}
	return n, err
}

// started reports whether the server's program could be started.
func (p *process) started() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.Process != nil
}

// exited returns what the server's exit was (an *exec.ExitError, or nil
// for status 0) and whether it has been waited for.
func (p *process) exited() (error, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.exit, p.waited
}

// Connect starts the server as sdk.CommandTransport does (closing the
// connection closes its stdin, then it has terminateGrace to exit before
// SIGTERM, then SIGKILL), and keeps the start of its stdout and its exit,
// which say why a program is not an MCP server. Its stdout is a pipe of
// its own, which cmd.Wait does not close: what a server wrote before it
// exited can still be read (kill closes it).
func (p *process) Connect(ctx context.Context) (sdk.Connection, error) {
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p.cmd.Stdout = w
	stdin, err := p.cmd.StdinPipe()
	if err != nil {
		out.Close()
		w.Close()
		return nil, err
	}
	p.mu.Lock()
	err = p.cmd.Start()
	p.mu.Unlock()
	w.Close() // the server has its own copy
	if err != nil {
		out.Close()
		return nil, err
	}
	p.out = out
	t := &sdk.IOTransport{Reader: io.NopCloser(p), Writer: &stdinCloser{p, stdin}}
	return t.Connect(ctx)
}

// stdinCloser is a server's stdin; closing it stops the server.
type stdinCloser struct {
	p     *process
	stdin io.WriteCloser
}

func (s *stdinCloser) Write(b []byte) (int, error) { return s.stdin.Write(b) }

// Close closes the server's stdin and waits for it to exit, sending it
// SIGTERM after terminateGrace, then SIGKILL. It returns what cmd.Wait
// returned.
func (s *stdinCloser) Close() error {
	if err := s.stdin.Close(); err != nil {
		return fmt.Errorf("closing stdin: %w", err)
	}
	done := make(chan error, 1)
	go func() {
		err := s.p.cmd.Wait()
		s.p.mu.Lock()
		s.p.exit, s.p.waited = err, true
		s.p.mu.Unlock()
		done <- err
	}()
	wait := func() (error, bool) {
		t := time.NewTimer(terminateGrace)
		defer t.Stop()
		select {
		case err := <-done:
			return err, true
		case <-t.C:
			return nil, false
		}
	}
	if err, ok := wait(); ok {
		return err
	}
	if terminate(s.p.cmd.Process) == nil {
		if err, ok := wait(); ok {
			return err
		}
	}
	// The server may have exited while what it started still holds its
	// stderr open, which Wait waits for: its process group goes too.
	if err := s.p.cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	killGroup(s.p.cmd.Process.Pid)
	if err, ok := wait(); ok {
		return err
	}
	return errors.New("the server does not exit, even killed")
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu    sync.Mutex
	max   int
	b     []byte
	lines *lineSplitter // gets each line written, when set (onLines)
}

// onLines has f called with each line written from now on.
func (t *tail) onLines(f func(string)) {
	if f == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = &lineSplitter{f: f}
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lines != nil {
		t.lines.write(p)
	}
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// String returns the kept text, trimmed, from its first whole line when
// the start was cut.
func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := string(t.b)
	if len(t.b) == t.max {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return strings.TrimSpace(s)
}

// head keeps the first max bytes written to it.
type head struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (h *head) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := h.max - len(h.b); n > 0 {
		h.b = append(h.b, p[:min(n, len(p))]...)
	}
	return len(p), nil
}

func (h *head) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return string(h.b)
}

// headReader reads r, keeping the start of what it reads in h, and closes
// read once something, or the end, was read.
type headReader struct {
	r    io.Reader
	h    *head
	read chan struct{}
	once sync.Once
}

func newHeadReader(r io.Reader) *headReader {
	return &headReader{r: r, h: &head{max: stdoutHead}, read: make(chan struct{})}
}

func (hr *headReader) Read(b []byte) (int, error) {
	n, err := hr.r.Read(b)
	if n > 0 {
		_, _ = hr.h.Write(b[:n])
	}
	if n > 0 || err != nil {
		hr.once.Do(func() { close(hr.read) })
	}
	return n, err
}

// wait waits until something or the end was read, or ctx is done.
func (hr *headReader) wait(ctx context.Context) {
	select {
	case <-hr.read:
	case <-ctx.Done():
	}
}
