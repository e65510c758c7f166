package mcp

import "github.com/toolexplorer/toolexplorer/tooling"

// Spec says how to reach an MCP server whose tools join a registry: either
// a command to start (stdio) or the URL of a streamable HTTP endpoint, never
// both. It is the shape of one entry of the "mcpServers" object that MCP
// hosts keep in their configuration files, its variables expanded; package
// config reads such entries as config.Server.
type Spec struct {
	// Command is the program to start; the server speaks MCP on its stdin
	// and stdout. Empty for an HTTP server.
	Command string
	// Args are the program's arguments.
	Args []string
	// Env holds variables added to the program's environment.
	Env map[string]string
	// InheritEnv gives the program the whole of the host's environment.
	// False: only HOME, LOGNAME, PATH, SHELL, TERM, USER and the locale
	// (LANG, LANGUAGE, LC_*), as MCP hosts do, besides Env, so that the
	// credentials in the host's environment stay there. A confined server
	// gets Env alone.
	InheritEnv bool
	// URL is the endpoint of a streamable HTTP server. Empty for a command.
	URL string
	// Headers are sent with every HTTP request (such as Authorization).
	Headers map[string]string
	// OAuth, when not nil, signs in to a URL's server with OAuth 2.1 when
	// it refuses a request (401): see OAuthClient.
	OAuth *OAuthClient
	// Confine, when not nil, starts a command's server confined (Linux):
	// it may read, write, connect to and start only what Confine grants
	// (Read, Write, ConnectTCP, BindTCP, Exec: its own program is always
	// granted), under Confine.Limits, as an unprivileged user when the
	// host runs as root. Confine.Env and Reuse do not apply to a server:
	// its environment is Env, and it serves one connection.
	Confine *tooling.Confinement
	// MaxRestarts is how many times in a row a server that stopped is
	// started (or reached) again before it is given up on, by the host
	// that supervises it (toolexplorer's commands); Connect connects once.
	// Zero: 5. Negative: never.
	MaxRestarts int
	// Concurrency is how many calls the server is sent at once; the others
	// wait for one to end. Zero: 8.
	Concurrency int
	// Exclusive sends the server one call at a time, whatever Concurrency
	// says, for a server that cannot take calls that overlap.
	Exclusive bool
	// Dir is the working directory of an unconfined command. "" for the
	// host's.
	Dir string
}

// DefaultConcurrency is how many calls a server is sent at once when its
// Spec does not say.
const DefaultConcurrency = 8

// DefaultMaxRestarts is how many times in a row a server that stopped is
// started again when its Spec does not say.
const DefaultMaxRestarts = 5

// parallel is how many calls the server is sent at once.
func (s Spec) parallel() int {
	switch {
	case s.Exclusive:
		return 1
	case s.Concurrency > 0:
		return s.Concurrency
	}
	return DefaultConcurrency
}
