package viewer

import (
	"fmt"
	"strings"
)

// A diff of two results compares their outputs as indented JSON, line by
// line, with Myers' algorithm (the shortest edit script, as diff and git
// find it) after the lines both share at the start and at the end are set
// aside. Two large outputs that differ everywhere would cost a long search:
// beyond maxEdits changes the rest is shown as removed and added whole.

// maxEdits bounds the changes the search looks for.
const maxEdits = 4000

// diffContext is how many unchanged lines a change shows around it.
const diffContext = 3

// DiffLine is one line of a diff: Op is ' ' (in both), '-' (only in the
// first) or '+' (only in the second).
type DiffLine struct {
	Op   byte
	Text string
}

// DiffText compares a and b line by line and returns every line of both,
// in order, each marked.
func DiffText(a, b string) []DiffLine {
	return diffLines(strings.Split(a, "\n"), strings.Split(b, "\n"))
}

func diffLines(a, b []string) []DiffLine {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	out := make([]DiffLine, 0, len(a)+len(b)-pre-suf)
	for _, s := range a[:pre] {
		out = append(out, DiffLine{' ', s})
	}
	out = myers(out, a[pre:len(a)-suf], b[pre:len(b)-suf])
	for _, s := range a[len(a)-suf:] {
		out = append(out, DiffLine{' ', s})
	}
	return out
}

// myers appends to out the shortest edit script from a to b (Myers 1986,
// "An O(ND) difference algorithm"), or a removed and b added when it is
// longer than maxEdits.
func myers(out []DiffLine, a, b []string) []DiffLine {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return appendAll(out, a, b)
	}
	maxD := min(n+m, maxEdits)
	off := maxD + 1
	v := make([]int, 2*maxD+3) // v[k+off]: the furthest x on diagonal k
	var trace [][]int          // v after each d, for the way back
	for d := 0; d <= maxD; d++ {
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[k-1+off] < v[k+1+off] {
				x = v[k+1+off] // down: a line of b added
			} else {
				x = v[k-1+off] + 1 // right: a line of a removed
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[k+off] = x
			if x >= n && y >= m {
				trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
				return backtrack(out, a, b, trace)
			}
		}
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
	}
	return appendAll(out, a, b)
}

// backtrack follows trace (v after each d, v[i] for diagonal i-d-1) from
// the end back to the start and appends the script in order.
func backtrack(out []DiffLine, a, b []string, trace [][]int) []DiffLine {
	var rev []DiffLine
	x, y := len(a), len(b)
	for d := len(trace) - 1; d > 0; d-- {
		prev := trace[d-1] // v after d-1: prev[k+d] is diagonal k
		at := func(k int) int { return prev[k+d] }
		k := x - y
		var pk int
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, DiffLine{' ', a[x]})
		}
		if x == px {
			y--
			rev = append(rev, DiffLine{'+', b[y]})
		} else {
			x--
			rev = append(rev, DiffLine{'-', a[x]})
		}
	}
	for x > 0 && y > 0 {
		x, y = x-1, y-1
		rev = append(rev, DiffLine{' ', a[x]})
	}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

func appendAll(out []DiffLine, a, b []string) []DiffLine {
	for _, s := range a {
		out = append(out, DiffLine{'-', s})
	}
	for _, s := range b {
		out = append(out, DiffLine{'+', s})
	}
	return out
}

// Hunks are the lines of a diff to show: each change with the context
// lines around it, the unchanged lines between changes said in one line
// ("⋯ 120 lines the same"). Each line starts with "- ", "+ " or "  ".
func Hunks(lines []DiffLine) []string {
	var out []string
	show := make([]bool, len(lines))
	for i, l := range lines {
		if l.Op != ' ' {
			for j := max(i-diffContext, 0); j <= min(i+diffContext, len(lines)-1); j++ {
				show[j] = true
			}
		}
	}
	for i := 0; i < len(lines); {
		if !show[i] {
			j := i
			for j < len(lines) && !show[j] {
				j++
			}
			out = append(out, fmt.Sprintf("⋯ %s the same", plural(j-i, "line")))
			i = j
			continue
		}
		out = append(out, string(lines[i].Op)+" "+lines[i].Text)
		i++
	}
	return out
}
