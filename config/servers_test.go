package config

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestServersSection(t *testing.T) {
	// A Claude Desktop or Cursor file, as it is.
	cfg, err := Parse([]byte(`{
  "mcpServers": {
    "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"], "env": {"LOG": "1"}},
    "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}
  }
}`), "claude.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Server{
		"everything": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}, Env: map[string]string{"LOG": "1"}},
		"remote":     {URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
	}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Fatalf("servers %+v, want %+v", cfg.Servers, want)
	}
	// A VS Code file says the type.
	cfg, err = Parse([]byte(`{"servers": {"a": {"type": "stdio", "command": "srv"}, "b": {"type": "http", "url": "http://127.0.0.1:9/mcp"}}}`), "vscode.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers["a"].Command != "srv" || cfg.Servers["b"].URL != "http://127.0.0.1:9/mcp" {
		t.Fatalf("servers %+v", cfg.Servers)
	}
}

func TestServersSectionErrors(t *testing.T) {
	cases := []struct{ doc, want string }{
		{`{"servers": {"a": {"command": "x", "url": "http://h/"}}}`, "/servers/a: gives both command and url"},
		{`{"servers": {"a": {}}}`, "/servers/a: gives neither command nor url"},
		{`{"servers": {"a": {"args": ["x"]}}}`, "/servers/a: gives neither command nor url"},
		{`{"servers": {"a": {"type": "http", "command": "x"}}}`, `/servers/a/type: is "http" but the server has a command`},
		{`{"servers": {"a": {"type": "stdio", "url": "http://h/"}}}`, `/servers/a/type: is "stdio" but the server has a url`},
		{`{"servers": {"a": {"url": "http://h/", "env": {"K": "v"}}}}`, "/servers/a: args, env, envFile, cwd and inherit_env are for a command"},
		{`{"servers": {"a": {"url": "http://h/", "inherit_env": true}}}`, "/servers/a: args, env, envFile, cwd and inherit_env are for a command"},
		{`{"servers": {"a": {"command": "x", "inherit_env": true, "confine": {}}}}`, "/servers/a/inherit_env: is for an unconfined server"},
		{`{"servers": {"a": {"command": "x", "inherit_env": "yes"}}}`, "/servers/a/inherit_env"},
		{`{"servers": {"a": {"command": "x", "headers": {"K": "v"}}}}`, "/servers/a: headers are for a url"},
		{`{"servers": {"a": {"command": "x"}}, "mcpServers": {"a": {"command": "y"}}}`, `server "a" is in both servers and mcpServers`},
		{`{"mcpServers": {"a": {"cmd": "x"}}}`, "/mcpServers/a/cmd: unknown key"},
		{`{"mcpServers": {"a": {"command": "x", "args": "-v"}}}`, "/mcpServers/a/args: must be an array"},
		{`{"mcpServers": {"a": {"url": "ftp://h/"}}}`, `/mcpServers/a/url: must be an http:// or https:// URL, got "ftp://h/"`},
		{`{"mcpServers": {"a": {"type": "sse", "url": "http://h/"}}}`, `/mcpServers/a/type: is "sse", MCP's older HTTP transport, which toolexplorer does not speak: give the server's streamable HTTP endpoint as url`},
		{`{"mcpServers": {"a": {"type": "websocket", "url": "http://h/"}}}`, `/mcpServers/a/type: must be one of "stdio", "http", "streamable-http", "streamableHttp", got "websocket"`},
		{`{"mcpServers": {"9lives": {"command": "x"}}}`, `/mcpServers/9lives: "9lives" is not a server name`},
		{`{"mcpServers": {"a": "npx server"}}`, "/mcpServers/a: must be an object"},
	}
	for _, c := range cases {
		_, err := Parse([]byte(c.doc), "f.json")
		if err == nil {
			t.Errorf("%s: parsed", c.doc)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant it to say %q", c.doc, err, c.want)
		}
	}
}

func TestHostFileKeepsOnlyItsServers(t *testing.T) {
	// A Claude Desktop file holds the host's own settings beside mcpServers.
	cfg, err := Parse([]byte(`{
  "globalShortcut": "Ctrl+Space",
  "preferences": {"theme": "dark"},
  "mcpServers": {"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}
}`), "claude_desktop_config.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Servers["everything"].Command != "npx" {
		t.Fatalf("servers %+v", cfg.Servers)
	}
	// Our own file stays strict: an unknown key is a mistake there.
	_, err = Parse([]byte(`{"globalShortcut": "x", "servers": {"a": {"command": "x"}}}`), "f.json")
	if err == nil || !strings.Contains(err.Error(), "/globalShortcut: unknown key") {
		t.Fatalf("got %v, want the unknown key reported", err)
	}
	// A host file's servers are still checked.
	_, err = Parse([]byte(`{"preferences": {}, "mcpServers": {"a": {"cmd": "x"}}}`), "f.json")
	if err == nil || !strings.Contains(err.Error(), "/mcpServers/a/cmd: unknown key") {
		t.Fatalf("got %v, want the entry's unknown key reported", err)
	}
}

func TestServeSection(t *testing.T) {
	cfg, err := Parse([]byte(`{"serve": {"token": "s3cret", "consent": ["demo.write_note"]}}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Serve.Token != "s3cret" || !reflect.DeepEqual(cfg.Serve.Consent, []string{"demo.write_note"}) {
		t.Fatalf("serve %+v", cfg.Serve)
	}
	b, err := cfg.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "s3cret") {
		t.Errorf("the token is shown: %s", b)
	}
	for doc, want := range map[string]string{
		`{"serve": {"token": ""}}`:      "/serve/token",
		`{"serve": {"tokn": "x"}}`:      `/serve/tokn: unknown key (did you mean "token"?)`,
		`{"serve": {"consent": "a.b"}}`: "/serve/consent: must be an array",
	} {
		if _, err := Parse([]byte(doc), "f.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", doc, err, want)
		}
	}
}

func TestServerConfine(t *testing.T) {
	cfg, err := Parse([]byte(`{"servers": {"fs": {"command": "srv", "confine": {"read": ["/srv/data"], "write": ["/tmp/out"], "ports": [443], "programs": ["/usr/bin/node"], "cpu_seconds": 600, "memory_bytes": 4294967296}}}}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	want := &tooling.Confinement{Read: []string{"/srv/data"}, Write: []string{"/tmp/out"}, ConnectTCP: []uint16{443}, Exec: []string{"/usr/bin/node"}, Limits: tooling.Limits{CPUSeconds: 600, MemoryBytes: 4 << 30}}
	if got := cfg.Servers["fs"].Confine; !reflect.DeepEqual(got, want) {
		t.Fatalf("confine %+v, want %+v", got, want)
	}
	for doc, msg := range map[string]string{
		`{"servers": {"a": {"url": "http://h/", "confine": {}}}}`:             "/servers/a/confine: confines a command's server",
		`{"servers": {"a": {"command": "x", "confine": {"read": ["data"]}}}}`: `/servers/a/confine: "data" is not an absolute path`,
		`{"servers": {"a": {"command": "x", "confine": {"ports": [70000]}}}}`: "/servers/a/confine/ports/0",
		`{"servers": {"a": {"command": "x", "confine": {"paths": ["/x"]}}}}`:  "/servers/a/confine/paths: unknown key",
		`{"servers": {"a": {"command": "x", "confine": {"cpu_seconds": 0}}}}`: "/servers/a/confine/cpu_seconds",
	} {
		if _, err := Parse([]byte(doc), "f.json"); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", doc, err, msg)
		}
	}
}

// TestClineFileWorksAsIs: the keys Cline and Roo Code keep in a server's
// entry are accepted; a disabled server is left out.
func TestClineFileWorksAsIs(t *testing.T) {
	cfg, err := Parse([]byte(`{"mcpServers": {
  "on": {"command": "srv", "args": ["-v"], "disabled": false, "autoApprove": ["read"], "alwaysAllow": [], "timeout": 60},
  "off": {"command": "other", "disabled": true}}}`), "cline_mcp_settings.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Server{"on": {Command: "srv", Args: []string{"-v"}}}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Fatalf("servers %+v, want %+v", cfg.Servers, want)
	}
	_, err = Parse([]byte(`{"mcpServers": {"a": {"command": "srv", "disabled": "yes"}}}`), "f.json")
	if err == nil || !strings.Contains(err.Error(), "/mcpServers/a/disabled: must be a boolean") {
		t.Errorf("disabled that is not a boolean: %v", err)
	}
}

func TestServeAuthentication(t *testing.T) {
	digest, other := strings.Repeat("ab", 32), strings.Repeat("cd", 32)
	cfg, err := Parse([]byte(`{"serve": {
  "api_keys": {"ci": {"sha256": "`+digest+`", "tenant": "acme", "roles": ["reader"]}, "ops": {"sha256": "`+strings.ToUpper(other)+`", "subject": "ops-bot"}},
  "oauth": {"issuer": "https://auth.example.com", "resource": "https://tools.example.com/mcp", "scopes": ["tools:call"],
            "tenant_claim": "org", "roles_claim": "realm_access.roles", "leeway": "10s"}}}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	wantKeys := map[string]APIKey{
		"ci":  {SHA256: digest, Subject: "ci", Tenant: "acme", Roles: []string{"reader"}},
		"ops": {SHA256: strings.ToUpper(other), Subject: "ops-bot"},
	}
	if !reflect.DeepEqual(cfg.Serve.APIKeys, wantKeys) {
		t.Errorf("api_keys %+v, want %+v", cfg.Serve.APIKeys, wantKeys)
	}
	wantOAuth := &OAuth{Issuer: "https://auth.example.com", Resource: "https://tools.example.com/mcp", Scopes: []string{"tools:call"},
		TenantClaim: "org", RolesClaim: "realm_access.roles", Leeway: 10 * time.Second}
	if !reflect.DeepEqual(cfg.Serve.OAuth, wantOAuth) {
		t.Errorf("oauth %+v, want %+v", cfg.Serve.OAuth, wantOAuth)
	}
	for doc, want := range map[string]string{
		`{"serve": {"api_keys": {"ci": {"sha256": "plain-key"}}}}`:                                        "/serve/api_keys/ci/sha256",
		`{"serve": {"api_keys": {"ci": {"key": "` + digest + `"}}}}`:                                      "/serve/api_keys/ci",
		`{"serve": {"oauth": {"issuer": "https://a.example"}}}`:                                           "/serve/oauth",
		`{"serve": {"oauth": {"issuer": "https://a.example", "resource": "tools"}}}`:                      "/serve/oauth/resource",
		`{"serve": {"oauth": {"issuer": "https://a.example", "resource": "https://t/#x"}}}`:               "/serve/oauth/resource: \"https://t/#x\" has a fragment",
		`{"serve": {"oauth": {"issuer": "https://a", "resource": "https://t", "leeway": "0s"}}}`:          "/serve/oauth/leeway",
		`{"serve": {"api_keys": {"a": {"sha256": "` + digest + `"}, "b": {"sha256": "` + digest + `"}}}}`: `/serve/api_keys/b/sha256: is the digest of key "a" too`,
		`{"serve": {"oauth": {"issuer": "http://auth.example.com", "resource": "https://t"}}}`:            "/serve/oauth/issuer: must use https",
	} {
		if _, err := Parse([]byte(doc), "f.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", doc, err, want)
		}
	}
}

// TestServeSessions: serve's max_sessions and idle_timeout are read, and
// values out of range are refused at their path.
func TestServeSessions(t *testing.T) {
	cfg, err := Parse([]byte(`{"serve": {"max_sessions": 7, "idle_timeout": "90s"}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Serve.MaxSessions != 7 || cfg.Serve.IdleTimeout != 90*time.Second || cfg.Serve.Stateless {
		t.Errorf("serve %+v, want 7 sessions and 90s, with sessions", cfg.Serve)
	}
	if cfg, err := Parse([]byte(`{"serve": {"stateless": true}}`), "c.json"); err != nil || !cfg.Serve.Stateless {
		t.Errorf("serve.stateless true: %+v, %v", cfg.Serve, err)
	}
	for doc, want := range map[string]string{
		`{"serve": {"max_sessions": 0}}`:      "/serve/max_sessions",
		`{"serve": {"max_sessions": "9"}}`:    "/serve/max_sessions",
		`{"serve": {"idle_timeout": "soon"}}`: "/serve/idle_timeout",
		`{"serve": {"idle_timeout": 30}}`:     "/serve/idle_timeout",
		`{"serve": {"stateless": "yes"}}`:     "/serve/stateless",
	} {
		if _, err := Parse([]byte(doc), "c.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want a problem at %s", doc, err, want)
		}
	}
}

// TestServerInheritEnv: inherit_env is read; left out, it is false.
func TestServerInheritEnv(t *testing.T) {
	cfg, err := Parse([]byte(`{"servers": {"a": {"command": "x", "inherit_env": true}, "b": {"command": "y"}}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Servers["a"].InheritEnv || cfg.Servers["b"].InheritEnv {
		t.Errorf("inherit_env: a %v, b %v; want true and false", cfg.Servers["a"].InheritEnv, cfg.Servers["b"].InheritEnv)
	}
}

// TestServerSupervision reads how a server is restarted and how many calls
// it is sent at once.
func TestServerSupervision(t *testing.T) {
	cfg, err := Parse([]byte(`{"servers": {
  "a": {"command": "srv", "max_restarts": 0, "concurrency": 3},
  "b": {"url": "http://127.0.0.1:9/mcp", "max_restarts": 2, "exclusive": true},
  "c": {"command": "srv"}
}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Server{
		"a": {Command: "srv", MaxRestarts: -1, Concurrency: 3},
		"b": {URL: "http://127.0.0.1:9/mcp", MaxRestarts: 2, Exclusive: true},
		"c": {Command: "srv"},
	}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Fatalf("servers %+v, want %+v", cfg.Servers, want)
	}
	if _, err := Parse([]byte(`{"servers": {"a": {"command": "srv", "concurrency": 0}}}`), "c.json"); err == nil || !strings.Contains(err.Error(), "/servers/a/concurrency") {
		t.Fatalf("concurrency 0: %v", err)
	}
}

func TestServerOAuth(t *testing.T) {
	cfg, err := Parse([]byte(`{"mcpServers": {
  "a": {"url": "https://mcp.example.com/mcp", "oauth": {}},
  "b": {"url": "https://mcp.example.com/mcp", "oauth": {"client_id": "te", "client_secret": "${env:SECRET}", "scopes": ["tools"], "redirect_port": 8765}},
  "c": {"url": "https://mcp.example.com/mcp", "oauth": {"device": true, "client_metadata_url": "https://te.example.com/client.json"}}
}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*ServerOAuth{
		"a": {},
		"b": {ClientID: "te", ClientSecret: "${env:SECRET}", Scopes: []string{"tools"}, RedirectPort: 8765},
		"c": {Device: true, ClientMetadataURL: "https://te.example.com/client.json"},
	}
	for name, w := range want {
		if got := cfg.Servers[name].OAuth; !reflect.DeepEqual(got, w) {
			t.Errorf("%s: oauth %+v, want %+v", name, got, w)
		}
	}
	for _, c := range []struct{ doc, want string }{
		{`{"mcpServers": {"a": {"command": "x", "oauth": {}}}}`, "/mcpServers/a/oauth: signs in to a url's server"},
		{`{"mcpServers": {"a": {"url": "http://h/", "oauth": {"client_secret": "s"}}}}`, "/mcpServers/a/oauth/client_secret: is the secret of a client_id"},
		{`{"mcpServers": {"a": {"url": "http://h/", "oauth": {"client_metadata_url": "http://h/c.json"}}}}`, "/mcpServers/a/oauth/client_metadata_url"},
		{`{"mcpServers": {"a": {"url": "http://h/", "oauth": {"flow": "device"}}}}`, "/mcpServers/a/oauth/flow: unknown key"},
	} {
		if _, err := Parse([]byte(c.doc), "f.json"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant it to say %q", c.doc, err, c.want)
		}
	}
}
