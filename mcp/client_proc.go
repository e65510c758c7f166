package mcp

import (
	"os/exec"
	"strings"
	"sync"

	"github.com/toolexplorer/toolexplorer/config"
)

// stderrTail is how much of a stdio server's stderr is kept.
const stderrTail = 4 << 10

// process is a stdio server's child process.
type process struct {
	cmd    *exec.Cmd
	stderr *tail
}

func newProcess(s config.Server) *process {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = environ(s.Env)
	p := &process{cmd: cmd, stderr: &tail{max: stderrTail}}
	cmd.Stderr = p.stderr
	ownGroup(cmd)
	return p
}

// kill kills whatever is left of the server's process group.
func (p *process) kill() {
	if p.cmd.Process != nil {
		killGroup(p.cmd.Process.Pid)
	}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
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
