package config

import (
	"strconv"
	"time"
)

// Ledger configures the ledger of calls that the command line, the
// console and serve keep (package ledger): every call's begin and end,
// hash-chained and signed. The zero value keeps it, at the default place,
// refusing calls when it cannot record them.
type Ledger struct {
	// Disabled keeps no ledger (the file's "enabled": false). Default:
	// kept.
	Disabled bool
	// Path is the ledger's file; relative to the config file. "": the file
	// $TOOLEXPLORER_LEDGER names, else toolexplorer/ledger.jsonl in the
	// user's state directory ($XDG_STATE_HOME, else ~/.local/state).
	Path string
	// Key is the file of its signing key, made on first use (mode 0600);
	// relative to the config file. "": the ledger's path with .key.
	Key string
	// OnFailure is what a ledger that cannot write does: "refuse" new calls
	// (code unavailable) or "continue" and count the records lost.
	// "": refuse.
	OnFailure string
	// MaxBytes is the size past which the file is rotated. 0: 64 MiB.
	MaxBytes int64
	// SyncInterval bounds how long written records wait for their fsync
	// (group commit). 0: 100ms.
	SyncInterval time.Duration
}

// applyLedger reads the "ledger" section, which the schema checked.
func (p *problems) applyLedger(obj map[string]any, cfg *Config) {
	l, ok := obj["ledger"].(map[string]any)
	if !ok {
		return
	}
	if v, ok := l["enabled"].(bool); ok {
		cfg.Ledger.Disabled = !v
	}
	if s, _ := l["path"].(string); s != "" {
		cfg.Ledger.Path = besideConfig(p.source, s)
	}
	if s, _ := l["key"].(string); s != "" {
		cfg.Ledger.Key = besideConfig(p.source, s)
	}
	cfg.Ledger.OnFailure, _ = l["on_failure"].(string)
	if n, ok := p.integer(l, "max_bytes", "/ledger/max_bytes", strconv.IntSize); ok {
		cfg.Ledger.MaxBytes = n
	}
	if d, ok := p.duration(l, "sync_interval", "/ledger/sync_interval"); ok {
		cfg.Ledger.SyncInterval = d
	}
}
