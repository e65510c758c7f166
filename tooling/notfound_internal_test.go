package tooling

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/toolexplorer/toolexplorer/internal/textdist"
)

// TestOneEditAwayIsEveryNameOneEditAway checks the look-ups of oneEditAway
// against the distance to every name: it returns the query when it is a
// name, else the first, in sort order, of the names one edit from it, and
// one whenever there is one. Names and queries are made of a few letters,
// so that many are near one another; queries also hold bytes and runes no
// name has.
func TestOneEditAwayIsEveryNameOneEditAway(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	word := func(alphabet string) string {
		b := make([]byte, 1+rng.IntN(3))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	run := func(context.Context, Call) (any, error) { return nil, nil }
	for range 20 {
		r := NewRegistry()
		for range 40 {
			name := word("abc") + "." + word("ab1") // may be a name already: Add refuses it
			_ = r.Add(Tool{Name: name, Run: run})
		}
		idx := r.nameIndex()
		for range 300 {
			q := word("abc.1") + word("ab.é_x")
			want, wantD := "", 2
			for _, n := range idx.sorted { // sorted: the first of equals wins
				if d := textdist.Distance(q, n); d < wantD {
					want, wantD = n, d
				}
			}
			if got := r.oneEditAway(idx, q); got != want {
				t.Fatalf("oneEditAway(%q) = %q, want %q (names %q)", q, got, want, idx.sorted)
			}
		}
	}
}
