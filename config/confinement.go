package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// The bound of the confinement section's pool_size; schema.json says the same.
const maxPoolSize = 64

// checkConfinement is the part of Validate for the confinement section.
func (p *problems) checkConfinement(c tooling.ConfinementBounds) {
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
func (p *problems) applyConfinement(obj map[string]any, c *tooling.ConfinementBounds) {
	if s, ok := obj["workspace"].(string); ok {
		c.Workspace = s
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
