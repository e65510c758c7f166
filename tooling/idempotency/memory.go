package idempotency

import (
	"context"
	"sync"
	"time"
)

// NewMemory returns a Store that keeps records
// in memory, for one process: the store a registry uses by default. What
// it keeps is lost when the process ends. Expired records are dropped as
// new keys arrive.
func NewMemory() Store {
	return &memoryStore{m: make(map[string]*memoryRecord), sweepAt: memorySweepFrom}
}

// memorySweepFrom is the size of the map at which a memory store first
// drops its expired records; it then sweeps again each time the map has
// doubled since.
const memorySweepFrom = 1024

type memoryStore struct {
	mu      sync.Mutex
	m       map[string]*memoryRecord
	sweepAt int
}

type memoryRecord struct {
	rec  Record
	done chan struct{} // closed when a pending claim completes or is given up
}

func (s *memoryStore) Claim(ctx context.Context, key, digest string, lease time.Duration) (*Record, error) {
	for {
		s.mu.Lock()
		now := time.Now()
		cur := s.m[key]
		if cur != nil && !now.Before(cur.rec.Expires) {
			s.drop(key, cur)
			cur = nil
		}
		if cur == nil {
			s.m[key] = &memoryRecord{rec: Record{Digest: digest, Pending: true, Expires: now.Add(lease)}, done: make(chan struct{})}
			s.sweep(now)
			s.mu.Unlock()
			return nil, nil
		}
		if !cur.rec.Pending || cur.rec.Digest != digest {
			rec := cur.rec
			s.mu.Unlock()
			return &rec, nil
		}
		done, until := cur.done, cur.rec.Expires.Sub(now)
		s.mu.Unlock()
		t := time.NewTimer(until)
		select {
		case <-done:
		case <-t.C: // the lease ended: the loop finds the claim expired
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		}
		t.Stop()
	}
}

func (s *memoryStore) Complete(_ context.Context, key string, rec *Record, ttl time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.m[key]
	if rec == nil {
		if cur != nil && cur.rec.Pending {
			s.drop(key, cur)
		}
		return nil
	}
	kept := &memoryRecord{rec: Record{Digest: rec.Digest, Outcome: append([]byte(nil), rec.Outcome...), Expires: time.Now().Add(ttl)}}
	if cur != nil && cur.done != nil {
		close(cur.done)
	}
	s.m[key] = kept
	return nil
}

func (s *memoryStore) Get(_ context.Context, key string) (*Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.m[key]
	if cur == nil || !time.Now().Before(cur.rec.Expires) {
		return nil, nil
	}
	rec := cur.rec
	return &rec, nil
}

// drop removes key, waking the calls waiting for its claim; s.mu is held.
func (s *memoryStore) drop(key string, cur *memoryRecord) {
	delete(s.m, key)
	if cur.done != nil {
		close(cur.done)
		cur.done = nil
	}
}

// sweep drops the expired records once the map has doubled since the last
// sweep; s.mu is held.
func (s *memoryStore) sweep(now time.Time) {
	if len(s.m) < s.sweepAt {
		return
	}
	for k, v := range s.m {
		if !now.Before(v.rec.Expires) {
			s.drop(k, v)
		}
	}
	s.sweepAt = max(2*len(s.m), memorySweepFrom)
}
