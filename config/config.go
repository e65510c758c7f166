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

// Config is the configuration of toolexplorer.
type Config struct {
	// Enabled is the master switch: false refuses every call with code
	// "disabled". Default true.
	Enabled bool
	// DefaultTimeout is the timeout of the tools that declare none.
	// Default 30s.
	DefaultTimeout time.Duration
	// MaxConcurrent bounds the calls running at once across all tools.
	// Default 256.
	MaxConcurrent int
	// MaxArgumentBytes bounds the size of a call's arguments; larger ones
	// are refused. Default 1 MiB.
	MaxArgumentBytes int64
	// MaxOutputBytes bounds the size of a tool's output once encoded as
	// JSON; a call whose output is larger fails with code "output_invalid".
	// Default 16 MiB.
	MaxOutputBytes int64
	// MaxFieldErrors is how many failing fields a refused call lists (the
	// first ones by path); the result counts the others. Default 100.
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
	// Confinement is the policy of the tools that run confined; it only
	// narrows what they declare. Default: nothing narrowed, confinement
	// required, pools of 2 workers.
	Confinement Confinement
	// Servers are the MCP servers whose tools join the registry, by name
	// (the group of their tools). Nil when none.
	Servers map[string]Server
	// Serve configures the MCP listener of the serve command.
	Serve Serve
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
// starting point of Parse.
func Default() Config {
	return Config{
		Enabled:          true,
		DefaultTimeout:   defaultTimeout,
		MaxConcurrent:    defaultMaxConcurrent,
		MaxArgumentBytes: defaultMaxArgumentBytes,
		MaxOutputBytes:   defaultMaxOutputBytes,
		MaxFieldErrors:   defaultMaxFieldErrors,
		Confinement:      Confinement{PoolSize: defaultPoolSize},
	}
}

// ToolEnabled reports whether c lets the tool named name run, and if not,
// why, in words fit for a refusal with code "disabled". In order: the
// master switch, the tool's Disabled override, then the whitelist when it
// is not empty (only the tools it matches are enabled), else the blacklist.
func (c Config) ToolEnabled(name string) (ok bool, reason string) {
	if !c.Enabled {
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
// In Go, a zero ToolOverride field means "no override" and is valid, and
// Confinement.AllowedRoots must already be clean (Parse cleans them). The
// error, when not nil, is an Errors.
func (c Config) Validate() error {
	p := &problems{source: c.Source}
	if c.DefaultTimeout <= 0 {
		p.add("/default_timeout", "must be a positive duration, got %s", c.DefaultTimeout)
	}
	if c.MaxConcurrent < 1 {
		p.add("/max_concurrent", "must be at least 1, got %d", c.MaxConcurrent)
	}
	if c.MaxArgumentBytes < 1 {
		p.add("/max_argument_bytes", "must be at least 1, got %d", c.MaxArgumentBytes)
	}
	if c.MaxOutputBytes < 1 {
		p.add("/max_output_bytes", "must be at least 1, got %d", c.MaxOutputBytes)
	}
	if c.MaxFieldErrors < 1 {
		p.add("/max_field_errors", "must be at least 1, got %d", c.MaxFieldErrors)
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
// for showing the configuration in effect.
func (c Config) MarshalJSON() ([]byte, error) {
	f := fileConfig{
		Enabled:                   c.Enabled,
		DefaultTimeout:            c.DefaultTimeout.String(),
		MaxConcurrent:             c.MaxConcurrent,
		MaxArgumentBytes:          c.MaxArgumentBytes,
		MaxOutputBytes:            c.MaxOutputBytes,
		MaxFieldErrors:            c.MaxFieldErrors,
		Whitelist:                 c.Whitelist,
		Blacklist:                 c.Blacklist,
		DangerousToolConfirmation: c.DangerousToolConfirmation,
		Tools:                     make(map[string]fileOverride, len(c.Tools)),
		Confinement: fileConfinement{
			Workspace:       c.Confinement.Workspace,
			AllowedRoots:    c.Confinement.AllowedRoots,
			AllowedPorts:    c.Confinement.AllowedPorts,
			MaxLimits:       fileLimits(c.Confinement.MaxLimits),
			AllowUnconfined: c.Confinement.AllowUnconfined,
			PoolSize:        c.Confinement.PoolSize,
		},
	}
	if f.Whitelist == nil {
		f.Whitelist = []string{}
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
