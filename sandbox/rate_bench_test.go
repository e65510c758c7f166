package sandbox

import (
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkBucketsTake takes tokens at the real time from buckets that rarely run dry (one_key,
// many_keys), and from one that is always dry (refused: the cost of computing retryAfter).
func BenchmarkBucketsTake(b *testing.B) {
	plenty := Rate{PerMinute: 6e9, Burst: 1000}
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = "tool." + strconv.Itoa(i)
	}
	b.Run("one_key", func(b *testing.B) {
		bk := NewBuckets()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bk.Take("tool.x", plenty, time.Now())
			}
		})
	})
	b.Run("many_keys", func(b *testing.B) {
		bk := NewBuckets()
		var next atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			i := int(next.Add(1)) * 97
			for pb.Next() {
				bk.Take(keys[i%len(keys)], plenty, time.Now())
				i++
			}
		})
	})
	b.Run("refused", func(b *testing.B) {
		bk := NewBuckets()
		r := Rate{PerMinute: 1}
		now := time.Now()
		bk.Take("tool.x", r, now)
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if ok, _ := bk.Take("tool.x", r, now); ok {
					b.Error("a dry bucket gave a token")
					return
				}
			}
		})
	})
	b.Run("unlimited", func(b *testing.B) {
		bk := NewBuckets()
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				bk.Take("tool.x", Rate{}, time.Now())
			}
		})
	})
}
