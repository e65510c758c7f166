package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tui"
)

// consoleServers shows the app's MCP servers to the console, restarts
// them, and tells it of each one that stops on its own.
type consoleServers struct {
	a       *app
	stopped chan string
}

var _ tui.Servers = (*consoleServers)(nil)

// newConsoleServers watches the connected servers; nil when there are
// none to show.
func newConsoleServers(a *app) *consoleServers {
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	if len(a.servers) == 0 {
		return nil
	}
	cs := &consoleServers{a: a, stopped: make(chan string, len(a.servers))}
	for _, s := range a.servers {
		cs.watch(s.name, s.remote)
	}
	return cs
}

// watch sends name on stopped when r ends with an error, that is without
// Close.
func (cs *consoleServers) watch(name string, r *mcp.Remote) {
	if r == nil {
		return
	}
	go func() {
		<-r.Done()
		if r.Err() != nil {
			select {
			case cs.stopped <- name:
			default: // the console has not read the last ones: it lists the servers anyway
			}
		}
	}()
}

func (cs *consoleServers) Stopped() <-chan string { return cs.stopped }

func (cs *consoleServers) List() []tui.ServerState {
	cs.a.serversMu.Lock()
	defer cs.a.serversMu.Unlock()
	out := make([]tui.ServerState, 0, len(cs.a.servers))
	for _, s := range cs.a.servers {
		st := tui.ServerState{Name: s.name, Target: s.target(), Status: tui.ServerConnected, Confinement: confinementText(s.cfg.Confine)}
		if s.cfg.URL != "" {
			st.Confinement = "not applicable: toolexplorer reaches the server over HTTP and does not run it"
		}
		switch {
		case s.remote == nil:
			st.Status = tui.ServerFailed
			if ce := (*mcp.ConnectError)(nil); !errors.As(s.err, &ce) && !s.misconfigured {
				st.Status = tui.ServerStopped // it was connected: it stopped since
			}
			st.Problem = strings.TrimPrefix(s.err.Error(), "mcp: ")
			var ce *mcp.ConnectError
			if errors.As(s.err, &ce) {
				st.Stderr = ce.Stderr
				st.Problem = ce.Err.Error()
			}
		case s.remote.Err() != nil:
			st.Status = tui.ServerStopped
			st.Problem = s.remote.Err().Error()
		}
		if s.remote != nil {
			st.Stderr = s.remote.Stderr()
			if st.Status == tui.ServerStopped {
				// The problem holds the stderr already.
				st.Problem, _, _ = strings.Cut(st.Problem, "; its stderr ends with: ")
			}
			for _, t := range s.remote.Tools() {
				st.Tools = append(st.Tools, t.Name)
			}
			for _, err := range s.remote.Skipped() {
				if remote, why, ok := leftOut(s.name, err); ok {
					st.LeftOut = append(st.LeftOut, fmt.Sprintf("%q: %s", remote, why))
				}
			}
		}
		if ue := (*undefinedError)(nil); s.remote == nil && errors.As(s.err, &ue) && ue.onlyInputs() {
			st.Problem += " (or restart it here to enter them)"
		}
		out = append(out, st)
	}
	return out
}

// Restart stops the named server, if it runs, and connects it again; the
// config is applied again to its tools (overrides, lists).
func (cs *consoleServers) Restart(ctx context.Context, name string) error {
	a := cs.a
	a.serversMu.Lock()
	var s *server
	for _, x := range a.servers {
		if x.name == name {
			s = x
		}
	}
	if a.serversClosed {
		a.serversMu.Unlock()
		return errors.New("the console is closing")
	}
	if s == nil {
		a.serversMu.Unlock()
		return errors.New("no such server")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if a.restartCancel == nil {
		a.restartCancel = map[*server]context.CancelFunc{}
	}
	a.restartCancel[s] = cancel
	a.restarts.Add(1)
	defer a.restarts.Done()
	defer func() {
		a.serversMu.Lock()
		delete(a.restartCancel, s)
		a.serversMu.Unlock()
	}()
	unsupervise := s.unsupervise
	var ue *undefinedError
	needsInputs := s.remote == nil && errors.As(s.err, &ue) && ue.onlyInputs()
	a.serversMu.Unlock()
	if needsInputs {
		// Its config asks for inputs (VS Code's): the person enters them.
		ask := a.consoleAsker()
		if ask == nil {
			return s.err
		}
		if ok, err := a.askInputs(ctx, ask, name, ue.inputs); err != nil || !ok {
			if err == nil {
				err = errors.New("the inputs it needs were not given")
			}
			return err
		}
		spec, err := a.serverSpec(name, s.cfg)
		a.serversMu.Lock()
		if err != nil {
			s.err = err
			a.serversMu.Unlock()
			return err
		}
		s.spec, s.misconfigured = spec, false
		a.serversMu.Unlock()
	}
	if unsupervise != nil {
		unsupervise() // it would start the server too
	}
	a.serversMu.Lock()
	old := s.remote
	s.remote, s.err = nil, errors.New("restarting")
	a.serversMu.Unlock()
	if old != nil {
		_ = old.Close() // a server that died may say how: its state is replaced anyway
	}
	a.toolsChanged()
	// Connecting takes time: the console lists the servers meanwhile.
	r, err := mcp.Connect(ctx, a.reg, name, s.spec, a.connectOptions()...)
	a.serversMu.Lock()
	defer a.serversMu.Unlock()
	if err != nil {
		s.err = err
		var ce *mcp.ConnectError
		if errors.As(err, &ce) { // the screen names the server and shows its stderr
			return ce.Err
		}
		return err
	}
	if !slices.Contains(a.servers, s) { // the servers were closed meanwhile
		_ = r.Close()
		return errors.New("the console is closing")
	}
	s.remote, s.err = r, nil
	cs.watch(name, r)
	_, err = a.reg.Configure(a.cfg.Settings)
	a.serversMu.Unlock()
	a.supervise(s)
	a.toolsChanged()
	a.serversMu.Lock() // for the deferred unlock
	return err
}
