package config

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Config is the configuration of toolexplorer: the registry's Settings,
// which Registry.Configure takes, and the keys of the application (the
// console, the servers, the tools files). Its zero value is the default
// configuration: every zero field means the default its comment names
// (WithDefaults spells them out).
type Config struct {
	// Settings are the keys that configure the registry: "enabled"
	// (Disabled), default_timeout, the max_ bounds, whitelist, blacklist,
	// tools (per-tool overrides) and confinement. Source is the file the
	// Config was loaded from, "" for Default().
	tooling.Settings
	// DangerousToolConfirmation makes the console ask before every
	// side-effecting tool, not only those that require consent. Default
	// false.
	DangerousToolConfirmation bool
	// Servers are the MCP servers whose tools join the registry, by name
	// (the group of their tools). Nil when none.
	Servers map[string]Server
	// Inputs are the values a server's ${input:ID} asks for, by ID, as VS
	// Code's mcp.json declares them ("inputs"). Nil when none.
	Inputs map[string]Input
	// Serve configures the MCP listener of the serve command.
	Serve Serve
	// Access says who may see and call which tools. Zero: everyone, all.
	Access Access
	// Budgets bound what each subject or tenant spends on tools over a
	// window. Nil: none.
	Budgets []Budget
	// Idempotency says where the outcomes of keyed calls are kept.
	// Zero: in memory.
	Idempotency Idempotency
	// Limits bound how often each subject or tenant calls tools. Nil:
	// none.
	Limits []Limit
	// Ledger configures the ledger of every call. Zero: kept, at the
	// default place.
	Ledger Ledger
	// Telemetry configures traces and metrics. Zero: none exported.
	Telemetry Telemetry
	// State configures the state shared across replicas. Zero: none.
	State State
	// ToolFiles are tools files, and directories of them, whose tools join
	// the registry; a relative path is relative to the config file. Nil
	// when none.
	ToolFiles []string
	// EnvFile is a file of NAME=VALUE lines that the credentials of tools
	// files (${NAME}) are read from when the environment does not set them;
	// relative to the config file. "" for none.
	EnvFile string
	// Shadow makes every write of a tools file's tool a shadow call: built
	// and returned, never sent. Default false.
	Shadow bool
	// Environments are sets of variables, by name, that fill the
	// {{name}} references of calls' arguments. Nil when none.
	Environments map[string]Environment
	// Keys rebinds the console's keys: a key's name (like "list.run" or
	// "viewer.copy", listed in docs/console.md) to the keys that do it. Nil when
	// none: the console's own keys.
	Keys map[string][]string
}

// Input is a value a server's config asks for with ${input:ID}: its
// description, and whether it is a secret (VS Code's "password": true),
// which the console masks as it is typed.
type Input struct {
	Description string
	Password    bool
}

// Environment is a set of variables, by name.
type Environment map[string]Variable

// Variable is one variable of an environment: its value, or the
// environment variable of the process it is read from (FromEnv, which wins
// when it is set); a Secret is never shown nor kept.
type Variable struct {
	Value   string
	FromEnv string
	Secret  bool
}

// Default returns the configuration used when there is no file, and the
// starting point of Parse: the zero Config with its defaults spelled out.
func Default() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with every zero field that stands for a default
// set to that default (tooling.Settings.WithDefaults), so that a reader of
// the result needs no rule about zero values.
func (c Config) WithDefaults() Config {
	c.Settings = c.Settings.WithDefaults()
	if c.Idempotency.Store == "" {
		c.Idempotency.Store = IdempotencyMemory
	}
	return c
}

// Validate checks a Config built in Go against the rules a file obeys, with
// the same messages and JSON pointer paths (such as /tools/demo.slow/timeout).
// In Go, a zero field means its default and is valid (a zero tooling.Override
// field means "no override"), and Confinement.AllowedRoots must already be
// clean (Parse cleans them). The error, when not nil, is an Errors.
func (c Config) Validate() error {
	p := &problems{source: c.Source}
	d := Default()
	if c.DefaultTimeout < 0 {
		p.add("/default_timeout", "must be a positive duration, got %s (0 means the default, %s)", c.DefaultTimeout, d.DefaultTimeout)
	}
	for _, f := range []struct {
		at   string
		v, d int64
	}{
		{"/max_concurrent", int64(c.MaxConcurrent), int64(d.MaxConcurrent)},
		{"/max_argument_bytes", c.MaxArgumentBytes, d.MaxArgumentBytes},
		{"/max_output_bytes", c.MaxOutputBytes, d.MaxOutputBytes},
		{"/max_field_errors", int64(c.MaxFieldErrors), int64(d.MaxFieldErrors)},
	} {
		if f.v < 0 {
			p.add(f.at, "must be at least 1, got %d (0 means the default, %d)", f.v, f.d)
		}
	}
	p.checkPatterns("/whitelist", c.Whitelist)
	p.checkPatterns("/blacklist", c.Blacklist)
	names := make([]string, 0, len(c.Tools))
	for name := range c.Tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		o := c.Tools[name]
		at := "/tools/" + jsonpointer.Escape(name)
		if !ValidName(name) {
			p.add(at, "%s", nameMessage(name))
		}
		if o.Timeout < 0 {
			p.add(at+"/timeout", "must not be negative, got %s (0 keeps the tool's own)", o.Timeout)
		}
		if o.Rate.PerMinute < 0 || math.IsNaN(o.Rate.PerMinute) || math.IsInf(o.Rate.PerMinute, 0) {
			p.add(at+"/rate_per_minute", "must be a finite number, 0 or more, got %v (0 keeps the tool's own)", o.Rate.PerMinute)
		}
		if o.Rate.Burst < 0 {
			p.add(at+"/burst", "must not be negative, got %d (0 keeps the tool's own)", o.Rate.Burst)
		}
		switch o.State {
		case "", tooling.StateEnabled, tooling.StatePaused, tooling.StateDeprecated:
		default:
			p.add(at+"/state", "must be enabled, paused or deprecated, got %q", o.State)
		}
		if o.Rate.Key != "" {
			p.add(at, "a rate key cannot be overridden, got %q: which bucket a tool shares is its own declaration", o.Rate.Key)
		}
	}
	p.checkConfinement(c.Confinement)
	p.checkIdempotency(&c)
	p.checkServe(c.Serve)
	return p.err()
}

func (p *problems) checkPatterns(at string, list []string) {
	for i, s := range list {
		if !ValidPattern(s) {
			p.add(fmt.Sprintf("%s/%d", at, i), "%s", patternMessage(s))
		}
		if j := slices.Index(list[:i], s); j >= 0 {
			p.add(fmt.Sprintf("%s/%d", at, i), "%q is listed twice (also at %s/%d)", s, at, j)
		}
	}
}

// fileConfig is the shape of the file, for MarshalJSON.
type fileConfig struct {
	Enabled                   bool                    `json:"enabled"`
	DefaultTimeout            string                  `json:"default_timeout"`
	MaxConcurrent             int                     `json:"max_concurrent"`
	MaxArgumentBytes          int64                   `json:"max_argument_bytes"`
	MaxOutputBytes            int64                   `json:"max_output_bytes"`
	MaxFieldErrors            int                     `json:"max_field_errors"`
	Whitelist                 []string                `json:"whitelist"`
	Blacklist                 []string                `json:"blacklist"`
	DangerousToolConfirmation bool                    `json:"dangerous_tool_confirmation"`
	Tools                     map[string]fileOverride `json:"tools"`
	Confinement               fileConfinement         `json:"confinement"`
	Idempotency               fileIdempotency         `json:"idempotency"`
	ToolFiles                 []string                `json:"tool_files"`
	EnvFile                   string                  `json:"env_file,omitempty"`
	Shadow                    bool                    `json:"shadow"`
	Keys                      map[string][]string     `json:"keys,omitempty"`
}

type fileOverride struct {
	Timeout       string  `json:"timeout,omitempty"`
	RatePerMinute float64 `json:"rate_per_minute,omitempty"`
	Burst         int     `json:"burst,omitempty"`
	Disabled      bool    `json:"disabled,omitempty"`
	State         string  `json:"state,omitempty"`
	Reason        string  `json:"reason,omitempty"`
	Replacement   string  `json:"replacement,omitempty"`
}

type fileConfinement struct {
	Workspace       string     `json:"workspace"`
	AllowedRoots    []string   `json:"allowed_roots"`
	AllowedPorts    []uint16   `json:"allowed_ports"`
	MaxLimits       fileLimits `json:"max_limits"`
	AllowUnconfined bool       `json:"allow_unconfined"`
	PoolSize        int        `json:"pool_size"`
}

type fileLimits struct {
	CPUSeconds    int   `json:"cpu_seconds"`
	MemoryBytes   int64 `json:"memory_bytes"`
	OpenFiles     int   `json:"open_files"`
	FileSizeBytes int64 `json:"file_size_bytes"`
	Processes     int   `json:"processes"`
	TmpBytes      int64 `json:"tmp_bytes"`
	TmpInodes     int   `json:"tmp_inodes"`
}

// MarshalJSON writes c in the shape of the file, every key present, so that
// Parse reads it back to the same Config (Source aside, and with it the
// directory a relative confinement workspace is relative to). It is meant
// for showing the configuration in effect: a zero field is written as the
// default it stands for.
func (c Config) MarshalJSON() ([]byte, error) {
	c = c.WithDefaults()
	f := fileConfig{
		Enabled:                   !c.Disabled,
		DefaultTimeout:            c.DefaultTimeout.String(),
		MaxConcurrent:             c.MaxConcurrent,
		MaxArgumentBytes:          c.MaxArgumentBytes,
		MaxOutputBytes:            c.MaxOutputBytes,
		MaxFieldErrors:            c.MaxFieldErrors,
		Whitelist:                 c.Whitelist,
		Blacklist:                 c.Blacklist,
		DangerousToolConfirmation: c.DangerousToolConfirmation,
		Tools:                     make(map[string]fileOverride, len(c.Tools)),
		ToolFiles:                 c.ToolFiles,
		EnvFile:                   c.EnvFile,
		Shadow:                    c.Shadow,
		Keys:                      c.Keys,
		Idempotency: fileIdempotency{TTL: c.IdempotencyTTL.String(), MaxBytes: c.IdempotencyMaxBytes,
			Store: c.Idempotency.Store, Path: c.Idempotency.Path},
		Confinement: fileConfinement{
			Workspace:       c.Confinement.Workspace,
			AllowedRoots:    c.Confinement.AllowedRoots,
			AllowedPorts:    c.Confinement.AllowedPorts,
			MaxLimits:       fileLimits(c.Confinement.MaxLimits),
			AllowUnconfined: c.Confinement.AllowUnconfined,
			PoolSize:        max(c.Confinement.PoolSize, 0),
		},
	}
	if f.Whitelist == nil {
		f.Whitelist = []string{}
	}
	if f.ToolFiles == nil {
		f.ToolFiles = []string{}
	}
	if f.Blacklist == nil {
		f.Blacklist = []string{}
	}
	if f.Confinement.AllowedRoots == nil {
		f.Confinement.AllowedRoots = []string{}
	}
	if f.Confinement.AllowedPorts == nil {
		f.Confinement.AllowedPorts = []uint16{}
	}
	for name, o := range c.Tools {
		fo := fileOverride{RatePerMinute: o.Rate.PerMinute, Burst: o.Rate.Burst, Disabled: o.Disabled,
			State: string(o.State), Reason: o.StateReason, Replacement: o.Replacement}
		if o.Timeout != 0 {
			fo.Timeout = o.Timeout.String()
		}
		f.Tools[name] = fo
	}
	return json.Marshal(f)
}
