package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v5"

	"github.com/toolexplorer/toolexplorer/mcp"
)

// stableAfter is how long a server must have stayed up for its next stop
// to count as the first in a row again.
const stableAfter = time.Minute

// restartBackOff is the wait before each start of a server that stopped:
// half a second, then longer each time, up to 30 seconds.
var restartBackOff = func() backoff.BackOff {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval, b.MaxInterval = 500*time.Millisecond, 30*time.Second
	return b
}

// restartingError is the state of a server that stopped on its own and is
// being started again.
type restartingError struct {
	why           error
	attempt, most int
}

func (e *restartingError) Error() string {
	return fmt.Sprintf("it stopped (%v); starting it again (attempt %d of %d)", e.why, e.attempt, e.most)
}

// connectOptions are the options of every connection to a server.
func (a *app) connectOptions() []mcp.ConnectOption {
	return append([]mcp.ConnectOption{mcp.WithElicitation(a.elicit), mcp.WithConfigFile(a.configFile), mcp.WithToolsChanged(a.toolsChanged)}, a.consoleConnectOptions()...)
}

// toolsChanged tells whoever serves the registry (serve) that its tools
// changed: a server's tools went or came back, a reload.
func (a *app) toolsChanged() {
	if f := a.onToolsChanged.Load(); f != nil {
		(*f)()
	}
}

// serverLog says what happened to a server on stderr, when no console is
// open (the console shows its servers' states itself).
func (a *app) serverLog(format string, args ...any) {
	if a.consoleAsker() != nil {
		return
	}
	a.errorf(format, args...)
}

// supervise watches the connected server s and, when it stops on its own
// (it exited, or dropped the connection), removes its tools and connects
// it again, waiting longer each time (restartBackOff), up to its
// max_restarts in a row; then it gives up on the server, loudly. Its state
// meanwhile is s.err. closeServers and the console's restart stop it.
func (a *app) supervise(s *server) {
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	if a.serversClosed || s.remote == nil {
		return
	}
	if a.superviseCtx == nil {
		a.superviseCtx, a.superviseCancel = context.WithCancel(context.WithoutCancel(a.ctx))
	}
	ctx, cancel := context.WithCancel(a.superviseCtx)
	done := make(chan struct{})
	s.unsupervise = func() {
		cancel()
		<-done
	}
	a.supervisors.Add(1)
	go func() {
		defer a.supervisors.Done()
		defer close(done)
		defer cancel()
		a.superviseLoop(ctx, s)
	}()
}

func (a *app) superviseLoop(ctx context.Context, s *server) {
	most := s.cfg.MaxRestarts
	if most == 0 {
		most = mcp.DefaultMaxRestarts
	}
	b := restartBackOff()
	attempts := 0
	for {
		a.serversMu.Lock()
		r := s.remote
		a.serversMu.Unlock()
		if r == nil {
			return
		}
		up := time.Now()
		select {
		case <-r.Done():
		case <-ctx.Done():
			return
		}
		why := r.Err()
		if why == nil {
			return // closed
		}
		why = errors.New(strings.Replace(why.Error(), "; restart it to use its tools", "", 1))
		if time.Since(up) >= stableAfter {
			b.Reset()
			attempts = 0
		}
		// Its tools go while it is down: a client lists what it can call.
		a.serversMu.Lock()
		s.remote, s.err = nil, why
		a.serversMu.Unlock()
		_ = r.Close()
		a.toolsChanged()
		if most < 0 {
			a.serverLog("error: server %q stopped: %v; it is not started again (max_restarts 0): its tools are gone", s.name, why)
			return
		}
		for {
			if attempts == most {
				err := fmt.Errorf("gave up after %d restarts in a row; the last: %w", most, why)
				a.serversMu.Lock()
				s.err = err
				a.serversMu.Unlock()
				a.serverLog("error: server %q keeps stopping: %v; its tools are gone until it is restarted (SIGHUP, or R in the console)", s.name, err)
				return
			}
			attempts++
			wait := b.NextBackOff()
			a.serversMu.Lock()
			s.err = &restartingError{why: why, attempt: attempts, most: most}
			a.serversMu.Unlock()
			what := "stopped"
			if attempts > 1 {
				what = "could not be started again"
			}
			a.serverLog("server %q %s: %v; starting it again in %s (attempt %d of %d)", s.name, what, why, wait.Round(time.Millisecond), attempts, most)
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			nr, err := mcp.Connect(ctx, a.reg, s.name, s.spec, a.connectOptions()...)
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				var ce *mcp.ConnectError
				if errors.As(err, &ce) {
					err = ce.Err
				}
				why = err
				continue
			}
			a.serversMu.Lock()
			if ctx.Err() != nil { // closing, or the console restarts it
				a.serversMu.Unlock()
				_ = nr.Close()
				return
			}
			s.remote, s.err = nr, nil
			_, _ = a.reg.Configure(a.cfg.Settings) // accepted once already
			a.serversMu.Unlock()
			a.serverLog("server %q is back: %d tools", s.name, len(nr.Tools()))
			a.toolsChanged()
			break
		}
	}
}

// reviveServers starts again, at once, the servers that were given up on
// or are waiting to be started again (SIGHUP).
func (a *app) reviveServers() {
	a.serversMu.Lock()
	var down []*server
	for _, s := range a.servers {
		if s.remote == nil && !s.misconfigured {
			down = append(down, s)
		}
	}
	a.serversMu.Unlock()
	for _, s := range down {
		if s.unsupervise != nil {
			s.unsupervise()
		}
		r, err := mcp.Connect(a.ctx, a.reg, s.name, s.spec, a.connectOptions()...)
		a.serversMu.Lock()
		if err != nil || a.serversClosed {
			a.serversMu.Unlock()
			if err == nil {
				_ = r.Close()
				return
			}
			a.serverLog("server %q could not be started again: %v", s.name, err)
			continue
		}
		s.remote, s.err = r, nil
		_, _ = a.reg.Configure(a.cfg.Settings)
		a.serversMu.Unlock()
		a.serverLog("server %q is back: %d tools", s.name, len(r.Tools()))
		a.supervise(s)
		a.toolsChanged()
	}
}
