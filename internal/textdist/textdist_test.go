package textdist

import "testing"

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
