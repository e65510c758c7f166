package sandbox

import (
	"context"
	"strconv"
	"sync/atomic"
	"testing"
)

func BenchmarkLocksAcquire(b *testing.B) {
	ctx := context.Background()
	h := Holder{Name: "bench.tool", ID: "1"}
	for _, keys := range [][]string{{"a"}, {"b", "a"}} {
		b.Run(strconv.Itoa(len(keys))+"_keys", func(b *testing.B) {
			l := NewLocks()
			b.ReportAllocs()
			for b.Loop() {
				release, err := l.Acquire(ctx, keys, h)
				if err != nil {
					b.Fatal(err)
				}
				release()
			}
		})
	}
}

// BenchmarkLocksParallel has every goroutine take one key out of a few: a single key is fully
// contended (each acquisition waits for the previous holder), 16 keys are mostly not.
func BenchmarkLocksParallel(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{1, 16} {
		keys := make([][]string, n)
		for i := range keys {
			keys[i] = []string{"key" + strconv.Itoa(i)}
		}
		b.Run(strconv.Itoa(n)+"_keys", func(b *testing.B) {
			l := NewLocks()
			var next atomic.Int64
			b.ReportAllocs()
			b.SetParallelism(4)
			b.RunParallel(func(pb *testing.PB) {
				h := Holder{Name: "bench.tool", ID: strconv.FormatInt(next.Add(1), 10)}
				i := int(next.Load())
				for pb.Next() {
					release, err := l.Acquire(ctx, keys[i%n], h)
					if err != nil {
						b.Error(err)
						return
					}
					release()
					i++
				}
			})
		})
	}
}
