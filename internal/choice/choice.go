package choice

import (
	"encoding/binary"
	"hash/fnv"
	"math/rand/v2"
)

// Stream is a stream of choices made from b.
type Stream struct {
	b   []byte
	rng *rand.Rand
}

// New returns the stream of choices of b.
func New(b []byte) *Stream {
	h := fnv.New64a()
	h.Write(b)
	return &Stream{b: b, rng: rand.New(rand.NewPCG(h.Sum64(), uint64(len(b))))}
}

// Intn returns a choice in [0, n); 0 when n <= 1.
func (s *Stream) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	if len(s.b) > 0 {
		c := int(s.b[0])
		s.b = s.b[1:]
		return c % n
	}
	return s.rng.IntN(n)
}

// Chance is true with about pct percent.
func (s *Stream) Chance(pct int) bool { return s.Intn(100) < pct }

// Pick returns one of from.
func Pick[T any](s *Stream, from ...T) T { return from[s.Intn(len(from))] }

// Seed is the n-th input of a bounded run of a generator: inputs of eight
// bytes spread over the range of a byte's choices.
func Seed(n uint64) []byte {
	return binary.LittleEndian.AppendUint64(nil, n*0x9e3779b97f4a7c15)
}
