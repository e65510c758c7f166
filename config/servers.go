package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Server says how to reach an MCP server whose tools join the registry:
// either a command to start (stdio) or the URL of a streamable HTTP
// endpoint, never both. It is the shape of one entry of the "mcpServers"
// object that MCP hosts keep in their configuration files, and converts
// to what package mcp connects to: mcp.Spec(s).
type Server struct {
	// Command is the program to start; the server speaks MCP on its stdin
	// and stdout. Empty for an HTTP server.
	Command string
	// Args are the program's arguments.
	Args []string
	// Env holds variables added to the program's environment.
	Env map[string]string
	// URL is the endpoint of a streamable HTTP server. Empty for a command.
	URL string
	// Headers are sent with every HTTP request (such as Authorization).
	Headers map[string]string
	// Confine, when not nil, starts a command's server confined (Linux):
	// it may read (read), write (write), connect to (ports) and start
	// (programs) only what Confine grants, its own program aside, under
	// limits (cpu_seconds, memory_bytes), as an unprivileged user when
	// toolexplorer runs as root.
	Confine *tooling.Confinement
}

// Serve configures the MCP listener of the serve command. MarshalJSON
// leaves it out: it holds a secret.
type Serve struct {
	// Token is the bearer token that clients of the HTTP listener must
	// send. "" for none: then only a loopback address may be served.
	Token string
	// Consent names the tools whose calls through the listener carry
	// consent.
	Consent []string
}

// hostFile drops the top-level keys the schema does not know from a file
// that has "mcpServers": such a file is an MCP host's (Claude Desktop,
// Cursor), which keeps its own settings beside the servers, and only the
// servers matter here.
func hostFile(cs *compiledSchema, root any) {
	obj, ok := root.(map[string]any)
	if !ok {
		return
	}
	if _, host := obj["mcpServers"]; !host {
		return
	}
	known := cs.knownKeys("#")
	for k := range obj {
		if k != "$schema" && !slices.Contains(known, k) {
			delete(obj, k)
		}
	}
}

func (p *problems) applyServe(obj map[string]any, cfg *Config) {
	s, ok := obj["serve"].(map[string]any)
	if !ok {
		return
	}
	cfg.Serve.Token, _ = s["token"].(string)
	cfg.Serve.Consent = stringList(s["consent"])
}

// applyServers reads the "servers" and "mcpServers" sections, which the
// schema checked entry by entry, and reports what only Go can tell: an
// entry with both or neither of command and url, a type that disagrees with
// them, a name given in both sections. An entry "disabled": true is left
// out; the keys other hosts keep beside it (autoApprove, alwaysAllow,
// timeout) are accepted and ignored.
func (p *problems) applyServers(obj map[string]any, cfg *Config) {
	for _, key := range []string{"servers", "mcpServers"} {
		section, _ := obj[key].(map[string]any)
		names := make([]string, 0, len(section))
		for name := range section {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			e, ok := section[name].(map[string]any)
			at := "/" + key + "/" + jsonpointer.Escape(name)
			if !ok || p.under(at) {
				continue
			}
			if _, dup := cfg.Servers[name]; dup {
				p.addKey(at, "server %q is in both servers and mcpServers: keep one", name)
				continue
			}
			if off, _ := e["disabled"].(bool); off {
				continue // the host's file says to leave it out
			}
			s := Server{Args: stringList(e["args"]), Env: stringMap(e["env"]), Headers: stringMap(e["headers"])}
			if c, ok := e["confine"].(map[string]any); ok {
				s.Confine = p.serverConfinement(c, at+"/confine")
			}
			s.Command, _ = e["command"].(string)
			s.URL, _ = e["url"].(string)
			typ, _ := e["type"].(string)
			switch {
			case s.Command != "" && s.URL != "":
				p.add(at, "gives both command and url: a server is either a command to start (stdio) or a URL (HTTP)")
				continue
			case s.Command == "" && s.URL == "":
				p.add(at, `gives neither command nor url: add "command" (with "args") for a stdio server or "url" for an HTTP server`)
				continue
			case s.Command != "" && (typ == "http" || typ == "streamable-http"):
				p.add(at+"/type", "is %q but the server has a command: use \"stdio\", or give a url", typ)
				continue
			case s.URL != "" && typ == "stdio":
				p.add(at+"/type", "is \"stdio\" but the server has a url: use \"http\", or give a command")
				continue
			case s.Command == "" && (len(s.Args) > 0 || len(s.Env) > 0):
				p.add(at, "args and env are for a command; an HTTP server takes headers")
				continue
			case s.URL == "" && len(s.Headers) > 0:
				p.add(at, "headers are for a url; a command takes args and env")
				continue
			case s.URL != "" && s.Confine != nil:
				p.add(at+"/confine", "confines a command's server: an HTTP server runs elsewhere")
				continue
			}
			if cfg.Servers == nil {
				cfg.Servers = map[string]Server{}
			}
			cfg.Servers[name] = s
		}
	}
}

// under reports whether a problem was recorded at path or below it.
func (p *problems) under(path string) bool {
	for _, e := range p.list {
		if e.Path == path || strings.HasPrefix(e.Path, path+"/") {
			return true
		}
	}
	return false
}

func serverNameMessage(s string) string {
	return fmt.Sprintf("%q is not a server name: a letter, then letters, digits, '_' or '-', like \"everything\" or \"my-server\"", s)
}

func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = s
		}
	}
	return out
}

// serverConfinement reads a server's confine object, which the schema
// checked.
func (p *problems) serverConfinement(c map[string]any, at string) *tooling.Confinement {
	sc := &tooling.Confinement{Read: stringList(c["read"]), Write: stringList(c["write"]), Exec: stringList(c["programs"])}
	ports, _ := c["ports"].([]any)
	for i, v := range ports {
		if n, ok := p.integerValue(v, fmt.Sprintf("%s/ports/%d", at, i), 17); ok {
			sc.ConnectTCP = append(sc.ConnectTCP, uint16(n))
		}
	}
	if n, ok := p.integer(c, "cpu_seconds", at+"/cpu_seconds", 63); ok {
		sc.Limits.CPUSeconds = int(n)
	}
	if n, ok := p.integer(c, "memory_bytes", at+"/memory_bytes", 63); ok {
		sc.Limits.MemoryBytes = n
	}
	for _, list := range [][]string{sc.Read, sc.Write, sc.Exec} {
		for _, path := range list {
			if !filepath.IsAbs(path) {
				p.add(at, "%q is not an absolute path", path)
			}
		}
	}
	return sc
}
