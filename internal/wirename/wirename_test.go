package wirename

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidMatchesTheGrammar checks Valid against the regular
// expressions that state the two grammars.
func TestValidMatchesTheGrammar(t *testing.T) {
	model := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	mcp := regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,128}$`)
	names := []string{"", "a", "Z9", "demo.echo", "demo__echo", "a-b_c", "a b", "é", "a/b", "a\x00", ".", "-", "_",
		strings.Repeat("x", 64), strings.Repeat("x", 65), strings.Repeat("y.", 64), strings.Repeat("y.", 64) + "z"}
	for c := 0; c < 256; c++ {
		names = append(names, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)}))
	}
	for _, n := range names {
		if got, want := Valid(n, 64, false), model.MatchString(n); got != want {
			t.Errorf("Valid(%q, 64, false) = %v, want %v", n, got, want)
		}
		if got, want := Valid(n, 128, true), mcp.MatchString(n); got != want {
			t.Errorf("Valid(%q, 128, true) = %v, want %v", n, got, want)
		}
	}
}
