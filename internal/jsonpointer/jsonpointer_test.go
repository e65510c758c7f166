package jsonpointer

import "testing"

func TestEscapeUnescapeJoin(t *testing.T) {
	for _, tt := range []struct{ raw, esc string }{
		{"", ""}, {"a", "a"}, {"a/b", "a~1b"}, {"m~n", "m~0n"}, {"~1", "~01"}, {"/~", "~1~0"}, {"~0/", "~00~1"},
	} {
		if got := Escape(tt.raw); got != tt.esc {
			t.Errorf("Escape(%q) = %q, want %q", tt.raw, got, tt.esc)
		}
		if got := Unescape(tt.esc); got != tt.raw {
			t.Errorf("Unescape(%q) = %q, want %q", tt.esc, got, tt.raw)
		}
	}
	if got := Join(nil); got != "" {
		t.Errorf("Join(nil) = %q", got)
	}
	if got := Join([]string{"a/b", "0", ""}); got != "/a~1b/0/" {
		t.Errorf("Join = %q", got)
	}
}
