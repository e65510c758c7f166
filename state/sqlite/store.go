package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/toolexplorer/toolexplorer/tooling/idempotency"
)

// pollEvery is how often a Claim waiting for a call of another process
// looks at the file again; a call of this process wakes it at once.
const pollEvery = 50 * time.Millisecond

// sweepEvery is how many completions pass between two deletions of the
// expired records.
const sweepEvery = 1000

// Store is an idempotency.Store in a SQLite file. Its methods are safe for
// concurrent use.
type Store struct {
	db *sql.DB

	mu      sync.Mutex
	changed chan struct{} // closed and replaced when a claim of this process completes
	done    int           // completions since the last sweep
}

// Open opens the store in the SQLite file at path, creating it (and its
// table) when it does not exist.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: Open: no path")
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	// One connection: the statements of this process run one at a time,
	// and the file's lock orders them with other processes'.
	db.SetMaxOpenConns(1)
	const schema = `CREATE TABLE IF NOT EXISTS idempotency (
		key     TEXT PRIMARY KEY,
		digest  TEXT NOT NULL,
		pending INTEGER NOT NULL,
		outcome BLOB,
		expires INTEGER NOT NULL
	)`
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	s := &Store{db: db, changed: make(chan struct{})}
	if err := s.sweep(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	return s, nil
}

// Close closes the file. Calls waiting in Claim return an error.
func (s *Store) Close() error { return s.db.Close() }

// Claim claims key as idempotency.Store says.
func (s *Store) Claim(ctx context.Context, key, digest string, lease time.Duration) (*idempotency.Record, error) {
	for {
		s.mu.Lock()
		changed := s.changed
		s.mu.Unlock()
		now := time.Now()
		// One statement claims the key when it is free or expired, so that
		// two claims, of this process or another, never both win.
		r, err := s.db.ExecContext(ctx, `INSERT INTO idempotency (key, digest, pending, outcome, expires) VALUES (?, ?, 1, NULL, ?)
			ON CONFLICT (key) DO UPDATE SET digest = excluded.digest, pending = 1, outcome = NULL, expires = excluded.expires
			WHERE idempotency.expires <= ?`, key, digest, now.Add(lease).UnixNano(), now.UnixNano())
		if err != nil {
			return nil, s.fail(ctx, "claim", err)
		}
		if n, err := r.RowsAffected(); err != nil {
			return nil, s.fail(ctx, "claim", err)
		} else if n == 1 {
			return nil, nil
		}
		rec, err := s.Get(ctx, key)
		if err != nil {
			return nil, err
		}
		if rec == nil {
			continue // it expired or was given up meanwhile
		}
		if !rec.Pending || rec.Digest != digest {
			return rec, nil
		}
		wait := min(time.Until(rec.Expires), pollEvery)
		t := time.NewTimer(max(wait, 0))
		select {
		case <-changed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
}

// Complete ends a claim as idempotency.Store says.
func (s *Store) Complete(ctx context.Context, key string, rec *idempotency.Record, ttl time.Duration) error {
	var err error
	if rec == nil {
		_, err = s.db.ExecContext(ctx, `DELETE FROM idempotency WHERE key = ? AND pending = 1`, key)
	} else {
		_, err = s.db.ExecContext(ctx, `INSERT OR REPLACE INTO idempotency (key, digest, pending, outcome, expires) VALUES (?, ?, 0, ?, ?)`,
			key, rec.Digest, append([]byte{}, rec.Outcome...), time.Now().Add(ttl).UnixNano())
	}
	if err != nil {
		return s.fail(ctx, "complete", err)
	}
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.done++
	sweep := s.done >= sweepEvery
	if sweep {
		s.done = 0
	}
	s.mu.Unlock()
	if sweep {
		return s.sweep(ctx)
	}
	return nil
}

// Get returns the record of key as idempotency.Store says.
func (s *Store) Get(ctx context.Context, key string) (*idempotency.Record, error) {
	var rec idempotency.Record
	var pending int
	var expires int64
	err := s.db.QueryRowContext(ctx, `SELECT digest, pending, outcome, expires FROM idempotency WHERE key = ? AND expires > ?`,
		key, time.Now().UnixNano()).Scan(&rec.Digest, &pending, &rec.Outcome, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail(ctx, "get", err)
	}
	rec.Pending, rec.Expires = pending == 1, time.Unix(0, expires)
	if rec.Pending {
		rec.Outcome = nil
	}
	return &rec, nil
}

// sweep deletes the expired records.
func (s *Store) sweep(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `DELETE FROM idempotency WHERE expires <= ?`, time.Now().UnixNano()); err != nil {
		return s.fail(ctx, "sweep", err)
	}
	return nil
}

// fail words a failure of op, or returns ctx's error when ctx ended.
func (s *Store) fail(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("sqlite: idempotency %s: %w", op, err)
}

var _ idempotency.Store = (*Store)(nil)
