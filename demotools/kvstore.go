package demotools

import (
	"sync"
	"sync/atomic"
)

// kv is the store behind demo.kv_put and demo.kv_get. Both tools are
// exclusive on the resource "kv", so the registry never lets their calls
// overlap; writers counts callers inside anyway, so that an overlap would
// show in their output. The mutex only keeps the race detector honest.
var kv = struct {
	mu      sync.Mutex
	data    map[string]string
	writers atomic.Int32
	most    atomic.Int32
}{data: map[string]string{}}

// enterKV marks a caller inside the store and returns how many are.
func enterKV() int32 {
	n := kv.writers.Add(1)
	for {
		m := kv.most.Load()
		if n <= m || kv.most.CompareAndSwap(m, n) {
			return n
		}
	}
}

func leaveKV() { kv.writers.Add(-1) }
