package sandbox

import (
	"context"
	"testing"
)

func BenchmarkSlotsAcquireRelease(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{0, 4} {
		s := NewSlots(n)
		b.Run(map[int]string{0: "unlimited", 4: "limit_4"}[n], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Acquire(ctx); err != nil {
					b.Fatal(err)
				}
				s.Release()
			}
		})
	}
}

// BenchmarkSlotsParallel has every P take and give back a slot, with fewer slots than callers.
func BenchmarkSlotsParallel(b *testing.B) {
	s := NewSlots(2)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if err := s.Acquire(ctx); err != nil {
				b.Error(err)
				return
			}
			s.Release()
		}
	})
}
