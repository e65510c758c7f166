package main

import (
	"os"
	"path/filepath"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/history"
	sqlitestate "github.com/toolexplorer/toolexplorer/state/sqlite"
)

// idempotencyFile is the default file of the sqlite idempotency store,
// beside the history in the state directory.
const idempotencyFile = "idempotency.db"

// applyIdempotency opens the idempotency store the config names: the
// registry's in-memory store stays for store memory; store sqlite opens
// its file (idempotency.path, else idempotency.db beside the history). A
// config with state.redis keeps them on Redis (applyState) instead.
func (a *app) applyIdempotency(cfg config.Config) error {
	if cfg.Idempotency.Store != config.IdempotencySQLite || a.idemStore != nil || cfg.State.Redis != nil {
		return nil
	}
	path := cfg.Idempotency.Path
	if path == "" {
		h, err := history.DefaultPath(a.getenv)
		if err != nil {
			return err
		}
		path = filepath.Join(filepath.Dir(h), idempotencyFile)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	st, err := sqlitestate.Open(path)
	if err != nil {
		return err
	}
	a.idemStore = st
	a.reg.SetIdempotencyStore(st)
	return nil
}

// closeIdempotency closes the SQLite idempotency store, if one is open.
func (a *app) closeIdempotency() {
	if a.idemStore != nil {
		a.reg.SetIdempotencyStore(nil)
		a.idemStore.Close()
		a.idemStore = nil
	}
}
