package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Server says how to reach an MCP server whose tools join the registry:
// either a command to start (stdio) or the URL of a streamable HTTP
// endpoint, never both. It is the shape of one entry of the "mcpServers"
// object that MCP hosts keep in their configuration files, as written:
// its variables (${env:NAME}, ${input:ID}) are expanded by the program
// that connects it, into an mcp.Spec.
type Server struct {
	// Command is the program to start; the server speaks MCP on its stdin
	// and stdout. Empty for an HTTP server.
	Command string
	// Args are the program's arguments.
	Args []string
	// Env holds variables added to the program's environment.
	Env map[string]string
	// InheritEnv gives the program the whole of toolexplorer's environment
	// ("inherit_env"). False: only HOME, LOGNAME, PATH, SHELL, TERM, USER
	// and the locale (LANG, LANGUAGE, LC_*), as MCP hosts do, besides Env;
	// the credentials meant for tools files stay here. A confined server
	// gets Env alone.
	InheritEnv bool
	// URL is the endpoint of a streamable HTTP server. Empty for a command.
	URL string
	// Headers are sent with every HTTP request (such as Authorization).
	Headers map[string]string
	// OAuth, when not nil, signs in to a URL's server with OAuth 2.1
	// ("oauth"). Nil for none.
	OAuth *ServerOAuth
	// Confine, when not nil, starts a command's server confined (Linux):
	// it may read (read), write (write), connect to (ports) and start
	// (programs) only what Confine grants, its own program aside, under
	// limits (cpu_seconds, memory_bytes), as an unprivileged user when
	// toolexplorer runs as root.
	Confine *tooling.Confinement
	// MaxRestarts is how many times in a row a server that stopped is
	// started (or reached) again before it is given up on
	// ("max_restarts"). Zero: 5. Negative: never ("max_restarts": 0).
	MaxRestarts int
	// Concurrency is how many calls the server is sent at once
	// ("concurrency"). Zero: 8.
	Concurrency int
	// Exclusive sends the server one call at a time ("exclusive").
	Exclusive bool
	// Dir is the working directory of a command ("cwd"), relative to the
	// config file. "" for toolexplorer's.
	Dir string
	// EnvFile is a file of NAME=VALUE lines added to a command's
	// environment, under Env ("envFile"), relative to the config file.
	// "" for none.
	EnvFile string
}

// ServerOAuth says how to sign in to an MCP server that requires OAuth
// ("oauth" in a server's entry; {} for the defaults).
type ServerOAuth struct {
	// ClientID is a client registered beforehand ("client_id"); "" to
	// register one at sign-in.
	ClientID string
	// ClientSecret is ClientID's secret ("client_secret"); "" for a public
	// client.
	ClientSecret string
	// ClientMetadataURL is the https URL of a client ID metadata document
	// ("client_metadata_url"). "" for none.
	ClientMetadataURL string
	// Scopes are the scopes asked for. Nil: those the server names.
	Scopes []string
	// Device signs in with the device flow ("device").
	Device bool
	// RedirectPort is the loopback port of the browser's return
	// ("redirect_port"). Zero: a free port.
	RedirectPort int
}

// Serve configures the MCP listener of the serve command. MarshalJSON
// leaves it out: it holds a secret.
type Serve struct {
	// Token is the bearer token that clients of the HTTP listener must
	// send. "" for none: then only a loopback address may be served.
	Token string
	// APIKeys are the keys clients of the HTTP listener may send as bearer
	// tokens, by name, each with who calls with it. Nil when none.
	APIKeys map[string]APIKey
	// OAuth, when not nil, makes the HTTP listener accept OAuth access
	// tokens of an authorization server.
	OAuth *OAuth
	// Consent names the tools whose calls through the listener carry
	// consent.
	Consent []string
	// Tools are the patterns of the tools served ("tools"). Nil: every
	// tool, or, when there are servers, theirs and the tools files' (not
	// the program's own).
	Tools []string
	// MaxSessions bounds the sessions of the HTTP listener open at once
	// ("max_sessions"). Zero: the listener's default (100).
	MaxSessions int
	// IdleTimeout ends an HTTP session whose client sent no request for
	// that long ("idle_timeout"). Zero: the listener's default (30m).
	IdleTimeout time.Duration
	// Stateless serves each HTTP request on its own, with no session
	// (mcp.HTTPOptions.Stateless), so that replicas behind a balancer
	// need no affinity ("stateless"). Default false.
	Stateless bool
}

// APIKey is an API key of the HTTP listener: its digest, never the key,
// and the principal that calls with it.
type APIKey struct {
	// SHA256 is the SHA-256 digest of the key, 64 hex digits
	// ('toolexplorer apikey' makes a key and its digest).
	SHA256 string
	// Subject is who calls with the key. Default: the key's name.
	Subject string
	// Tenant and Roles are the caller's tenant and roles. Zero: none.
	Tenant string
	Roles  []string
}

// OAuth makes the HTTP listener an OAuth resource server: it accepts
// access tokens (JWTs) that Issuer signed for Resource.
type OAuth struct {
	// Issuer is the authorization server's issuer URL (a token's iss).
	Issuer string
	// Resource is the listener's canonical URL, which a token's aud must
	// name.
	Resource string
	// JWKSURL is where the issuer's keys are. "" for the jwks_uri of the
	// issuer's metadata.
	JWKSURL string
	// Scopes are the scopes every token must hold. Nil when none.
	Scopes []string
	// SubjectClaim, TenantClaim and RolesClaim name the claims of the
	// principal's subject (default "sub"), tenant and roles (default none);
	// a dotted name reaches into an object.
	SubjectClaim, TenantClaim, RolesClaim string
	// Leeway is the clock skew allowed on a token's times. 0 for the
	// default, 30s.
	Leeway time.Duration
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

// applyInputs reads VS Code's inputs: the values ${input:ID} asks for.
func (p *problems) applyInputs(obj map[string]any, cfg *Config) {
	list, _ := obj["inputs"].([]any)
	for _, v := range list {
		in, _ := v.(map[string]any)
		id, _ := in["id"].(string)
		if id == "" {
			continue
		}
		if cfg.Inputs == nil {
			cfg.Inputs = map[string]Input{}
		}
		var x Input
		x.Description, _ = in["description"].(string)
		x.Password, _ = in["password"].(bool)
		cfg.Inputs[id] = x
	}
}

func (p *problems) applyServe(obj map[string]any, cfg *Config) {
	s, ok := obj["serve"].(map[string]any)
	if !ok {
		return
	}
	cfg.Serve.Token, _ = s["token"].(string)
	cfg.Serve.Consent = stringList(s["consent"])
	cfg.Serve.Tools = stringList(s["tools"])
	if n, ok := p.integer(s, "max_sessions", "/serve/max_sessions", strconv.IntSize); ok {
		cfg.Serve.MaxSessions = int(n)
	}
	if d, ok := p.duration(s, "idle_timeout", "/serve/idle_timeout"); ok {
		cfg.Serve.IdleTimeout = d
	}
	cfg.Serve.Stateless, _ = s["stateless"].(bool)
	keys, _ := s["api_keys"].(map[string]any)
	for name, v := range keys {
		e, _ := v.(map[string]any)
		k := APIKey{Roles: stringList(e["roles"])}
		k.SHA256, _ = e["sha256"].(string)
		k.Subject, _ = e["subject"].(string)
		k.Tenant, _ = e["tenant"].(string)
		if k.Subject == "" {
			k.Subject = name
		}
		if cfg.Serve.APIKeys == nil {
			cfg.Serve.APIKeys = map[string]APIKey{}
		}
		cfg.Serve.APIKeys[name] = k
	}
	if o, ok := s["oauth"].(map[string]any); ok {
		cfg.Serve.OAuth = p.oauth(o, "/serve/oauth")
	}
}

// oauth reads serve.oauth, which the schema checked.
func (p *problems) oauth(o map[string]any, at string) *OAuth {
	out := &OAuth{Scopes: stringList(o["scopes"])}
	out.Issuer, _ = o["issuer"].(string)
	out.Resource, _ = o["resource"].(string)
	out.JWKSURL, _ = o["jwks_url"].(string)
	out.SubjectClaim, _ = o["subject_claim"].(string)
	out.TenantClaim, _ = o["tenant_claim"].(string)
	out.RolesClaim, _ = o["roles_claim"].(string)
	if d, ok := p.duration(o, "leeway", at+"/leeway"); ok {
		out.Leeway = d
	}
	if u, err := url.Parse(out.Resource); err == nil && u.Fragment != "" {
		p.add(at+"/resource", "%q has a fragment: a resource URI has none", out.Resource)
	}
	return out
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
			s.InheritEnv, _ = e["inherit_env"].(bool)
			s.Exclusive, _ = e["exclusive"].(bool)
			if n, ok := p.integer(e, "max_restarts", at+"/max_restarts", strconv.IntSize); ok {
				s.MaxRestarts = int(n)
				if n == 0 {
					s.MaxRestarts = -1 // never
				}
			}
			if n, ok := p.integer(e, "concurrency", at+"/concurrency", strconv.IntSize); ok {
				s.Concurrency = int(n)
			}
			if c, ok := e["confine"].(map[string]any); ok {
				s.Confine = p.serverConfinement(c, at+"/confine")
			}
			if o, ok := e["oauth"].(map[string]any); ok {
				s.OAuth = &ServerOAuth{Scopes: stringList(o["scopes"])}
				s.OAuth.ClientID, _ = o["client_id"].(string)
				s.OAuth.ClientSecret, _ = o["client_secret"].(string)
				s.OAuth.ClientMetadataURL, _ = o["client_metadata_url"].(string)
				s.OAuth.Device, _ = o["device"].(bool)
				if n, ok := p.integer(o, "redirect_port", at+"/oauth/redirect_port", 17); ok {
					s.OAuth.RedirectPort = int(n)
				}
			}
			s.Command, _ = e["command"].(string)
			s.URL, _ = e["url"].(string)
			if u, ok := e["serverUrl"].(string); ok && s.URL == "" { // Windsurf's name of url
				s.URL = u
			}
			s.Dir, _ = e["cwd"].(string)
			s.EnvFile, _ = e["envFile"].(string)
			typ, _ := e["type"].(string)
			switch {
			case s.Command != "" && s.URL != "":
				p.add(at, "gives both command and url: a server is either a command to start (stdio) or a URL (HTTP)")
				continue
			case s.Command == "" && s.URL == "":
				p.add(at, `gives neither command nor url: add "command" (with "args") for a stdio server or "url" for an HTTP server`)
				continue
			case s.Command != "" && (typ == "http" || typ == "streamable-http" || typ == "streamableHttp"):
				p.add(at+"/type", "is %q but the server has a command: use \"stdio\", or give a url", typ)
				continue
			case s.URL != "" && typ == "stdio":
				p.add(at+"/type", "is \"stdio\" but the server has a url: use \"http\", or give a command")
				continue
			case s.Command == "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.InheritEnv || s.Dir != "" || s.EnvFile != ""):
				p.add(at, "args, env, envFile, cwd and inherit_env are for a command; an HTTP server takes headers")
				continue
			case s.InheritEnv && s.Confine != nil:
				p.add(at+"/inherit_env", "is for an unconfined server: a confined server gets only its env")
				continue
			case s.URL == "" && len(s.Headers) > 0:
				p.add(at, "headers are for a url; a command takes args and env")
				continue
			case s.URL == "" && s.OAuth != nil:
				p.add(at+"/oauth", "signs in to a url's server: a command's server is not reached over HTTP")
				continue
			case s.OAuth != nil && s.OAuth.ClientSecret != "" && s.OAuth.ClientID == "":
				p.add(at+"/oauth/client_secret", "is the secret of a client_id: give the client_id too")
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
