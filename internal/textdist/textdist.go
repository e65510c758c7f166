package textdist

// Distance is the optimal string alignment distance between a and b, on
// runes: insertions, deletions, substitutions and swaps of neighbours each
// count one.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows suffice: the swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// Nearest returns the candidate nearest to s (the first of equals) when it
// is at most maxDist away, else "".
func Nearest(s string, candidates []string, maxDist int) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := Distance(s, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > maxDist {
		return ""
	}
	return best
}
