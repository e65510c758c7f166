package config

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestDefault(t *testing.T) {
	d := Default()
	want := Config{Settings: tooling.Settings{
		DefaultTimeout:      30 * time.Second,
		MaxConcurrent:       256,
		MaxArgumentBytes:    1048576,
		MaxOutputBytes:      16777216,
		MaxFieldErrors:      100,
		Confinement:         tooling.ConfinementBounds{PoolSize: 2},
		IdempotencyTTL:      24 * time.Hour,
		IdempotencyMaxBytes: 1 << 20,
	}, Idempotency: Idempotency{Store: "memory"}}
	if !reflect.DeepEqual(d, want) {
		t.Fatalf("Default() = %+v, want %+v", d, want)
	}
	if err := d.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
}

// The zero Config is the default configuration: it validates, enables
// every tool, and spells out as Default().
func TestZeroConfigIsTheDefault(t *testing.T) {
	var zero Config
	if err := zero.Validate(); err != nil {
		t.Fatalf("Config{}.Validate() = %v", err)
	}
	if got := zero.WithDefaults(); !reflect.DeepEqual(got, Default()) {
		t.Fatalf("Config{}.WithDefaults() = %+v, want %+v", got, Default())
	}
	a, err := json.Marshal(zero)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Default())
	if string(a) != string(b) {
		t.Fatalf("Config{} marshals as\n%s\nwant\n%s", a, b)
	}
	// A field set keeps its value; the others take their defaults.
	if got := (Config{Settings: tooling.Settings{MaxConcurrent: 3, Confinement: tooling.ConfinementBounds{PoolSize: -1}}}).WithDefaults(); got.MaxConcurrent != 3 || got.Confinement.PoolSize != -1 || got.DefaultTimeout != 30*time.Second {
		t.Fatalf("WithDefaults() = %+v", got)
	}
}

// TestSchemaAgreesWithGo keeps schema.json and the Go side in step: the
// defaults it announces, and the name and pattern grammars.
func TestSchemaAgreesWithGo(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
		Defs map[string]struct {
			Pattern    string `json:"pattern"`
			Properties map[string]struct {
				Maximum *int `json:"maximum"`
			} `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatal(err)
	}
	var defaults strings.Builder
	defaults.WriteString("{")
	for key, p := range s.Properties {
		if p.Default == nil {
			continue
		}
		if defaults.Len() > 1 {
			defaults.WriteString(",")
		}
		defaults.WriteString(`"` + key + `":` + string(p.Default))
	}
	defaults.WriteString("}")
	got, err := Parse([]byte(defaults.String()), "defaults")
	if err != nil {
		t.Fatalf("the schema's defaults do not parse: %v\n%s", err, defaults.String())
	}
	got.Source = ""
	if !reflect.DeepEqual(got, Default()) {
		t.Errorf("the schema's defaults give %+v, Default() is %+v", got, Default())
	}
	// $defs/name and $defs/pattern are checked against the Go grammar, input
	// by input, in internal/toolname.
	if m := s.Defs["confinement"].Properties["pool_size"].Maximum; m == nil || *m != maxPoolSize {
		t.Errorf("$defs/confinement pool_size maximum = %v, Go has %d", m, maxPoolSize)
	}
	if _, err := loadSchema(); err != nil {
		t.Fatal(err)
	}
	// Schema returns a copy.
	b := Schema()
	b[0] = 'x'
	if Schema()[0] != '{' {
		t.Error("Schema() shares its bytes")
	}
}

func TestValidate(t *testing.T) {
	valid := func(edit func(*Config)) Config {
		c := Default()
		c.Source = "go"
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		cfg  Config
		want []string // Error() of each problem, in order
	}{
		{"default", valid(func(*Config) {}), nil},
		{"full", valid(func(c *Config) {
			c.Whitelist = []string{"demo.*", "*.read", "*"}
			c.Blacklist = []string{"demo.fail"}
			c.Tools = map[string]tooling.Override{
				"demo.slow": {Timeout: time.Second, Rate: tooling.Rate{PerMinute: 0.5, Burst: 2}},
				"demo.off":  {Disabled: true},
			}
			c.Confinement = tooling.ConfinementBounds{
				Workspace:       "work/space",
				AllowedRoots:    []string{"/srv/data", "/tmp", "/"},
				AllowedPorts:    []uint16{443, 1, 65535},
				MaxLimits:       tooling.Limits{CPUSeconds: 10, MemoryBytes: 256 << 20, OpenFiles: 64, FileSizeBytes: 1 << 20, Processes: 32},
				AllowUnconfined: true,
				PoolSize:        64,
			}
		}), nil},
		{"zero confinement", valid(func(c *Config) { c.Confinement = tooling.ConfinementBounds{} }), nil},
		{"empty confinement lists", valid(func(c *Config) {
			c.Confinement.AllowedRoots = []string{}
			c.Confinement.AllowedPorts = []uint16{}
		}), nil},
		{"zero override fields keep the tool's own", valid(func(c *Config) {
			c.Tools = map[string]tooling.Override{"demo.slow": {}}
		}), nil},
		{"limits", valid(func(c *Config) {
			c.DefaultTimeout = -time.Second
			c.MaxConcurrent = -2
			c.MaxArgumentBytes = -1
			c.MaxOutputBytes = -1
			c.MaxFieldErrors = -1
		}), []string{
			"config: go: /default_timeout: must be a positive duration, got -1s (0 means the default, 30s)",
			"config: go: /max_concurrent: must be at least 1, got -2 (0 means the default, 256)",
			"config: go: /max_argument_bytes: must be at least 1, got -1 (0 means the default, 1048576)",
			"config: go: /max_output_bytes: must be at least 1, got -1 (0 means the default, 16777216)",
			"config: go: /max_field_errors: must be at least 1, got -1 (0 means the default, 100)",
		}},
		{"small output cap", valid(func(c *Config) { c.MaxOutputBytes = 1 }), nil},
		{"zero output cap is the default", valid(func(c *Config) { c.MaxOutputBytes = 0 }), nil},
		{"zero timeout is the default", valid(func(c *Config) { c.DefaultTimeout = 0 }), nil},
		{"lists", valid(func(c *Config) {
			c.Whitelist = []string{"demo.*", "Demo", "demo.*"}
			c.Blacklist = []string{"demo.e*"}
		}), []string{
			`config: go: /whitelist/1: "Demo" is not a tool name or pattern (use e.g. "demo.echo", "demo.*", "*")`,
			`config: go: /whitelist/2: "demo.*" is listed twice (also at /whitelist/0)`,
			`config: go: /blacklist/0: "demo.e*" is not a tool name or pattern (use e.g. "demo.echo", "demo.*", "*")`,
		}},
		{"tools", valid(func(c *Config) {
			c.Tools = map[string]tooling.Override{
				"demo.*":    {},
				"a/b":       {},
				"demo.slow": {Timeout: -1, Rate: tooling.Rate{PerMinute: math.NaN(), Burst: -2}},
				"demo.echo": {Rate: tooling.Rate{Key: "shared"}},
			}
		}), []string{
			`config: go: /tools/a~1b: "a/b" is not a tool name: names are lower snake case segments joined by dots, like "demo.echo" or "fs.read_file"`,
			`config: go: /tools/demo.*: "demo.*" is a pattern, not a tool name: tools are keyed by exact name, like "demo.echo"`,
			`config: go: /tools/demo.echo: a rate key cannot be overridden, got "shared": which bucket a tool shares is its own declaration`,
			"config: go: /tools/demo.slow/timeout: must not be negative, got -1ns (0 keeps the tool's own)",
			"config: go: /tools/demo.slow/rate_per_minute: must be a finite number, 0 or more, got NaN (0 keeps the tool's own)",
			"config: go: /tools/demo.slow/burst: must not be negative, got -2 (0 keeps the tool's own)",
		}},
		{"confinement workspace", valid(func(c *Config) { c.Confinement.Workspace = "a\x00b" }), []string{
			`config: go: /confinement/workspace: must not contain a NUL byte, got "a\x00b"`,
		}},
		{"confinement allowed roots", valid(func(c *Config) {
			c.Confinement.AllowedRoots = []string{"/srv", "data", "", "/srv/data/", "/a/../b", "/x\x00", "/srv"}
		}), []string{
			`config: go: /confinement/allowed_roots/1: must be an absolute path, got "data"`,
			`config: go: /confinement/allowed_roots/2: must be an absolute path, got ""`,
			`config: go: /confinement/allowed_roots/3: must be a clean path: "/srv/data", not "/srv/data/"`,
			`config: go: /confinement/allowed_roots/4: must be a clean path: "/b", not "/a/../b"`,
			`config: go: /confinement/allowed_roots/5: must not contain a NUL byte, got "/x\x00"`,
			`config: go: /confinement/allowed_roots/6: "/srv" is listed twice (also at /confinement/allowed_roots/0)`,
		}},
		{"confinement allowed ports", valid(func(c *Config) {
			c.Confinement.AllowedPorts = []uint16{80, 0, 443, 80}
		}), []string{
			"config: go: /confinement/allowed_ports/1: must be at least 1, got 0",
			"config: go: /confinement/allowed_ports/3: 80 is listed twice (also at /confinement/allowed_ports/0)",
		}},
		{"confinement limits", valid(func(c *Config) {
			c.Confinement.MaxLimits = tooling.Limits{CPUSeconds: -1, MemoryBytes: -2, OpenFiles: -3, FileSizeBytes: -4, Processes: -5}
		}), []string{
			"config: go: /confinement/max_limits/cpu_seconds: must not be negative, got -1 (0 does not cap)",
			"config: go: /confinement/max_limits/memory_bytes: must not be negative, got -2 (0 does not cap)",
			"config: go: /confinement/max_limits/open_files: must not be negative, got -3 (0 does not cap)",
			"config: go: /confinement/max_limits/file_size_bytes: must not be negative, got -4 (0 does not cap)",
			"config: go: /confinement/max_limits/processes: must not be negative, got -5 (0 does not cap)",
		}},
		{"confinement pool size negative: no pool", valid(func(c *Config) { c.Confinement.PoolSize = -1 }), nil},
		{"confinement pool size too large", valid(func(c *Config) { c.Confinement.PoolSize = 65 }), []string{
			"config: go: /confinement/pool_size: must be at most 64, got 65",
		}},
		{"serve keys", valid(func(c *Config) {
			good := strings.Repeat("ab", 32)
			c.Serve.MaxSessions, c.Serve.IdleTimeout, c.Serve.Token = -1, -time.Second, " t "
			c.Serve.APIKeys = map[string]APIKey{"ci": {SHA256: "abc"}, "deploy": {SHA256: good, Roles: []string{""}}, "dup": {SHA256: strings.ToUpper(good)}}
			c.Serve.OAuth = &OAuth{Issuer: "auth.example.com", Resource: "http://tools.example.com/mcp#x", JWKSURL: "ftp://keys", Leeway: -1, Scopes: []string{"a b", "c", "c"}}
		}), []string{
			"config: go: /serve/token: must not begin or end with white space",
			"config: go: /serve/max_sessions: must be at least 1, got -1 (0 means the default, 100)",
			"config: go: /serve/idle_timeout: must be a positive duration, got -1s (0 means the default, 30m)",
			"config: go: /serve/api_keys/ci/sha256: must be the key's SHA-256 digest, 64 hex digits ('toolexplorer apikey ci' makes a key and its digest), got 3 characters",
			"config: go: /serve/api_keys/deploy/roles/0: must not be empty",
			`config: go: /serve/api_keys/dup/sha256: is the digest of key "deploy" too: two names for one key`,
			`config: go: /serve/oauth/issuer: must be an absolute https URL, got "auth.example.com"`,
			`config: go: /serve/oauth/resource: must use https, got "http://tools.example.com/mcp#x" (plain http only on the loopback)`,
			`config: go: /serve/oauth/resource: "http://tools.example.com/mcp#x" has a fragment: a resource URI has none`,
			`config: go: /serve/oauth/jwks_url: must be an absolute https URL, got "ftp://keys"`,
			"config: go: /serve/oauth/leeway: must not be negative, got -1ns (0 means the default, 30s)",
			`config: go: /serve/oauth/scopes/0: must be one scope, without spaces, got "a b"`,
			`config: go: /serve/oauth/scopes/2: "c" is listed twice`,
		}},
		{"serve keys fine", valid(func(c *Config) {
			c.Serve.APIKeys = map[string]APIKey{"ci": {SHA256: strings.Repeat("0", 64)}}
			c.Serve.OAuth = &OAuth{Issuer: "http://127.0.0.1:9000", Resource: "https://tools.example.com/mcp"}
		}), nil},
		{"no source", Config{Settings: tooling.Settings{DefaultTimeout: time.Second, MaxConcurrent: -1}}, []string{
			"config: /max_concurrent: must be at least 1, got -1 (0 means the default, 256)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			checkErrors(t, err, tt.want)
		})
	}
}

// checkErrors compares err with the Error() of each expected problem.
func checkErrors(t *testing.T, err error, want []string) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("unexpected error:\n%v", err)
		}
		return
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T %v is not an Errors", err, err)
	}
	got := make([]string, len(es))
	for i, e := range es {
		got[i] = e.Error()
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var first *Error
	if !errors.As(err, &first) || first != es[0] {
		t.Fatalf("errors.As(*Error) = %v, want the first problem %v", first, es[0])
	}
	if err.Error() != strings.Join(want, "\n") {
		t.Fatalf("Error() = %q", err.Error())
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Source: "f.json", Path: "/tools/demo.slow/timout", Message: `unknown key (did you mean "timeout"?)`},
			`config: f.json: /tools/demo.slow/timout: unknown key (did you mean "timeout"?)`},
		{Error{Source: "f.json", Message: "invalid JSON"}, "config: f.json: invalid JSON"},
		{Error{Path: "/max_concurrent", Message: "must be at least 1, got 0"}, "config: /max_concurrent: must be at least 1, got 0"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestMarshalJSONRoundTrip(t *testing.T) {
	c := Default()
	c.Disabled = true
	c.DefaultTimeout = 90 * time.Second
	c.MaxConcurrent = 3
	c.MaxArgumentBytes = 4096
	c.MaxOutputBytes = 1 << 30
	c.Whitelist = []string{"demo.*"}
	c.Blacklist = []string{"demo.fail"}
	c.DangerousToolConfirmation = true
	c.Keys = map[string][]string{"list.run": {"x", "ctrl+r"}, "viewer.copy": {"c"}}
	c.Tools = map[string]tooling.Override{
		"demo.slow": {Timeout: 1500 * time.Microsecond, Rate: tooling.Rate{PerMinute: 0.5, Burst: 2}},
		"demo.off":  {Disabled: true},
	}
	c.Confinement = tooling.ConfinementBounds{
		Workspace:       "../work space",
		AllowedRoots:    []string{"/srv/data", "/tmp"},
		AllowedPorts:    []uint16{443, 8080},
		MaxLimits:       tooling.Limits{CPUSeconds: 10, MemoryBytes: 1 << 40, OpenFiles: 64, FileSizeBytes: 1 << 20, Processes: 32},
		AllowUnconfined: true,
		PoolSize:        -1,
	}
	zero := Default()
	zero.Confinement = tooling.ConfinementBounds{}
	for _, cfg := range []Config{Default(), c, zero} {
		data, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(data, "")
		if err != nil {
			t.Fatalf("Parse(%s): %v", data, err)
		}
		if want := cfg.WithDefaults(); !reflect.DeepEqual(back, want) {
			t.Fatalf("round trip of %s:\n got %+v\nwant %+v", data, back, want)
		}
	}
}
