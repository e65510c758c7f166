package jsonschema

import (
	gourl "net/url"
	"strings"
	"testing"
)

// Tests of what the fork changed (see doc.go).

// encode's shortcut for plain fragments gives what the general path gives.
func TestEncodePlainFragment(t *testing.T) {
	slow := func(frag string) string {
		var sb strings.Builder
		for i, tok := range strings.Split(frag, "/") {
			if i > 0 {
				sb.WriteByte('/')
			}
			sb.WriteString(gourl.PathEscape(tok))
		}
		return sb.String()
	}
	for c := range 256 {
		for _, frag := range []string{string(rune(c)), "/$defs/a" + string([]byte{byte(c)}), string([]byte{byte(c), '/', 'x'})} {
			if got, want := encode(frag), slow(frag); got != want {
				t.Errorf("encode(%q) = %q, want %q", frag, got, want)
			}
		}
	}
}
