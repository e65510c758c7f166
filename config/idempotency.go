package config

import "strconv"

// Idempotency says where the outcomes of calls made with an idempotency
// key are kept (tooling.Meta.IdempotencyKeys). How long and how large they
// may be are the registry's Settings.IdempotencyTTL and
// IdempotencyMaxBytes, read from the same section of the file
// (idempotency.ttl and idempotency.max_bytes).
type Idempotency struct {
	// Store is "memory": kept by the process, lost when it ends; or
	// "sqlite": kept in a SQLite file, so that a restart does not run a
	// call twice. Default "memory".
	Store string
	// Path is the file of the sqlite store, relative to the config file.
	// "": idempotency.db in toolexplorer's state directory (beside the
	// history).
	Path string
}

// The stores of the idempotency section.
const (
	IdempotencyMemory = "memory"
	IdempotencySQLite = "sqlite"
)

// applyIdempotency reads the "idempotency" section, which the schema checked.
func (p *problems) applyIdempotency(obj map[string]any, cfg *Config) {
	sec, ok := obj["idempotency"].(map[string]any)
	if !ok {
		return
	}
	if d, ok := p.duration(sec, "ttl", "/idempotency/ttl"); ok {
		cfg.IdempotencyTTL = d
	}
	if n, ok := p.integer(sec, "max_bytes", "/idempotency/max_bytes", strconv.IntSize); ok {
		cfg.IdempotencyMaxBytes = n
	}
	if s, ok := sec["store"].(string); ok {
		cfg.Idempotency.Store = s
	}
	if s, ok := sec["path"].(string); ok && s != "" {
		cfg.Idempotency.Path = besideConfig(p.source, s)
	}
}

// checkIdempotency is Validate's part for the idempotency section.
func (p *problems) checkIdempotency(c *Config) {
	if c.IdempotencyTTL < 0 {
		p.add("/idempotency/ttl", "must be a positive duration, got %s (0 means the default, 24h)", c.IdempotencyTTL)
	}
	if c.IdempotencyMaxBytes < 0 {
		p.add("/idempotency/max_bytes", "must be at least 1, got %d (0 means the default, 1048576)", c.IdempotencyMaxBytes)
	}
	switch c.Idempotency.Store {
	case "", IdempotencyMemory, IdempotencySQLite:
	default:
		p.add("/idempotency/store", "must be %q or %q, got %q", IdempotencyMemory, IdempotencySQLite, c.Idempotency.Store)
	}
}

type fileIdempotency struct {
	TTL      string `json:"ttl"`
	MaxBytes int64  `json:"max_bytes"`
	Store    string `json:"store"`
	Path     string `json:"path,omitempty"`
}
