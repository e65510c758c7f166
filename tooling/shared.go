package tooling

import (
	"context"
	"slices"
	"sync"

	"golang.org/x/sync/semaphore"
)

// sharedKeys are the resource keys of Exclusive tools that allow several
// calls at once (Meta.Parallel): each key is a semaphore of that many
// places, made by the first call that takes it.
type sharedKeys struct {
	mu   sync.Mutex
	keys map[string]*semaphore.Weighted
}

// acquire takes one place of each key, in sorted order so that two calls
// never wait for each other, and returns what gives them back.
func (s *sharedKeys) acquire(ctx context.Context, keys []string, n int) (release func(), err error) {
	sorted := slices.Sorted(slices.Values(keys))
	sorted = slices.Compact(sorted)
	sems := make([]*semaphore.Weighted, len(sorted))
	s.mu.Lock()
	if s.keys == nil {
		s.keys = map[string]*semaphore.Weighted{}
	}
	for i, k := range sorted {
		sem, ok := s.keys[k]
		if !ok {
			sem = semaphore.NewWeighted(int64(n))
			s.keys[k] = sem
		}
		sems[i] = sem
	}
	s.mu.Unlock()
	for i, sem := range sems {
		if err := sem.Acquire(ctx, 1); err != nil {
			for _, held := range sems[:i] {
				held.Release(1)
			}
			return nil, err
		}
	}
	return func() {
		for _, sem := range sems {
			sem.Release(1)
		}
	}, nil
}
