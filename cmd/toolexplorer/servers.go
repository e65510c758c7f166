package main

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/mcp"
)

// namedServer is one MCP server to connect, as --server or the config
// names it.
type namedServer struct {
	name   string
	server config.Server
}

// serverFlag collects the repeatable --server NAME=COMMAND... and
// --server NAME=URL.
type serverFlag struct{ list *[]namedServer }

func (f serverFlag) String() string { return "" }

func (f serverFlag) Get() any { return *f.list }

func (f serverFlag) Set(v string) error {
	s, err := parseServerFlag(v)
	if err != nil {
		return err
	}
	*f.list = append(*f.list, s)
	return nil
}

// parseServerFlag reads NAME=URL (http or https) or NAME=COMMAND ARGS...,
// the command's words separated by spaces.
func parseServerFlag(v string) (namedServer, error) {
	name, spec, ok := strings.Cut(v, "=")
	spec = strings.TrimSpace(spec)
	if !ok || strings.TrimSpace(name) == "" || spec == "" {
		return namedServer{}, errors.New(`want NAME=COMMAND or NAME=URL, like everything="npx -y @modelcontextprotocol/server-everything"`)
	}
	name = strings.TrimSpace(name)
	if strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://") {
		return namedServer{name, config.Server{URL: spec}}, nil
	}
	words := strings.Fields(spec)
	return namedServer{name, config.Server{Command: words[0], Args: words[1:]}}, nil
}

// connectServers connects the servers of the config and of --server (which
// wins for a name both give) and adds their tools to the registry. A server
// that cannot be connected, or a tool of it the registry refuses, is a
// warning, kept in serverProblems for the console; the other servers and
// tools are added.
func (a *app) connectServers(cfg config.Config) {
	byName := map[string]config.Server{}
	for name, s := range cfg.Servers {
		byName[name] = s
	}
	for _, s := range a.flagServers {
		byName[s.name] = s.server
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		r, err := mcp.Connect(a.ctx, a.reg, name, byName[name])
		if err != nil {
			a.serverProblem(err)
			continue
		}
		a.remotes = append(a.remotes, r)
		for _, err := range r.Skipped() {
			a.serverProblem(err)
		}
	}
}

func (a *app) serverProblem(err error) {
	msg := strings.TrimPrefix(err.Error(), "mcp: ")
	a.serverProblems = append(a.serverProblems, msg)
	fmt.Fprintf(a.stderr, "toolexplorer: warning: %s\n", msg)
}

// closeServers removes the servers' tools and stops the servers.
func (a *app) closeServers() {
	for _, r := range a.remotes {
		if err := r.Close(); err != nil {
			a.errorf("server %q: stopping it: %v", r.Name(), err)
		}
	}
	a.remotes = nil
}

// remoteOf says where the tool name comes from when it is a server's; nil
// for a local tool.
func (a *app) remoteOf(name string) *remoteInfo {
	for _, r := range a.remotes {
		for _, t := range r.Tools() {
			if t.Name == name {
				return &remoteInfo{Server: r.Name(), Name: t.Remote}
			}
		}
	}
	return nil
}
