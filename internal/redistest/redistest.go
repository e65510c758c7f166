package redistest

import (
	"bufio"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Server is a redis-server a test started.
type Server struct {
	// Addr is its host:port on loopback.
	Addr string

	t   testing.TB
	dir string // its data directory, when it keeps an append-only file
	cmd *exec.Cmd
}

// Start starts a redis-server that keeps nothing on disk; it is killed
// when the test ends.
func Start(t testing.TB) *Server { return start(t, false) }

// StartDurable starts a redis-server that writes every change to an
// append-only file before it answers (appendfsync always), so that what
// it acknowledged survives a kill and a Start.
func StartDurable(t testing.TB) *Server { return start(t, true) }

func start(t testing.TB, durable bool) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("redis-server is not installed: CI must install it (see .ci/run)")
		}
		t.Skip("redis-server is not installed: install it (Debian: redis-server) to run the shared-state tests")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, Addr: ln.Addr().String()}
	ln.Close()
	if durable {
		s.dir = t.TempDir()
	}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// Start starts the server again after Stop, and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	_, port, _ := net.SplitHostPort(s.Addr)
	args := []string{"--port", port, "--bind", "127.0.0.1", "--save", ""}
	if s.dir != "" {
		args = append(args, "--dir", s.dir, "--appendonly", "yes", "--appendfsync", "always")
	} else {
		args = append(args, "--appendonly", "no")
	}
	s.cmd = exec.Command("redis-server", args...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !s.ping() {
		if time.Now().After(deadline) {
			s.t.Fatal("redis-server did not answer")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ping reports whether the server answers PING (once it has loaded its
// data: it answers LOADING before).
func (s *Server) ping() bool {
	c, err := net.DialTimeout("tcp", s.Addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.HasPrefix(line, "+PONG")
}

// Stop kills the server (SIGKILL: no chance to write anything more).
func (s *Server) Stop() {
	if s.cmd != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}
