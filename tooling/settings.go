package tooling

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/toolname"
)

// The defaults of the zero fields of Settings.
const (
	defaultTimeout          = 30 * time.Second
	defaultMaxConcurrent    = 256
	defaultMaxArgumentBytes = 1 << 20
	defaultMaxOutputBytes   = 16 << 20
	defaultMaxFieldErrors   = 100
	defaultPoolSize         = 2
	defaultIdempotencyTTL   = 24 * time.Hour
	defaultIdempotencyBytes = 1 << 20
)

// Settings are what a host sets for every tool of a registry (Configure):
// a master switch, bounds, which tools are enabled, and per-tool overrides
// that can only narrow what a tool declares. The zero value is the default:
// each zero field means the default its comment names, and WithDefaults
// spells them out. Package config reads them from the config file, whose
// keys the messages of the registry name (max_output_bytes, tools.NAME).
type Settings struct {
	// Disabled is the master switch: true refuses every call with code
	// disabled. Zero: tools are enabled.
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
	// JSON; a call whose output is larger fails with code output_invalid.
	// Zero: 16 MiB.
	MaxOutputBytes int64
	// MaxFieldErrors is how many failing fields a refused call lists (the
	// first ones by path); the result counts the others. Zero: 100.
	MaxFieldErrors int
	// Whitelist holds tool names or patterns ("demo.*", "*.read", "*": a
	// segment "*" stands for one segment, and for the rest of the name as
	// the last one). When not empty, only the tools it matches are enabled.
	Whitelist []string
	// Blacklist holds tool names or patterns that are disabled. The
	// whitelist wins when both match: a non-empty whitelist alone decides.
	Blacklist []string
	// Tools holds overrides by exact tool name. Nil when none.
	Tools map[string]Override
	// Confinement bounds the tools that run confined; it only narrows what
	// they declare. Zero: nothing narrowed, confinement required, pools of
	// 2 workers.
	Confinement ConfinementBounds
	// IdempotencyTTL is how long the outcome of a call made with an
	// idempotency key is kept (Meta.IdempotencyKeys). Zero: 24h.
	IdempotencyTTL time.Duration
	// IdempotencyMaxBytes bounds the outcome kept for one key, once
	// encoded; the output of a larger one is not kept, only that the call
	// ran and how it ended, and a repeat is refused with code
	// idempotency_conflict, saying so, rather than run again. Zero: 1 MiB.
	IdempotencyMaxBytes int64
	// Source is the file the settings were read from, "" for none: a
	// confined tool is never granted to write it, and a relative
	// Confinement.Workspace is relative to its directory.
	Source string
}

// Override narrows what one tool declares: a shorter timeout, a lower rate
// or burst, or disabled. It never widens a declaration: a longer timeout or
// a higher rate than the tool's own is ignored (a tool that declares none
// gets the override). A zero field keeps the tool's own value.
type Override struct {
	Timeout time.Duration // 0 = no override
	// Rate narrows Meta.Rate: PerMinute and Burst, each 0 for no override.
	// Key must be empty: which bucket a tool shares is its own declaration.
	Rate     Rate
	Disabled bool // disables the tool, whatever the whitelist says
	// State puts the tool in a state (Registry.SetState): paused or
	// deprecated, with StateReason saying why and, when deprecated,
	// Replacement naming the tool to use instead. Zero: enabled.
	State       State
	StateReason string
	Replacement string
}

// ConfinementBounds bound the tools that run confined (what such a tool
// declares is its Confinement). They can only narrow what a tool declares:
// a path outside the allowed roots, a port not allowed or a limit above its
// cap is dropped or lowered, never added or raised.
type ConfinementBounds struct {
	// Workspace is the directory the confined tools work in ($WORKSPACE in
	// their paths): absolute, or relative to the directory of
	// Settings.Source (to the working directory without one). "" means
	// <os.UserCacheDir()>/toolexplorer/workspace, or
	// /var/lib/toolexplorer/workspace for a host running as root (the
	// confined children run as an unprivileged user, who cannot enter
	// root's cache). It is created when a tool that uses it is called.
	Workspace string
	// AllowedRoots bounds the paths a confined tool may be granted: only
	// those under one of these roots are kept (the workspace is always
	// allowed). Absolute and clean paths. Empty: the workspace and the
	// tool's own programs only.
	AllowedRoots []string
	// AllowedPorts, when not empty, bounds the TCP ports a confined tool may
	// be granted to connect to. Empty narrows nothing.
	AllowedPorts []uint16
	// MaxLimits caps the resource limits of a confined tool; a zero field
	// does not cap.
	MaxLimits Limits
	// AllowUnconfined lets a confined tool run without confinement when
	// confinement cannot be applied on this machine, every such result
	// saying so. Zero: such a call is refused with code
	// sandbox_unavailable.
	AllowUnconfined bool
	// PoolSize is the number of confined workers started ahead of the calls,
	// per profile. Zero: 2. Negative: none, a child started for every call.
	PoolSize int
}

// Limits are the resource limits of a confined tool's child process: the
// ones a tool declares (Confinement.Limits, where a zero field takes the
// default), and, as ConfinementBounds.MaxLimits, the caps on them (each
// positive field caps the tool's own limit, and a zero field does not cap).
type Limits struct {
	CPUSeconds    int   // CPU time, in seconds
	MemoryBytes   int64 // address space
	OpenFiles     int   // open file descriptors
	FileSizeBytes int64 // the largest file written
	Processes     int   // processes and threads
	TmpBytes      int64 // what the private temp dir may hold
	TmpInodes     int   // entries in the private temp dir
}

// WithDefaults returns s with every zero field that stands for a default
// set to that default.
func (s Settings) WithDefaults() Settings {
	def := func(v *int64, d int64) {
		if *v == 0 {
			*v = d
		}
	}
	if s.DefaultTimeout == 0 {
		s.DefaultTimeout = defaultTimeout
	}
	if s.MaxConcurrent == 0 {
		s.MaxConcurrent = defaultMaxConcurrent
	}
	def(&s.MaxArgumentBytes, defaultMaxArgumentBytes)
	def(&s.MaxOutputBytes, defaultMaxOutputBytes)
	if s.IdempotencyTTL == 0 {
		s.IdempotencyTTL = defaultIdempotencyTTL
	}
	def(&s.IdempotencyMaxBytes, defaultIdempotencyBytes)
	if s.MaxFieldErrors == 0 {
		s.MaxFieldErrors = defaultMaxFieldErrors
	}
	if s.Confinement.PoolSize == 0 {
		s.Confinement.PoolSize = defaultPoolSize
	}
	return s
}

// problems lists what Configure refuses in s: numbers that must not be
// negative, and rates that are not finite.
func (s Settings) problems() []string {
	var p []string
	neg := func(field string, v int64) {
		if v < 0 {
			p = append(p, fmt.Sprintf("%s must not be negative, got %d (0 means the default)", field, v))
		}
	}
	neg("DefaultTimeout", int64(s.DefaultTimeout))
	neg("MaxConcurrent", int64(s.MaxConcurrent))
	neg("MaxArgumentBytes", s.MaxArgumentBytes)
	neg("MaxOutputBytes", s.MaxOutputBytes)
	neg("MaxFieldErrors", int64(s.MaxFieldErrors))
	neg("IdempotencyTTL", int64(s.IdempotencyTTL))
	neg("IdempotencyMaxBytes", s.IdempotencyMaxBytes)
	for _, name := range slices.Sorted(maps.Keys(s.Tools)) {
		o := s.Tools[name]
		at := fmt.Sprintf("Tools[%q].", name)
		neg(at+"Timeout", int64(o.Timeout))
		neg(at+"Rate.Burst", int64(o.Rate.Burst))
		if o.Rate.PerMinute < 0 || math.IsNaN(o.Rate.PerMinute) || math.IsInf(o.Rate.PerMinute, 0) {
			p = append(p, fmt.Sprintf("%sRate.PerMinute must be a finite number, 0 or more, got %v", at, o.Rate.PerMinute))
		}
		switch o.State {
		case "", StateEnabled, StatePaused, StateDeprecated:
		default:
			p = append(p, fmt.Sprintf("%sState is %q: use enabled, paused or deprecated", at, o.State))
		}
		if o.Rate.Key != "" {
			p = append(p, fmt.Sprintf("%sRate.Key must be empty, got %q: which bucket a tool shares is its own declaration", at, o.Rate.Key))
		}
	}
	if l := s.Confinement.MaxLimits; negativeLimits(l) {
		p = append(p, fmt.Sprintf("Confinement.MaxLimits has a negative limit (%+v): caps are 0 (none) or more", l))
	}
	return p
}

// negativeLimits reports whether a field of l is negative.
func negativeLimits(l Limits) bool {
	return min(int64(l.CPUSeconds), l.MemoryBytes, int64(l.OpenFiles), l.FileSizeBytes, int64(l.Processes), l.TmpBytes, int64(l.TmpInodes)) < 0
}

// enabled reports whether s lets the tool named name run, and if not,
// why, in words fit for a refusal with code disabled. In order: the
// master switch, the tool's Disabled override, then the whitelist when it
// is not empty (only the tools it matches are enabled), else the blacklist.
func (s *Settings) enabled(name string) (ok bool, reason string) {
	if s.Disabled {
		return false, "every tool is disabled by the config (enabled: false)"
	}
	if s.Tools[name].Disabled {
		return false, fmt.Sprintf("%s is disabled by the config (tools.%s.disabled)", name, name)
	}
	if len(s.Whitelist) > 0 {
		if s.whitelisted(name) {
			return true, ""
		}
		return false, fmt.Sprintf("%s is not in the config whitelist", name)
	}
	for _, p := range s.Blacklist {
		if toolname.Match(p, name) {
			return false, fmt.Sprintf("%s is disabled by the config blacklist (%q)", name, p)
		}
	}
	return true, ""
}

// whitelisted reports whether a pattern of the whitelist matches name.
func (s *Settings) whitelisted(name string) bool {
	for _, p := range s.Whitelist {
		if toolname.Match(p, name) {
			return true
		}
	}
	return false
}

// rootWorkspace is the default workspace of a host running as root.
const rootWorkspace = "/var/lib/toolexplorer/workspace"

// geteuid is os.Geteuid; tests replace it.
var geteuid = os.Geteuid

// workspaceDir returns the directory of s.Confinement.Workspace, made
// absolute and clean, as ConfinementBounds.Workspace says. It neither
// creates the directory nor checks that it exists.
func (s *Settings) workspaceDir() (string, error) {
	ws := s.Confinement.Workspace
	if strings.ContainsRune(ws, 0) {
		return "", fmt.Errorf("config: confinement.workspace %q contains a NUL byte", ws)
	}
	switch {
	case ws == "" && geteuid() == 0:
		ws = rootWorkspace
	case ws == "":
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("config: no default confinement Workspace: %w", err)
		}
		ws = filepath.Join(cache, "toolexplorer", "workspace")
	case !filepath.IsAbs(ws) && s.Source != "":
		ws = filepath.Join(filepath.Dir(s.Source), ws)
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", fmt.Errorf("config: confinement workspace %q: %w", ws, err)
	}
	return abs, nil
}
