package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// reloadConfigOnHangup reads the config file again on every SIGHUP while
// serve runs and applies its settings to the registry, so that tools
// paused, deprecated or enabled there change state (each change an event,
// which the served clients hear of as tools/list_changed); the list is
// refreshed for the other settings (whitelist, blacklist, disabled). A
// config that does not load changes nothing. stop ends the watch.
func (a *app) reloadConfigOnHangup(srv *mcp.Server) (stop func()) {
	if a.configFile == "" {
		return func() {}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-c:
				a.reloadConfig(srv)
			}
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
		<-stopped
	}
}

// reloadConfig applies the config file's settings again and says which
// tools changed state.
func (a *app) reloadConfig(srv *mcp.Server) {
	cfg, err := config.Load(a.configFile)
	if err != nil {
		a.errorf("config not reloaded, the settings in place stay: %v", err)
		return
	}
	before := a.states()
	if _, err := a.reg.Configure(cfg.Settings); err != nil {
		a.errorf("config not reloaded, the settings in place stay: %v", err)
		return
	}
	a.cfg.Settings = cfg.Settings
	changed := 0
	for name, st := range a.states() {
		if before[name] != st {
			changed++
			a.errorf("%s is now %s", name, st)
		}
	}
	srv.Refresh(context.Background())
	a.errorf("config reloaded from %s: %d tools changed state", a.configFile, changed)
}

// states is every tool's state now.
func (a *app) states() map[string]tooling.State {
	out := map[string]tooling.State{}
	for _, t := range a.reg.List(context.Background(), tooling.Filter{}) {
		if p, err := a.reg.Policy(t.Name); err == nil {
			out[t.Name] = p.State
		}
	}
	return out
}
