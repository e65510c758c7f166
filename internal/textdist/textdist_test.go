package textdist

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"echo", "echo", 0},
		{"ecoh", "echo", 1}, // a swap of neighbours counts one
		{"timout", "timeout", 1},
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1}, // runes, not bytes
		{"ca", "abc", 3},      // optimal string alignment, not full Damerau
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestNearest(t *testing.T) {
	cands := []string{"demo.echo", "demo.slow", "demo.fail"}
	if got := Nearest("demo.ecoh", cands, 2); got != "demo.echo" {
		t.Errorf("got %q", got)
	}
	if got := Nearest("zzz", cands, 2); got != "" {
		t.Errorf("far name suggested %q", got)
	}
	if got := Nearest("x", nil, 5); got != "" {
		t.Errorf("no candidates gave %q", got)
	}
}

// reference is the plain optimal string alignment distance, the whole
// table, against which the bounded one is checked.
func reference(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// words are strings of a small alphabet, so that random pairs hold
// repeats, swaps and shared runs.
func words(rng *rand.Rand, n int) []string {
	alphabet := []rune("ab.cé_")
	out := make([]string, n)
	for i := range out {
		r := make([]rune, rng.IntN(12))
		for k := range r {
			r[k] = alphabet[rng.IntN(len(alphabet))]
		}
		out[i] = string(r)
	}
	return out
}

// TestWithinIsTheDistanceUpToTheLimit checks the banded table with its
// early stop against the whole table, for every limit.
func TestWithinIsTheDistanceUpToTheLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ws := words(rng, 300)
	var tb table
	for i, a := range ws {
		for _, b := range ws[i:] {
			want := reference(a, b)
			if got := Distance(a, b); got != want {
				t.Fatalf("Distance(%q, %q) = %d, want %d", a, b, got, want)
			}
			for limit := -1; limit <= 13; limit++ {
				got := tb.distance([]rune(a), b, limit)
				if min(got, limit+1) != min(want, limit+1) || got > limit+1 {
					t.Fatalf("distance(%q, %q, limit %d) = %d, want %d", a, b, limit, got, min(want, limit+1))
				}
			}
		}
	}
}

// TestNearestSortedIsNearestWithinItsBudget checks that the bounded search
// answers as the plain one when the budget suffices, and that it stops
// near its budget when it does not.
func TestNearestSortedIsNearestWithinItsBudget(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cands := words(rng, 200)
	slices.Sort(cands)
	for _, s := range words(rng, 300) {
		for _, maxDist := range []int{0, 1, 2, 4} {
			// Nearest over the plain distance.
			want, wantD := "", maxDist+1
			for _, c := range cands {
				if d := reference(s, c); d < wantD {
					want, wantD = c, d
				}
			}
			if got := Nearest(s, cands, maxDist); got != want {
				t.Fatalf("Nearest(%q, max %d) = %q, want %q", s, maxDist, got, want)
			}
			if got, _ := NearestSorted(s, cands, maxDist, 1<<30); got != want {
				t.Fatalf("NearestSorted(%q, max %d) = %q, want %q", s, maxDist, got, want)
			}
			// The budget, then at most one candidate decoded and a row of cells.
			if _, spent := NearestSorted(s, cands, maxDist, 50); spent > 50+len([]rune(s))+maxDist+1+2*maxDist+1 {
				t.Fatalf("NearestSorted(%q, max %d, budget 50) spent %d", s, maxDist, spent)
			}
		}
	}
}

// TestNearestSortedVisitsNeighboursFirst: with little budget, a typo late in
// a long list of names sharing a prefix is still found, for the names
// sorting next to it are visited first.
func TestNearestSortedVisitsNeighboursFirst(t *testing.T) {
	var names []string
	for i := range 10000 {
		names = append(names, fmt.Sprintf("bench.tool_%d", i))
	}
	slices.Sort(names)
	got, spent := NearestSorted("bench.tool_9876x", names, 5, 2000)
	if got != "bench.tool_9876" || spent > 2000+16+5+11 {
		t.Errorf("got %q after %d units of work", got, spent)
	}
}
