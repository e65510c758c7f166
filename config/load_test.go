package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

func TestParseDefaults(t *testing.T) {
	for _, in := range []string{"", "  \n\t", "{}", " { } \n", "\ufeff{}"} {
		got, err := Parse([]byte(in), "f.json")
		if err != nil {
			t.Fatalf("Parse(%q): %v", in, err)
		}
		want := Default()
		want.Source = "f.json"
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Parse(%q) = %+v, want %+v", in, got, want)
		}
	}
}

func TestParseFull(t *testing.T) {
	in := `{
  "$schema": "./schema.json",
  "enabled": false,
  "default_timeout": "1m30s",
  "max_concurrent": 8,
  "max_argument_bytes": 1e3,
  "max_output_bytes": 65536,
  "whitelist": ["demo.*", "*.read", "*"],
  "blacklist": ["demo.fail"],
  "dangerous_tool_confirmation": true,
  "tools": {
    "demo.slow": {"timeout": "200ms", "rate_per_minute": 0.5, "burst": 2, "disabled": false},
    "demo.off": {"disabled": true, "state": "deprecated", "reason": "old", "replacement": "demo.slow"},
    "demo.same": {}
  },
  "max_field_errors": 7,
  "confinement": {
    "workspace": "work/space",
    "allowed_roots": ["/srv/data/", "/tmp", "/var//lib/../cache", "/"],
    "allowed_ports": [443, 8080.0, 1e3, 65535],
    "max_limits": {"cpu_seconds": 10, "memory_bytes": 268435456, "open_files": 64, "file_size_bytes": 1048576, "processes": 32},
    "allow_unconfined": true,
    "pool_size": 0
  },
  "idempotency": {"ttl": "1h", "max_bytes": 4096, "store": "sqlite", "path": "idem.db"}
}`
	got, err := Parse([]byte(in), "full.json")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{Settings: tooling.Settings{
		Disabled:         true,
		DefaultTimeout:   90 * time.Second,
		MaxConcurrent:    8,
		MaxArgumentBytes: 1000,
		MaxOutputBytes:   65536,
		MaxFieldErrors:   7,
		Whitelist:        []string{"demo.*", "*.read", "*"},
		Blacklist:        []string{"demo.fail"},
		Tools: map[string]tooling.Override{
			"demo.slow": {Timeout: 200 * time.Millisecond, Rate: tooling.Rate{PerMinute: 0.5, Burst: 2}},
			"demo.off":  {Disabled: true, State: tooling.StateDeprecated, StateReason: "old", Replacement: "demo.slow"},
			"demo.same": {},
		},
		Confinement: tooling.ConfinementBounds{
			Workspace:       "work/space",
			AllowedRoots:    []string{"/srv/data", "/tmp", "/var/cache", "/"},
			AllowedPorts:    []uint16{443, 8080, 1000, 65535},
			MaxLimits:       tooling.Limits{CPUSeconds: 10, MemoryBytes: 268435456, OpenFiles: 64, FileSizeBytes: 1048576, Processes: 32},
			AllowUnconfined: true,
			PoolSize:        -1,
		},
		IdempotencyTTL:      time.Hour,
		IdempotencyMaxBytes: 4096,
		Source:              "full.json",
	}, DangerousToolConfirmation: true, Idempotency: Idempotency{Store: "sqlite", Path: "idem.db"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
}

func TestParsePartialKeepsDefaults(t *testing.T) {
	got, err := Parse([]byte(`{"max_concurrent": 2, "whitelist": [], "tools": {}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.MaxConcurrent = 2
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	got, err = Parse([]byte(`{"confinement": {"allowed_roots": [], "max_limits": {"open_files": 8}}}`), "")
	if err != nil {
		t.Fatal(err)
	}
	want = Default()
	want.Confinement.MaxLimits.OpenFiles = 8
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"unknown key at the root", `{"enabld": true}`, []string{
			`config: f.json: /enabld: unknown key (did you mean "enabled"?)`,
		}},
		{"unknown key nested", `{"tools": {"demo.slow": {"timout": "1s"}}}`, []string{
			`config: f.json: /tools/demo.slow/timout: unknown key (did you mean "timeout"?)`,
		}},
		{"unknown key, swapped letters", `{"tools": {"demo.slow": {"burts": 1}}}`, []string{
			`config: f.json: /tools/demo.slow/burts: unknown key (did you mean "burst"?)`,
		}},
		{"unknown key, camel case", `{"maxConcurrent": 1, "default-timeout": "1s"}`, []string{
			`config: f.json: /maxConcurrent: unknown key (did you mean "max_concurrent"?)`,
			`config: f.json: /default-timeout: unknown key (did you mean "default_timeout"?)`,
		}},
		{"unknown key, nothing close", `{"tools": {"demo.slow": {"color": "red"}}}`, []string{
			`config: f.json: /tools/demo.slow/color: unknown key (known keys: burst, disabled, rate_per_minute, reason, replacement, state, timeout)`,
		}},
		{"unknown key with a slash", `{"a/b~": 1}`, []string{
			`config: f.json: /a~1b~0: unknown key (known keys: access, blacklist, budgets, confinement, dangerous_tool_confirmation, default_timeout, enabled, env_file, environments, idempotency, inputs, keys, ledger, limits, max_argument_bytes, max_concurrent, max_field_errors, max_output_bytes, mcpServers, serve, servers, shadow, state, telemetry, tool_files, tools, whitelist)`,
		}},
		{"wrong types", `{"enabled": "yes", "default_timeout": 30, "max_concurrent": "64", "max_output_bytes": "16MiB", "whitelist": "demo.*", "tools": []}`, []string{
			`config: f.json: /enabled: must be a boolean, got string`,
			`config: f.json: /default_timeout: must be a string, got number`,
			`config: f.json: /max_concurrent: must be an integer, got string`,
			`config: f.json: /max_output_bytes: must be an integer, got string`,
			`config: f.json: /whitelist: must be an array, got string`,
			`config: f.json: /tools: must be an object, got array`,
		}},
		{"fraction for an integer", `{"max_output_bytes": 1024.5, "tools": {"demo.slow": {"burst": 1.5}}}`, []string{
			`config: f.json: /max_output_bytes: must be an integer, got 1024.5`,
			`config: f.json: /tools/demo.slow/burst: must be an integer, got 1.5`,
		}},
		{"null output cap", `{"max_output_bytes": null}`, []string{
			`config: f.json: /max_output_bytes: must be an integer, got null`,
		}},
		{"unknown key, close to the output cap", `{"max_output_byte": 1}`, []string{
			`config: f.json: /max_output_byte: unknown key (did you mean "max_output_bytes"?)`,
		}},
		{"null", `{"enabled": null, "tools": {"demo.slow": null}}`, []string{
			`config: f.json: /enabled: must be a boolean, got null`,
			`config: f.json: /tools/demo.slow: must be an object, got null`,
		}},
		{"not an object", `["demo.echo"]`, []string{
			`config: f.json: must be an object, got array`,
		}},
		{"bad durations", `{"default_timeout": "3 seconds", "tools": {"demo.slow": {"timeout": "1d"}, "demo.fast": {"timeout": ""}}}`, []string{
			`config: f.json: /default_timeout: "3 seconds" is not a duration (use e.g. "500ms", "30s", "2m")`,
			`config: f.json: /tools/demo.slow/timeout: "1d" is not a duration (use e.g. "500ms", "30s", "2m")`,
			`config: f.json: /tools/demo.fast/timeout: "" is not a duration (use e.g. "500ms", "30s", "2m")`,
		}},
		{"duration too long", `{"default_timeout": "3000000h"}`, []string{
			`config: f.json: /default_timeout: "3000000h" is too long a duration (the most is 2562047h47m16.854775807s)`,
		}},
		{"negative output cap", `{"max_output_bytes": -5}`, []string{
			`config: f.json: /max_output_bytes: must be at least 1, got -5`,
		}},
		{"negative and zero durations", `{"default_timeout": "-5s", "tools": {"demo.slow": {"timeout": "0s"}, "demo.fast": {"timeout": "0"}}}`, []string{
			`config: f.json: /default_timeout: must be a positive duration, got "-5s"`,
			`config: f.json: /tools/demo.slow/timeout: must be a positive duration, got "0s"`,
			`config: f.json: /tools/demo.fast/timeout: must be a positive duration, got "0"`,
		}},
		{"negative and zero numbers", `{"max_concurrent": 0, "max_argument_bytes": -1, "max_output_bytes": 0, "tools": {"demo.slow": {"rate_per_minute": 0, "burst": -3}}}`, []string{
			`config: f.json: /max_concurrent: must be at least 1, got 0`,
			`config: f.json: /max_argument_bytes: must be at least 1, got -1`,
			`config: f.json: /max_output_bytes: must be at least 1, got 0`,
			`config: f.json: /tools/demo.slow/rate_per_minute: must be greater than 0, got 0`,
			`config: f.json: /tools/demo.slow/burst: must be at least 1, got -3`,
		}},
		{"numbers too large", `{"max_concurrent": 1e30, "max_argument_bytes": 99999999999999999999, "max_output_bytes": 1e19, "tools": {"demo.slow": {"rate_per_minute": 1e400}}}`, []string{
			`config: f.json: /max_concurrent: 1e30 is too large`,
			`config: f.json: /max_argument_bytes: 99999999999999999999 is too large`,
			`config: f.json: /max_output_bytes: 1e19 is too large`,
			`config: f.json: /tools/demo.slow/rate_per_minute: 1e400 is too large`,
		}},
		{"bad names and patterns", `{"whitelist": ["demo", "demo.e*", "demo.*", "demo.*"], "blacklist": [""], "tools": {"Demo.Slow": {}, "demo.*": {}}}`, []string{
			`config: f.json: /whitelist/0: "demo" is not a tool name or pattern: names are "group.name"; for every tool of group demo write "demo.*"`,
			`config: f.json: /whitelist/1: "demo.e*" is not a tool name or pattern (use e.g. "demo.echo", "demo.*", "*")`,
			`config: f.json: /whitelist/3: "demo.*" is listed twice (also at /whitelist/2)`,
			`config: f.json: /blacklist/0: "" is not a tool name or pattern (use e.g. "demo.echo", "demo.*", "*")`,
			`config: f.json: /tools/Demo.Slow: "Demo.Slow" is not a tool name: names are lower snake case segments joined by dots, like "demo.echo" or "fs.read_file"`,
			`config: f.json: /tools/demo.*: "demo.*" is a pattern, not a tool name: tools are keyed by exact name, like "demo.echo"`,
		}},
		{"confinement: unknown keys", `{"confinment": {}, "confinement": {"allowed_root": [], "poolSize": 1, "max_limits": {"open_file": 3, "cpu": 1}, "color": 1}}`, []string{
			`config: f.json: /confinment: unknown key (did you mean "confinement"?)`,
			`config: f.json: /confinement/allowed_root: unknown key (did you mean "allowed_roots"?)`,
			`config: f.json: /confinement/poolSize: unknown key (did you mean "pool_size"?)`,
			`config: f.json: /confinement/max_limits/open_file: unknown key (did you mean "open_files"?)`,
			`config: f.json: /confinement/max_limits/cpu: unknown key (known keys: cpu_seconds, file_size_bytes, memory_bytes, open_files, processes, tmp_bytes, tmp_inodes)`,
			`config: f.json: /confinement/color: unknown key (known keys: allow_unconfined, allowed_ports, allowed_roots, max_limits, pool_size, workspace)`,
		}},
		{"confinement: wrong types", `{"confinement": {"workspace": 3, "allowed_roots": "/srv", "allowed_ports": ["22", 1.5, null], "max_limits": [], "allow_unconfined": "no", "pool_size": "2"}}`, []string{
			`config: f.json: /confinement/workspace: must be a string, got number`,
			`config: f.json: /confinement/allowed_roots: must be an array, got string`,
			`config: f.json: /confinement/allowed_ports/0: must be an integer, got string`,
			`config: f.json: /confinement/allowed_ports/1: must be an integer, got 1.5`,
			`config: f.json: /confinement/allowed_ports/2: must be an integer, got null`,
			`config: f.json: /confinement/max_limits: must be an object, got array`,
			`config: f.json: /confinement/allow_unconfined: must be a boolean, got string`,
			`config: f.json: /confinement/pool_size: must be an integer, got string`,
		}},
		{"confinement: not an object", `{"confinement": null}`, []string{
			`config: f.json: /confinement: must be an object, got null`,
		}},
		{"confinement: workspace with a NUL byte", `{"confinement": {"workspace": "work\u0000space"}}`, []string{
			`config: f.json: /confinement/workspace: must not contain a NUL byte, got "work\x00space"`,
		}},
		{"confinement: allowed roots", `{"confinement": {"allowed_roots": ["/srv", "data", "", "./x", "/srv", "/srv/", "/x\u0000", "y\u0000"]}}`, []string{
			`config: f.json: /confinement/allowed_roots/1: must be an absolute path, got "data"`,
			`config: f.json: /confinement/allowed_roots/2: must be an absolute path, got ""`,
			`config: f.json: /confinement/allowed_roots/3: must be an absolute path, got "./x"`,
			`config: f.json: /confinement/allowed_roots/4: "/srv" is listed twice (also at /confinement/allowed_roots/0)`,
			`config: f.json: /confinement/allowed_roots/5: "/srv/" is listed twice, as "/srv" (also at /confinement/allowed_roots/0)`,
			`config: f.json: /confinement/allowed_roots/6: must not contain a NUL byte, got "/x\x00"`,
			`config: f.json: /confinement/allowed_roots/7: must not contain a NUL byte, got "y\x00"`,
		}},
		{"confinement: allowed ports", `{"confinement": {"allowed_ports": [0, 65536, 80, 80, -1, 1e10]}}`, []string{
			`config: f.json: /confinement/allowed_ports/0: must be at least 1, got 0`,
			`config: f.json: /confinement/allowed_ports/1: must be at most 65535, got 65536`,
			`config: f.json: /confinement/allowed_ports/3: 80 is listed twice (also at /confinement/allowed_ports/2)`,
			`config: f.json: /confinement/allowed_ports/4: must be at least 1, got -1`,
			`config: f.json: /confinement/allowed_ports/5: must be at most 65535, got 1e10`,
		}},
		{"confinement: limits", `{"confinement": {"max_limits": {"cpu_seconds": -1, "memory_bytes": 1e30, "open_files": 2.5, "file_size_bytes": 99999999999999999999, "processes": "8"}}}`, []string{
			`config: f.json: /confinement/max_limits/cpu_seconds: must be at least 0, got -1`,
			`config: f.json: /confinement/max_limits/memory_bytes: 1e30 is too large`,
			`config: f.json: /confinement/max_limits/open_files: must be an integer, got 2.5`,
			`config: f.json: /confinement/max_limits/file_size_bytes: 99999999999999999999 is too large`,
			`config: f.json: /confinement/max_limits/processes: must be an integer, got string`,
		}},
		{"confinement: pool size negative", `{"confinement": {"pool_size": -1}}`, []string{
			`config: f.json: /confinement/pool_size: must be at least 0, got -1`,
		}},
		{"confinement: pool size too large", `{"confinement": {"pool_size": 65}}`, []string{
			`config: f.json: /confinement/pool_size: must be at most 64, got 65`,
		}},
		{"confinement: key given twice", `{"confinement": {"pool_size": 1, "pool_size": 2}}`, []string{
			`config: f.json: /confinement/pool_size: key given twice`,
		}},
		{"key given twice", `{"enabled": true, "enabled": false}`, []string{
			`config: f.json: /enabled: key given twice`,
		}},
		{"several problems, in file order", `{
  "enabled": 1,
  "tools": {
    "demo.slow": {"timout": "1s", "burst": 0}
  },
  "default_timeout": "soon",
  "blackist": []
}`, []string{
			`config: f.json: /enabled: must be a boolean, got number`,
			`config: f.json: /tools/demo.slow/timout: unknown key (did you mean "timeout"?)`,
			`config: f.json: /tools/demo.slow/burst: must be at least 1, got 0`,
			`config: f.json: /default_timeout: "soon" is not a duration (use e.g. "500ms", "30s", "2m")`,
			`config: f.json: /blackist: unknown key (did you mean "blacklist"?)`,
		}},
		{"malformed: trailing comma", "{\n  \"enabled\": true,\n}", []string{
			`config: f.json: invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string`,
		}},
		{"malformed: missing comma", "{\n  \"enabled\": true\n  \"max_concurrent\": 1\n}", []string{
			`config: f.json: invalid JSON at line 3, column 3: invalid character '"' after object key:value pair`,
		}},
		{"malformed: comment", "{\n  // no comments in JSON\n}", []string{
			`config: f.json: invalid JSON at line 2, column 3: invalid character '/' looking for beginning of object key string`,
		}},
		{"malformed: truncated", `{"tools": {"demo.slow": {}`, []string{
			`config: f.json: invalid JSON at line 1, column 27: unexpected end of file (is a closing } or ] missing?)`,
		}},
		{"malformed: single quotes", `{'enabled': true}`, []string{
			`config: f.json: invalid JSON at line 1, column 2: invalid character '\'' looking for beginning of object key string`,
		}},
		{"trailing object", "{}\n{}", []string{
			`config: f.json: invalid JSON at line 2, column 1: unexpected data after the JSON object (only one object may be in the file)`,
		}},
		{"trailing garbage", `{"enabled": true} x`, []string{
			`config: f.json: invalid JSON at line 1, column 19: unexpected data after the JSON object (only one object may be in the file)`,
		}},
		{"nested too deeply", `{"tools": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, []string{
			`config: f.json: invalid JSON at line 1, column 75: nested more than 64 levels deep`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse([]byte(tt.in), "f.json")
			checkErrors(t, err, tt.want)
			if !reflect.DeepEqual(cfg, Config{}) {
				t.Errorf("Config on error = %+v, want the zero Config", cfg)
			}
		})
	}
}

func TestErrorPosition(t *testing.T) {
	in := "{\n  \"tools\": {\n    \"demo.slow\": {\"timout\": \"1s\", \"burst\": 0}\n  },\n  \"default_timeout\": \"ünïcode\"\n}"
	_, err := Parse([]byte(in), "f.json")
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("err = %v", err)
	}
	type pos struct {
		path         string
		line, column int
	}
	var got []pos
	for _, e := range es {
		got = append(got, pos{e.Path, e.Line, e.Column})
	}
	want := []pos{
		{"/tools/demo.slow/timout", 3, 19}, // the key
		{"/tools/demo.slow/burst", 3, 44},  // the value
		{"/default_timeout", 5, 22},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("positions = %v, want %v", got, want)
	}

	in = "{\n  \"confinement\": {\n    \"allowed_roots\": [\"/srv\", \"data\"],\n    \"max_limits\": {\"cpu_secs\": 1},\n    \"pool_size\": 99\n  }\n}"
	_, err = Parse([]byte(in), "f.json")
	if !errors.As(err, &es) {
		t.Fatalf("err = %v", err)
	}
	got = nil
	for _, e := range es {
		got = append(got, pos{e.Path, e.Line, e.Column})
	}
	want = []pos{
		{"/confinement/allowed_roots/1", 3, 31},     // the element
		{"/confinement/max_limits/cpu_secs", 4, 20}, // the key
		{"/confinement/pool_size", 5, 18},           // the value
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("positions = %v, want %v", got, want)
	}
}

func TestExampleFileLoads(t *testing.T) {
	cfg, err := Load("toolexplorer.json")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Source != "toolexplorer.json" {
		t.Errorf("Source = %q", cfg.Source)
	}
	if cfg.Tools["demo.slow"].Timeout != 200*time.Millisecond {
		t.Errorf("demo.slow timeout = %v", cfg.Tools["demo.slow"].Timeout)
	}
	if cfg.MaxOutputBytes != Default().MaxOutputBytes {
		t.Errorf("MaxOutputBytes = %d, want the default %d", cfg.MaxOutputBytes, Default().MaxOutputBytes)
	}
	if !slices.Contains(cfg.Blacklist, "demo.fail") {
		t.Error("demo.fail is not blacklisted; the example blacklists it")
	}
	if !reflect.DeepEqual(cfg.Confinement, Default().Confinement) {
		t.Errorf("Confinement = %+v, want the defaults %+v", cfg.Confinement, Default().Confinement)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.json")
	_, err := Load(missing)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Load(missing) = %v, want fs.ErrNotExist", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Source != missing || e.Message != "cannot open: no such file or directory" {
		t.Fatalf("Load(missing) = %#v", e)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"max_concurrent": 0}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad)
	checkErrors(t, err, []string{"config: " + bad + ": /max_concurrent: must be at least 1, got 0"})
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "{}", `{"enabled": false}`, `{"tools": {"demo.slow": {"timeout": "1s", "burst": 2}}}`,
		`{"whitelist": ["demo.*", "*"]}`, `{"default_timeout": "-1s"}`, `{"max_concurrent": 1e3}`,
		`{"a": [1, {"b": null}]}`, `{"enabled": true} {}`, `{"tools": {"A": 1}}`,
		`{"confinement": {"workspace": "ws", "allowed_roots": ["/srv/", "/srv"], "allowed_ports": [80, 0], "max_limits": {"cpu_seconds": 1}, "pool_size": 64}}`,
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile("toolexplorer.json"); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse(data, "fuzz.json")
		if err != nil {
			var es Errors
			if !errors.As(err, &es) || len(es) == 0 {
				t.Fatalf("error %T %v is not a non-empty Errors", err, err)
			}
			for _, e := range es {
				if e.Source != "fuzz.json" || e.Message == "" {
					t.Fatalf("bad problem %#v", e)
				}
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Parse accepted a Config that Validate refuses: %v", err)
		}
	})
}

func TestParseDurations(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"1ns", time.Nanosecond},
		{"2us", 2 * time.Microsecond},
		{"2µs", 2 * time.Microsecond}, // U+00B5 micro sign
		{"2μs", 2 * time.Microsecond}, // U+03BC Greek mu
		{"500ms", 500 * time.Millisecond},
		{"1.5s", 1500 * time.Millisecond},
		{"2m", 2 * time.Minute},
		{"1h2m3s", time.Hour + 2*time.Minute + 3*time.Second},
		{"0.5h", 30 * time.Minute},
	}
	for _, tt := range tests {
		cfg, err := Parse([]byte(`{"default_timeout": "`+tt.in+`"}`), "f.json")
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if cfg.DefaultTimeout != tt.want {
			t.Errorf("%q = %v, want %v", tt.in, cfg.DefaultTimeout, tt.want)
		}
	}
}

func TestToolFilesBesideTheConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	if err := os.WriteFile(path, []byte(`{"tool_files": ["tools", "/srv/tools/shop.yaml"], "env_file": ".env", "shadow": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cfg.ToolFiles, ",") != filepath.Join(dir, "tools")+",/srv/tools/shop.yaml" || cfg.EnvFile != filepath.Join(dir, ".env") || !cfg.Shadow {
		t.Fatalf("tool_files %q env_file %q shadow %v", cfg.ToolFiles, cfg.EnvFile, cfg.Shadow)
	}
	if _, err := Parse([]byte(`{"tool_files": "tools"}`), "f.json"); err == nil {
		t.Fatal("tool_files as a string was accepted")
	}
}

func TestParseKeys(t *testing.T) {
	cfg, err := Parse([]byte(`{"keys":{"list.run":["x","ctrl+r"],"viewer.copy":["c"]}}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(cfg.Keys); got != "map[list.run:[x ctrl+r] viewer.copy:[c]]" {
		t.Fatalf("keys %s", got)
	}
	for _, bad := range []string{`{"keys":{"list.run":[]}}`, `{"keys":{"Run":["x"]}}`, `{"keys":{"list.run":"x"}}`, `{"keys":{"list.run":[""]}}`} {
		if _, err := Parse([]byte(bad), "f.json"); err == nil {
			t.Errorf("%s parsed", bad)
		}
	}
}

func TestAccessSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.json")
	if err := os.WriteFile(path, []byte(`{"access": {"default": "deny", "cedar": ["p.cedar"], "rules": [{"name": "r", "effect": "deny", "tools": ["shop.*"], "roles": ["support"], "origins": ["llm"], "read_only": true}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Access.Rules
	if len(cfg.Access.Cedar) != 1 || cfg.Access.Cedar[0] != filepath.Join(filepath.Dir(path), "p.cedar") {
		t.Fatalf("cedar files: %q", cfg.Access.Cedar)
	}
	if !cfg.Access.DefaultDeny || len(r) != 1 || !r[0].Deny || r[0].Name != "r" || r[0].Tools[0] != "shop.*" || r[0].Roles[0] != "support" || r[0].Origins[0] != "llm" || !r[0].ReadOnly {
		t.Fatalf("%+v", cfg.Access)
	}
	if err := os.WriteFile(path, []byte(`{"access": {"rules": [{"effect": "maybe"}]}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "/access/rules/0") {
		t.Fatalf("a rule without tools and with a bad effect: %v", err)
	}
}

func TestBudgetsAndLimitsSections(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(path, []byte(`{"budgets": [{"name": "b", "tools": ["lab.*"], "per": "tenant", "window": "hour", "calls": 3, "bytes_in": 4, "bytes_out": 5, "cpu_ms": 6}],
		"limits": [{"name": "l", "tools": ["*"], "per": "tenant", "per_minute": 1.5, "burst": 2}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Budget{Name: "b", Tools: []string{"lab.*"}, PerTenant: true, Window: time.Hour, Calls: 3, BytesIn: 4, BytesOut: 5, CPUMillis: 6}
	if len(cfg.Budgets) != 1 || fmt.Sprint(cfg.Budgets[0]) != fmt.Sprint(want) {
		t.Fatalf("budgets %+v", cfg.Budgets)
	}
	if l := cfg.Limits; len(l) != 1 || l[0].Name != "l" || l[0].Tools[0] != "*" || !l[0].PerTenant || l[0].PerMinute != 1.5 || l[0].Burst != 2 {
		t.Fatalf("limits %+v", cfg.Limits)
	}
	if err := os.WriteFile(path, []byte(`{"limits": [{"tools": ["*"], "per_minute": -1, "burst": 0}], "budgets": [{"tools": ["*"], "window": "hour", "cpu_ms": 0}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path)
	for _, want := range []string{"/limits/0/per_minute", "/limits/0/burst", "/budgets/0/cpu_ms"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %s", err, want)
		}
	}
}

func TestParseTelemetryAndState(t *testing.T) {
	cfg, err := Parse([]byte(`{
		"telemetry": {"otlp": {"endpoint": "http://collector:4318", "headers": {"x-key": "k"}, "interval": "10s"}, "content": true},
		"state": {"redis": {"addr": "127.0.0.1:6379", "prefix": "te", "timeout": "50ms", "on_failure": "local", "db": 2}}
	}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	o := cfg.Telemetry.OTLP
	if o == nil || o.Endpoint != "http://collector:4318" || o.Headers["x-key"] != "k" || o.Interval != 10*time.Second || !cfg.Telemetry.Content || cfg.Telemetry.Subject {
		t.Fatalf("telemetry %+v, otlp %+v", cfg.Telemetry, o)
	}
	r := cfg.State.Redis
	if r == nil || r.Addr != "127.0.0.1:6379" || r.Prefix != "te" || r.Timeout != 50*time.Millisecond || !r.FailOpen || r.DB != 2 {
		t.Fatalf("redis %+v", r)
	}
	for _, bad := range []string{
		`{"telemetry": {"otlp": {"endpoint": "collector:4318"}}}`,
		`{"state": {"redis": {"addr": "x:1", "on_failure": "open"}}}`,
		`{"state": {"redis": {}}}`,
	} {
		if _, err := Parse([]byte(bad), "f.json"); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// Environments of variables: a value as a string or an object, read from
// the process's environment, secret; a variable's name that a {{name}}
// reference could not spell is refused.
func TestEnvironments(t *testing.T) {
	cfg, err := Parse([]byte(`{"environments": {"dev": {"base": "http://127.0.0.1:8080", "token": {"from_env": "SHOP_TOKEN", "secret": true}}, "none": {}}}`), "c.json")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Environment{
		"dev":  {"base": {Value: "http://127.0.0.1:8080"}, "token": {FromEnv: "SHOP_TOKEN", Secret: true}},
		"none": {},
	}
	if !reflect.DeepEqual(cfg.Environments, want) {
		t.Fatalf("Environments = %+v", cfg.Environments)
	}
	for _, bad := range []string{
		`{"environments": {"dev": {"a b": "x"}}}`,
		`{"environments": {"dev": {"a": {"valu": "x"}}}}`,
		`{"environments": {"dev": {"a": 3}}}`,
	} {
		if _, err := Parse([]byte(bad), "c.json"); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
