package config

import (
	"encoding/json"
	"fmt"
	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"math"
	"slices"
	"sort"
	"time"
)

// Defaults of the keys a file leaves out; schema.json says the same.
const (
	defaultTimeout          = 30 * time.Second
	defaultMaxConcurrent    = 256
	defaultMaxArgumentBytes = 1 << 20
	defaultMaxOutputBytes   = 16 << 20
	defaultMaxFieldErrors   = 100
)

// Config is the configuration of toolexplorer. Its zero value is the
// default configuration: every zero field means the default its comment
// names (WithDefaults spells them out).
type Config struct {
	// Disabled is the master switch: true refuses every call with code
	// "disabled" (the file's "enabled": false). Zero: tools are enabled.
	Disabled bool
	// DefaultTimeout is the timeout of the tools that declare none.
	// Zero: 30s.
	DefaultTimeout time.Duration
	// MaxConcurrent bounds the calls running at once across all tools.
	// Zero: 256.
	MaxConcurrent int
	// MaxArgumentBytes bounds the size of a call's arguments; larger ones
	// are refused. Zero: 1 MiB.
	MaxArgumentBytes int64
	// MaxOutputBytes bounds the size of a tool's output once encoded as
	// JSON; a call whose output is larger fails with code "output_invalid".
	// Zero: 16 MiB.
	MaxOutputBytes int64
	// MaxFieldErrors is how many failing fields a refused call lists (the
	// first ones by path); the result counts the others. Zero: 100.
	MaxFieldErrors int
	// Whitelist holds tool names or patterns (see Match). When not empty,
	// only the tools it matches are enabled.
	Whitelist []string
	// Blacklist holds tool names or patterns that are disabled. The
	// whitelist wins when both match: a non-empty whitelist alone decides.
	Blacklist []string
	// DangerousToolConfirmation makes the console ask before every
	// side-effecting tool, not only those that require consent. Default
	// false.
	DangerousToolConfirmation bool
	// Tools holds runtime overrides by exact tool name. Nil when none.
	Tools map[string]ToolOverride
	// Confinement bounds the tools that run confined; it only narrows what
	// they declare. Default: nothing narrowed, confinement required, pools
	// of 2 workers.
	Confinement ConfinementBounds
	// Servers are the MCP servers whose tools join the registry, by name
	// (the group of their tools). Nil when none.
	Servers map[string]Server
	// Serve configures the MCP listener of the serve command.
	Serve Serve
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
	// Keys rebinds the console's keys: a key's name (like "list.run" or
	// "viewer.copy", listed in the README) to the keys that do it. Nil when
	// none: the console's own keys.
	Keys map[string][]string
	// Source is the file the Config was loaded from, "" for Default().
	Source string
}

// ToolOverride narrows what one tool declares at runtime: a shorter timeout,
// a lower rate or burst, or disabled. It never widens a declaration: a
// longer timeout or a higher rate than the tool's own is ignored (a tool
// that declares none gets the override). A zero field keeps the tool's own
// value.
type ToolOverride struct {
	Timeout       time.Duration // 0 = no override
	RatePerMinute float64       // 0 = no override
	Burst         int           // 0 = no override
	Disabled      bool          // disables the tool, whatever the whitelist says
}

// Default returns the configuration used when there is no file, and the
// starting point of Parse: the zero Config with its defaults spelled out.
func Default() Config { return Config{}.WithDefaults() }

// WithDefaults returns c with every zero field that stands for a default
// set to that default, so that a reader of the result needs no rule about
// zero values.
func (c Config) WithDefaults() Config {
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	if c.DefaultTimeout == 0 {
		c.DefaultTimeout = defaultTimeout
	}
	if c.MaxConcurrent == 0 {
		c.MaxConcurrent = defaultMaxConcurrent
	}
	def(&c.MaxArgumentBytes, defaultMaxArgumentBytes)
	def(&c.MaxOutputBytes, defaultMaxOutputBytes)
	if c.MaxFieldErrors == 0 {
		c.MaxFieldErrors = defaultMaxFieldErrors
	}
	if c.Confinement.PoolSize == 0 {
		c.Confinement.PoolSize = defaultPoolSize
	}
	return c
}

// ToolEnabled reports whether c lets the tool named name run, and if not,
// why, in words fit for a refusal with code "disabled". In order: the
// master switch, the tool's Disabled override, then the whitelist when it
// is not empty (only the tools it matches are enabled), else the blacklist.
func (c Config) ToolEnabled(name string) (ok bool, reason string) {
	if c.Disabled {
		return false, "every tool is disabled by the config (enabled: false)"
	}
	if c.Tools[name].Disabled {
		return false, fmt.Sprintf("%s is disabled by the config (tools.%s.disabled)", name, name)
	}
	if len(c.Whitelist) > 0 {
		for _, p := range c.Whitelist {
			if Match(p, name) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("%s is not in the config whitelist", name)
	}
	for _, p := range c.Blacklist {
		if Match(p, name) {
			return false, fmt.Sprintf("%s is disabled by the config blacklist (%q)", name, p)
		}
	}
	return true, ""
}

// Validate checks a Config built in Go against the rules a file obeys, with
// the same messages and JSON pointer paths (such as /tools/demo.slow/timeout).
// In Go, a zero field means its default and is valid (a zero ToolOverride
// field means "no override"), and Confinement.AllowedRoots must already be
// clean (Parse cleans them). The error, when not nil, is an Errors.
func (c Config) Validate() error {
	p := &problems{source: c.Source}
	if c.DefaultTimeout < 0 {
		p.add("/default_timeout", "must be a positive duration, got %s (0 means the default, %s)", c.DefaultTimeout, time.Duration(defaultTimeout))
	}
	for _, f := range []struct {
		at   string
		v, d int64
	}{
		{"/max_concurrent", int64(c.MaxConcurrent), defaultMaxConcurrent},
		{"/max_argument_bytes", c.MaxArgumentBytes, defaultMaxArgumentBytes},
		{"/max_output_bytes", c.MaxOutputBytes, defaultMaxOutputBytes},
		{"/max_field_errors", int64(c.MaxFieldErrors), defaultMaxFieldErrors},
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
		if o.RatePerMinute < 0 || math.IsNaN(o.RatePerMinute) || math.IsInf(o.RatePerMinute, 0) {
			p.add(at+"/rate_per_minute", "must be a finite number, 0 or more, got %v (0 keeps the tool's own)", o.RatePerMinute)
		}
		if o.Burst < 0 {
			p.add(at+"/burst", "must not be negative, got %d (0 keeps the tool's own)", o.Burst)
		}
	}
	p.checkConfinement(c.Confinement)
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
		fo := fileOverride{RatePerMinute: o.RatePerMinute, Burst: o.Burst, Disabled: o.Disabled}
		if o.Timeout != 0 {
			fo.Timeout = o.Timeout.String()
		}
		f.Tools[name] = fo
	}
	return json.Marshal(f)
}
