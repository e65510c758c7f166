package viewer

import (
	"strings"
	"testing"
)

// lcs is the length of the longest common subsequence of a and b, by the
// textbook table: the reference the diff is checked against.
func lcs(a, b []string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkDiff: the diff's lines marked ' ' and '-' are a, those marked ' '
// and '+' are b, and it keeps as many lines as the longest common
// subsequence (no shorter script exists).
func checkDiff(t *testing.T, a, b []string) {
	t.Helper()
	d := diffLines(a, b)
	var gotA, gotB []string
	kept := 0
	for _, l := range d {
		switch l.Op {
		case ' ':
			gotA, gotB = append(gotA, l.Text), append(gotB, l.Text)
			kept++
		case '-':
			gotA = append(gotA, l.Text)
		case '+':
			gotB = append(gotB, l.Text)
		default:
			t.Fatalf("op %q", l.Op)
		}
	}
	if strings.Join(gotA, "\n") != strings.Join(a, "\n") || len(gotA) != len(a) {
		t.Fatalf("the diff does not give back a:\n%q\n%q", gotA, a)
	}
	if strings.Join(gotB, "\n") != strings.Join(b, "\n") || len(gotB) != len(b) {
		t.Fatalf("the diff does not give back b:\n%q\n%q", gotB, b)
	}
	if want := lcs(a, b); kept != want && len(a)+len(b)-2*want <= maxEdits {
		t.Fatalf("the diff keeps %d lines, the longest common subsequence has %d\na %q\nb %q", kept, want, a, b)
	}
}

func TestDiffLines(t *testing.T) {
	for _, tc := range [][2]string{
		{"", ""}, {"a", ""}, {"", "a"}, {"a", "a"}, {"a\nb\nc", "a\nc"}, {"a\nc", "a\nb\nc"},
		{"a\nb\nc\na\nb\nb\na", "c\nb\na\nb\na\nc"}, // Myers' paper's example
		{"x\ny\nz", "1\n2\n3"}, {"a\nb", "b\na"}, {"{\n  \"a\": 1,\n  \"b\": 2\n}", "{\n  \"a\": 1,\n  \"b\": 3,\n  \"c\": 4\n}"},
	} {
		checkDiff(t, strings.Split(tc[0], "\n"), strings.Split(tc[1], "\n"))
	}
}

// FuzzDiff checks the diff against the reference on any two texts, cut
// into lines of few letters so that lines repeat.
func FuzzDiff(f *testing.F) {
	f.Add("abcabba", "cbabac")
	f.Add("", "xyz")
	f.Add("aaaa", "aa")
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 300 || len(b) > 300 {
			return
		}
		split := func(s string) []string {
			var out []string
			for _, r := range s {
				out = append(out, string('a'+r%4))
			}
			return out
		}
		checkDiff(t, split(a), split(b))
	})
}

// TestDiffGivesUp: beyond maxEdits changes the diff is still right, the
// first text removed and the second added.
func TestDiffGivesUp(t *testing.T) {
	var a, b []string
	for i := range maxEdits {
		a = append(a, "a"+strings.Repeat("x", i%7))
		b = append(b, "b"+strings.Repeat("y", i%5))
	}
	checkDiff(t, a, b)
}

func TestHunks(t *testing.T) {
	var a, b []string
	for i := range 30 {
		a = append(a, strings.Repeat("l", i+1))
	}
	b = append(b, a...)
	b[15] = "changed"
	got := strings.Join(Hunks(diffLines(a, b)), "\n")
	want := strings.Join([]string{"⋯ 12 lines the same",
		"  " + a[12], "  " + a[13], "  " + a[14], "- " + a[15], "+ changed", "  " + a[16], "  " + a[17], "  " + a[18],
		"⋯ 11 lines the same"}, "\n")
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := Hunks(diffLines(a, a)); len(got) != 1 || got[0] != "⋯ 30 lines the same" {
		t.Fatalf("the same: %q", got)
	}
}

// BenchmarkDiff is two 1 MiB outputs with a few changes, as two runs of a
// tool differ.
func BenchmarkDiff(b *testing.B) {
	a := Pretty(treeOutput(1 << 20))
	c := strings.Replace(strings.Replace(a, `"item 000100"`, `"item 100"`, 1), `"id": 5000,`, `"id": 5000, "new": true,`, 1)
	b.ReportAllocs()
	start := processCPU()
	for b.Loop() {
		_ = Hunks(DiffText(a, c))
	}
	reportCPU(b, start)
}
