package config_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/config"
)

// The ledger key: off, a path and key beside the config, the failure mode,
// rotation and fsync; a wrong choice is refused.
func TestLedgerKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	os.WriteFile(path, []byte(`{"ledger": {"enabled": false, "path": "l/ledger.jsonl", "key": "k", "on_failure": "continue", "max_bytes": 65536, "sync_interval": "20ms"}}`), 0o600)
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Ledger{Disabled: true, Path: filepath.Join(dir, "l/ledger.jsonl"), Key: filepath.Join(dir, "k"), OnFailure: "continue", MaxBytes: 65536, SyncInterval: 20 * time.Millisecond}
	if c.Ledger != want {
		t.Fatalf("ledger %+v, want %+v", c.Ledger, want)
	}
	os.WriteFile(path, []byte(`{"ledger": {"on_failure": "drop"}}`), 0o600)
	if _, err := config.Load(path); err == nil {
		t.Fatal("on_failure drop was accepted")
	}
}
