package main

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/mcp"
)

// TestHostConfigFiles reads the config file of each MCP host, as each
// host's documentation writes it (testdata/hosts), and checks what each
// server is started or reached with: its variables expanded as the host
// expands them.
func TestHostConfigFiles(t *testing.T) {
	hosts, err := filepath.Abs(filepath.Join("testdata", "hosts"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": "/home/me", "API_KEY": "k1", "MY_SERVICE_TOKEN": "t1", "GITHUB_TOKEN": "gh",
		"FIGMA_TOKEN": "fg", "TOOLEXPLORER_INPUT_PERPLEXITY_KEY": "px"}
	getenv := func(k string) string { return env[k] }
	for _, tc := range []struct {
		file string
		want map[string]mcp.Spec
	}{
		{"claude_desktop_config.json", map[string]mcp.Spec{
			"filesystem": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"}, Env: map[string]string{"NODE_ENV": "production"}},
		}},
		{"claude_code.mcp.json", map[string]mcp.Spec{
			"api-server": {URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer k1"}},
			"local":      {Command: "/usr/local/bin/server", Args: []string{"--cache", "/tmp/cache"}, Env: map[string]string{"HOME_COPY": "/home/me"}},
		}},
		{".cursor/mcp.json", map[string]mcp.Spec{
			"local": {Command: "python", Args: []string{hosts + "/mcp_server.py"},
				Env: map[string]string{"API_KEY": "k1", "DB_URL": "postgres://localhost/dev", "REGION": "eu"}},
			"remote": {URL: "https://api.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t1"}},
		}},
		{".vscode/mcp.json", map[string]mcp.Spec{
			"perplexity": {Command: "npx", Args: []string{"-y", "server-perplexity-ask"}, Env: map[string]string{"PERPLEXITY_API_KEY": "px"}, Dir: hosts},
			"github":     {URL: "https://api.githubcopilot.com/mcp/", Headers: map[string]string{"X-User": "/home/me"}},
		}},
		{"windsurf_mcp_config.json", map[string]mcp.Spec{
			"github": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-github"}, Env: map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "gh"}},
			"figma":  {URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer fg"}},
		}},
		{"cline_mcp_settings.json", map[string]mcp.Spec{
			"weather": {Command: "node", Args: []string{"/home/me/weather-server/build/index.js"}, Env: map[string]string{"OPENWEATHER_API_KEY": "key"}},
			"remote":  {URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer token"}},
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(hosts, tc.file)
			cfg, err := config.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			a := &app{getenv: getenv, cfg: cfg, configFile: path}
			if tc.file == ".vscode/mcp.json" {
				if in := cfg.Inputs["perplexity-key"]; in != (config.Input{Description: "Perplexity API Key", Password: true}) {
					t.Errorf("the input perplexity-key read as %+v", in)
				}
			}
			if len(cfg.Servers) != len(tc.want) {
				t.Fatalf("servers %v, want %d", cfg.Servers, len(tc.want))
			}
			for name, want := range tc.want {
				got, err := a.serverSpec(name, cfg.Servers[name])
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
				}
			}
		})
	}
}

// TestUndefinedVariables: a server whose config names a variable that is
// not defined is not connected, and says which and where; lint names
// every one.
func TestUndefinedVariables(t *testing.T) {
	cfg := writeFile(t, "c.json", `{
  "inputs": [{"type": "promptString", "id": "api-key", "description": "The API key"}],
  "mcpServers": {"web": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOOLEXPLORER_TEST_UNSET_TOKEN}", "X-Key": "${input:api-key}", "X-Odd": "${command:pick}"}}}
}`)
	o := cli(t, "", "--config", cfg, "lint")
	for _, want := range []string{
		"headers.Authorization: ${TOOLEXPLORER_TEST_UNSET_TOKEN} is not defined: $TOOLEXPLORER_TEST_UNSET_TOKEN is not set",
		`headers.X-Key: ${input:api-key} is not defined: set $TOOLEXPLORER_INPUT_API_KEY to the input "api-key" (The API key)`,
		"headers.X-Odd: ${command:pick} is not a variable toolexplorer knows",
	} {
		if !strings.Contains(o.stdout+o.stderr, want) {
			t.Errorf("lint does not say %q:\n%s", want, o)
		}
	}
	if o.code == exitOK {
		t.Errorf("lint with undefined variables: exit %d", o.code)
	}
}
