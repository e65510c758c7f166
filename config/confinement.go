package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Defaults and bounds of the confinement section; schema.json says the same.
const (
	defaultPoolSize = 2
	maxPoolSize     = 64
)

// ConfinementBounds bound the tools that run confined, in a child process
// under landlock, seccomp and resource limits (what such a tool declares is
// its tooling.Confinement). Like the overrides of Tools, they can only
// narrow what a tool declares: a path outside the allowed roots, a port not
// allowed or a limit above its cap is dropped or lowered, never added or
// raised.
type ConfinementBounds struct {
	// Workspace is the directory the confined demo tools work in: absolute,
	// or relative to the directory of the config file it was read from (to
	// the working directory in ConfinementBounds built in Go); see
	// WorkspaceDir. "" means the default,
	// <os.UserCacheDir()>/toolexplorer/workspace. The config never creates
	// it; whoever uses it does.
	Workspace string
	// AllowedRoots bounds the paths a confined tool may be granted: only
	// those under one of these roots are kept (the workspace is always
	// allowed). Absolute and clean paths. Empty (nil or of length 0): the
	// workspace and the tool's own programs only.
	AllowedRoots []string
	// AllowedPorts, when not empty, bounds the TCP ports a confined tool may
	// be granted to connect to: 1 to 65535. Empty (nil or of length 0)
	// narrows nothing.
	AllowedPorts []uint16
	// MaxLimits caps the resource limits of a confined tool; a zero field
	// does not cap.
	MaxLimits Limits
	// AllowUnconfined lets a confined tool run without confinement when
	// confinement cannot be applied on this machine, every such result
	// saying so. Default false: such a call is refused with code
	// "sandbox_unavailable".
	AllowUnconfined bool
	// PoolSize is the number of confined workers started ahead of the calls,
	// per profile: at most 64. Zero: 2. Negative: none, a child started for
	// every call (the file's "pool_size": 0).
	PoolSize int

	// dir is the directory of the config file a relative Workspace was
	// read from, "" when there is none (or no Source).
	dir string
}

// RootWorkspace is the default workspace of a host running as root: the
// confined children run as an unprivileged user, who cannot enter root's
// private cache directory.
const RootWorkspace = "/var/lib/toolexplorer/workspace"

// geteuid is os.Geteuid; tests replace it.
var geteuid = os.Geteuid

// Limits are the resource limits of a confined tool's child process: the
// ones a tool declares (tooling.Confinement.Limits, where a zero field takes
// the default), and, as ConfinementBounds.MaxLimits, the caps on them (each
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

// WorkspaceDir returns the directory of Workspace, made absolute and clean.
// A relative Workspace is relative to the directory of the config file it
// was read from, when Parse or Load was given a source (Config.Source), else
// to the working directory. An empty Workspace gives
// <os.UserCacheDir()>/toolexplorer/workspace, an error when there is no user
// cache directory; for a host running as root it gives RootWorkspace.
// WorkspaceDir does not create the directory, nor check that it exists.
func (c ConfinementBounds) WorkspaceDir() (string, error) {
	ws := c.Workspace
	if strings.ContainsRune(ws, 0) {
		return "", fmt.Errorf("config: confinement.workspace %q contains a NUL byte", ws)
	}
	if ws == "" && geteuid() == 0 {
		// Confined children of a root host run as an unprivileged user,
		// who cannot reach root's private cache directory.
		ws = RootWorkspace
	} else if ws == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("config: no default confinement workspace: %w", err)
		}
		ws = filepath.Join(cache, "toolexplorer", "workspace")
	} else if !filepath.IsAbs(ws) && c.dir != "" {
		ws = filepath.Join(c.dir, ws)
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", fmt.Errorf("config: confinement workspace %q: %w", ws, err)
	}
	return abs, nil
}

// checkConfinement is the part of Validate for the confinement section.
func (p *problems) checkConfinement(c ConfinementBounds) {
	if strings.ContainsRune(c.Workspace, 0) {
		p.add("/confinement/workspace", "%s", nulMessage(c.Workspace))
	}
	const roots = "/confinement/allowed_roots"
	for i, s := range c.AllowedRoots {
		at := fmt.Sprintf("%s/%d", roots, i)
		switch {
		case strings.ContainsRune(s, 0):
			p.add(at, "%s", nulMessage(s))
		case !filepath.IsAbs(s):
			p.add(at, "%s", absoluteMessage(s))
		case filepath.Clean(s) != s:
			p.add(at, "must be a clean path: %q, not %q", filepath.Clean(s), s)
		}
		if j := slices.Index(c.AllowedRoots[:i], s); j >= 0 {
			p.add(at, "%q is listed twice (also at %s/%d)", s, roots, j)
		}
	}
	const ports = "/confinement/allowed_ports"
	for i, port := range c.AllowedPorts {
		at := fmt.Sprintf("%s/%d", ports, i)
		if port == 0 {
			p.add(at, "must be at least 1, got 0")
		}
		if j := slices.Index(c.AllowedPorts[:i], port); j >= 0 {
			p.add(at, "%d is listed twice (also at %s/%d)", port, ports, j)
		}
	}
	l := c.MaxLimits
	for _, f := range []struct {
		key string
		v   int64
	}{
		{"cpu_seconds", int64(l.CPUSeconds)},
		{"memory_bytes", l.MemoryBytes},
		{"open_files", int64(l.OpenFiles)},
		{"file_size_bytes", l.FileSizeBytes},
		{"processes", int64(l.Processes)},
		{"tmp_bytes", l.TmpBytes},
		{"tmp_inodes", int64(l.TmpInodes)},
	} {
		if f.v < 0 {
			p.add("/confinement/max_limits/"+f.key, "must not be negative, got %d (0 does not cap)", f.v)
		}
	}
	if c.PoolSize > maxPoolSize {
		p.add("/confinement/pool_size", "must be at most %d, got %d", maxPoolSize, c.PoolSize)
	}
}

// applyConfinement sets in c what the confinement section of a file sets.
// Like apply, it skips values the schema refused, and reports what only Go
// can tell: numbers too large, and roots that are the same once cleaned.
func (p *problems) applyConfinement(obj map[string]any, c *ConfinementBounds) {
	if s, ok := obj["workspace"].(string); ok {
		c.Workspace = s
		if s != "" && !filepath.IsAbs(s) && p.source != "" {
			c.dir = filepath.Dir(p.source)
		}
	}
	const roots = "/confinement/allowed_roots"
	arr, _ := obj["allowed_roots"].([]any)
	c.AllowedRoots = nil
	for i, v := range arr {
		s, ok := v.(string)
		at := fmt.Sprintf("%s/%d", roots, i)
		if !ok || p.has(at) {
			continue
		}
		clean := filepath.Clean(s)
		if j := slices.Index(c.AllowedRoots, clean); j >= 0 {
			p.add(at, "%q is listed twice, as %q (also at %s/%d)", s, clean, roots, j)
		}
		c.AllowedRoots = append(c.AllowedRoots, clean)
	}
	arr, _ = obj["allowed_ports"].([]any)
	c.AllowedPorts = nil
	for i, v := range arr {
		n, ok := p.integerValue(v, fmt.Sprintf("/confinement/allowed_ports/%d", i), 32)
		if ok && n >= 1 && n <= 65535 {
			c.AllowedPorts = append(c.AllowedPorts, uint16(n))
		}
	}
	if l, ok := obj["max_limits"].(map[string]any); ok {
		const at = "/confinement/max_limits/"
		if n, ok := p.integer(l, "cpu_seconds", at+"cpu_seconds", strconv.IntSize); ok {
			c.MaxLimits.CPUSeconds = int(n)
		}
		if n, ok := p.integer(l, "memory_bytes", at+"memory_bytes", 64); ok {
			c.MaxLimits.MemoryBytes = n
		}
		if n, ok := p.integer(l, "open_files", at+"open_files", strconv.IntSize); ok {
			c.MaxLimits.OpenFiles = int(n)
		}
		if n, ok := p.integer(l, "file_size_bytes", at+"file_size_bytes", 64); ok {
			c.MaxLimits.FileSizeBytes = n
		}
		if n, ok := p.integer(l, "processes", at+"processes", strconv.IntSize); ok {
			c.MaxLimits.Processes = int(n)
		}
		if n, ok := p.integer(l, "tmp_bytes", at+"tmp_bytes", 64); ok {
			c.MaxLimits.TmpBytes = n
		}
		if n, ok := p.integer(l, "tmp_inodes", at+"tmp_inodes", strconv.IntSize); ok {
			c.MaxLimits.TmpInodes = int(n)
		}
	}
	if v, ok := obj["allow_unconfined"].(bool); ok {
		c.AllowUnconfined = v
	}
	if n, ok := p.integer(obj, "pool_size", "/confinement/pool_size", strconv.IntSize); ok {
		c.PoolSize = int(n)
		if n == 0 {
			c.PoolSize = -1 // no workers; a zero PoolSize is the default
		}
	}
}

// nulMessage explains a path holding a NUL byte, which no file name may.
func nulMessage(s string) string {
	return fmt.Sprintf("must not contain a NUL byte, got %q", s)
}

// absoluteMessage explains a path that should be absolute.
func absoluteMessage(s string) string {
	return fmt.Sprintf("must be an absolute path, got %q", s)
}
