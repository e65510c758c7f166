package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// A running serve listens on a control socket, a Unix socket of its own in
// the user's state directory (toolexplorer/control/serve-PID-RANDOM.sock,
// the directory 0700, the socket 0600: only the user who runs serve, and
// root, can connect), for the state command: one JSON request, one JSON
// answer, per connection. A socket rather than editing the config file and
// sending SIGHUP: the change needs no config file, leaves the user's file
// as it is, names who made it, and its answer says whether it took effect.

// controlRequest asks a running serve to change a tool's state.
type controlRequest struct {
	Tool        string            `json:"tool"`
	State       tooling.State     `json:"state"`
	Reason      string            `json:"reason,omitempty"`
	Replacement string            `json:"replacement,omitempty"`
	Principal   tooling.Principal `json:"principal"`
}

// controlAnswer is serve's answer: the tool's state now, or why not.
type controlAnswer struct {
	State tooling.State `json:"state,omitempty"`
	Error string        `json:"error,omitempty"`
}

// controlDir is the directory of the control sockets.
func (a *app) controlDir() (string, error) {
	dir := a.getenv("XDG_STATE_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home := a.getenv("HOME")
		if home == "" {
			return "", errors.New("no state directory: set XDG_STATE_HOME or HOME")
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "toolexplorer", "control"), nil
}

// listenControl makes serve answer the state command until stop is
// called. A socket that cannot be made is a warning: serve runs without.
func (a *app) listenControl() (stop func()) {
	dir, err := a.controlDir()
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err == nil {
		err = os.Chmod(dir, 0o700)
	}
	if err != nil {
		a.errorf("warning: no control socket, the state command cannot reach this serve: %v", err)
		return func() {}
	}
	path := filepath.Join(dir, "serve-"+strconv.Itoa(os.Getpid())+"-"+rand.Text()[:6]+".sock")
	ln, err := net.Listen("unix", path)
	if err == nil {
		err = os.Chmod(path, 0o600)
	}
	if err != nil {
		if ln != nil {
			ln.Close()
		}
		a.errorf("warning: no control socket, the state command cannot reach this serve: %v", err)
		return func() {}
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { a.answerControl(conn) })
		}
	})
	return func() {
		ln.Close() // removes the socket file
		wg.Wait()
	}
}

// answerControl reads one request from conn, applies it, and answers.
func (a *app) answerControl(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	var req controlRequest
	var ans controlAnswer
	line, err := bufio.NewReader(conn).ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err == nil {
		ctx := tooling.ContextWithPrincipal(context.WithoutCancel(a.ctx), req.Principal)
		err = a.reg.SetState(ctx, req.Tool, req.State, req.Reason, req.Replacement)
	}
	if err != nil {
		ans.Error = err.Error()
	} else {
		p, _ := a.reg.Policy(req.Tool)
		ans.State = p.State
		a.errorf("%s is now %s (state command, by %s)", req.Tool, p.State, req.Principal.Subject)
	}
	b, _ := json.Marshal(ans)
	_, _ = conn.Write(append(b, '\n'))
}

// sendControl sends req to the running serve: the one there is, or the one
// whose process id is pid (0: any).
func (a *app) sendControl(req controlRequest, pid int) (controlAnswer, error) {
	dir, err := a.controlDir()
	if err != nil {
		return controlAnswer{}, err
	}
	pattern := "serve-*.sock"
	if pid > 0 {
		pattern = "serve-" + strconv.Itoa(pid) + "-*.sock"
	}
	paths, _ := filepath.Glob(filepath.Join(dir, pattern))
	var conns []net.Conn
	for _, p := range paths {
		c, err := net.DialTimeout("unix", p, 5*time.Second)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || isRefused(err) {
				_ = os.Remove(p) // left by a serve that was killed
			}
			continue
		}
		conns = append(conns, c)
	}
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	switch {
	case len(conns) == 0 && pid > 0:
		return controlAnswer{}, fmt.Errorf("no serve with process id %d is running (under %s)", pid, dir)
	case len(conns) == 0:
		return controlAnswer{}, fmt.Errorf("no serve is running (under %s): start one with toolexplorer serve", dir)
	case len(conns) > 1:
		return controlAnswer{}, fmt.Errorf("%d serve processes are running: name one with --pid", len(conns))
	}
	c := conns[0]
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	b, _ := json.Marshal(req)
	if _, err := c.Write(append(b, '\n')); err != nil {
		return controlAnswer{}, fmt.Errorf("the serve did not take the request: %v", err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return controlAnswer{}, fmt.Errorf("the serve did not answer: %v", err)
	}
	var ans controlAnswer
	if err := json.Unmarshal(line, &ans); err != nil {
		return controlAnswer{}, fmt.Errorf("the serve's answer cannot be read: %v", err)
	}
	return ans, nil
}

// isRefused reports a socket nobody listens on any more.
func isRefused(err error) bool { return errors.Is(err, syscall.ECONNREFUSED) }
