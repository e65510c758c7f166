package demotools

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// KV is the store behind demo.kv_put and demo.kv_get: what a tool needs
// from its host, the way another tool needs a database handle. Both tools
// are exclusive on the resource "kv", so the registry never lets their
// calls overlap; the store counts callers inside anyway, so that an
// overlap would show in their output. The mutex only keeps the race
// detector honest.
type KV struct {
	mu      sync.Mutex
	data    map[string]string
	writers atomic.Int32
	most    atomic.Int32
}

// NewKV returns an empty store.
func NewKV() *KV { return &KV{data: map[string]string{}} }

// KVTools builds demo.kv_put and demo.kv_get on store: tools that need a
// dependency are made by a constructor and registered by the host
// (reg.Register(demotools.KVTools(store)...)), never found through a lookup.
func KVTools(store *KV) []tooling.Tool { return []tooling.Tool{kvPut(store), kvGet(store)} }

// A blank import of the package gets every demo tool: the kv tools on a
// store of their own.
func init() { tooling.Register(KVTools(NewKV())...) }

// kvSpaceKey is the context key of WithKVSpace.
type kvSpaceKey struct{}

// WithKVSpace returns a copy of ctx whose calls of the kv tools read and
// write the keys of space only: a per-call value (a user, a session),
// handed to the tool through a typed context key. Calls without one use
// the shared space "".
func WithKVSpace(ctx context.Context, space string) context.Context {
	return context.WithValue(ctx, kvSpaceKey{}, space)
}

// kvKey is where key lives in the store for a call with ctx.
func kvKey(ctx context.Context, key string) string {
	if space, _ := ctx.Value(kvSpaceKey{}).(string); space != "" {
		return space + "\x00" + key
	}
	return key
}

// enter marks a caller inside the store and returns how many are.
func (kv *KV) enter() int32 {
	n := kv.writers.Add(1)
	for {
		m := kv.most.Load()
		if n <= m || kv.most.CompareAndSwap(m, n) {
			return n
		}
	}
}

func (kv *KV) leave() { kv.writers.Add(-1) }
