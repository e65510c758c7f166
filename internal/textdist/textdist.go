package textdist

import "sort"

// Distance is the optimal string alignment distance between a and b, on
// runes: insertions, deletions, substitutions and swaps of neighbours each
// count one.
func Distance(a, b string) int {
	var t table
	ra, rb := []rune(a), []rune(b)
	return t.within(ra, rb, max(len(ra), len(rb)))
}

// Nearest returns the candidate nearest to s (the first of equals) when it
// is at most maxDist away, else "".
func Nearest(s string, candidates []string, maxDist int) string {
	if maxDist < 0 {
		return ""
	}
	var t table
	q := []rune(s)
	best, bestD := "", maxDist+1
	for _, c := range candidates {
		// The first of equals wins: a later candidate must be nearer.
		if d := t.distance(q, c, bestD-1); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// NearestSorted is Nearest over candidates sorted in increasing order, with
// the work bounded: it visits the candidates outward from where s would
// sort among them (first the ones sharing the longest prefix with s), and
// stops once it has spent budget units of work (a candidate visited, a
// rune of it decoded or a cell of a distance table computed is one unit;
// the last candidate may take a row of cells more), answering with the
// nearest found so far. Among equals the one sorting first wins, so that
// within the budget the answer is Nearest's. It returns the work spent;
// budget must be positive.
func NearestSorted(s string, sorted []string, maxDist, budget int) (string, int) {
	if maxDist < 0 {
		return "", 0
	}
	t := table{budget: budget}
	q := []rune(s)
	best, bestAt, bestD := "", -1, maxDist+1
	try := func(i int) {
		limit := bestD - 1
		if i < bestAt {
			limit = bestD // an equal that sorts first wins
		}
		t.spent++
		if d := t.distance(q, sorted[i], limit); d <= limit {
			best, bestAt, bestD = sorted[i], i, d
		}
	}
	at := sort.SearchStrings(sorted, s)
	for lo, hi := at-1, at; (lo >= 0 || hi < len(sorted)) && t.spent < budget; {
		if hi < len(sorted) {
			try(hi)
			hi++
		}
		if lo >= 0 && t.spent < budget {
			try(lo)
			lo--
		}
	}
	return best, t.spent
}

// table holds the rows of a distance table, reused from one candidate to
// the next, and counts the work done.
type table struct {
	rows   [3][]int
	runes  []rune
	spent  int // units of work: candidates visited, runes decoded, cells computed
	budget int // 0: no bound
}

// distance is the distance between q and c when it is at most limit, else
// more than limit.
func (t *table) distance(q []rune, c string, limit int) int {
	if limit < 0 {
		return limit + 1
	}
	// The distance is at least the difference of the lengths in runes: c
	// has at most len(c) runes, and is decoded only as far as it may be
	// near. Each rune decoded is a unit of work.
	if len(q)-len(c) > limit {
		return limit + 1
	}
	t.runes = t.runes[:0]
	for _, r := range c {
		t.runes = append(t.runes, r)
		t.spent++
		if len(t.runes) > len(q)+limit {
			return limit + 1
		}
	}
	return t.within(q, t.runes, limit)
}

// within is the distance between a and b when it is at most limit, else
// limit+1. Two facts bound the work:
//   - a cell (i, j) of the table is at least |i-j|, so only the band of
//     cells with |i-j| <= limit is computed; a cell outside it reads as
//     limit+1, as does any value over limit, which changes no result that is
//     at most limit;
//   - once two rows in a row are both over limit-1 and the last is over
//     limit, every later row is over limit (a cell comes from its row and
//     the one before plus one, or from two rows back plus one), so the
//     distance is.
func (t *table) within(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	over := limit + 1
	for k := range t.rows {
		if cap(t.rows[k]) < len(b)+1 {
			t.rows[k] = make([]int, len(b)+1)
		}
		t.rows[k] = t.rows[k][:len(b)+1]
	}
	prev2, prev, cur := t.rows[0], t.rows[1], t.rows[2]
	for j := range prev {
		prev[j] = min(j, over)
	}
	prevMin := 0
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[0] = min(i, over)
		if lo > 1 {
			cur[lo-1] = over
		}
		rowMin := cur[0]
		if lo > 1 {
			rowMin = over
		}
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, over)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi < len(b) {
			cur[hi+1] = over // the next row reads it as its prev[j]
		}
		t.spent += hi - lo + 1
		if rowMin > limit && prevMin >= limit {
			return over
		}
		if t.budget > 0 && t.spent >= t.budget {
			return over
		}
		prevMin = rowMin
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
