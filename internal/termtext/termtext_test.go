package termtext

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct{ in, want, line string }{
		{"plain text, ünïcode ✓", "plain text, ünïcode ✓", "plain text, ünïcode ✓"},
		{"two\nlines\tand a tab", "two\nlines\tand a tab", `two\nlines\tand a tab`},
		{"\x1b]0;owned\x07title", `\x1b]0;owned\x07title`, `\x1b]0;owned\x07title`},
		{"x\x1b[2K\x1b[1Aok", `x\x1b[2K\x1b[1Aok`, `x\x1b[2K\x1b[1Aok`},
		{"over\rwrite", `over\rwrite`, `over\rwrite`},
		{"del\x7f nul\x00", `del\x7f nul\x00`, `del\x7f nul\x00`},
		{"c1 \u009b2J and \u0085", `c1 \u009b2J and \u0085`, `c1 \u009b2J and \u0085`},
		{"raw \x9b byte", `raw \x9b byte`, `raw \x9b byte`},
		{"cut \xe2\x9c", `cut \xe2\x9c`, `cut \xe2\x9c`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := Line(tt.in); got != tt.line {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
		}
	}
}

// TestJSONStaysJSON: JSON text passed through String is still JSON with the same value.
func TestJSONStaysJSON(t *testing.T) {
	v := map[string]any{"path": "a\x1b]0;x\x07b\u009bc\r\n", "n": 1.5}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := String(string(b))
	var back map[string]any
	if err := json.Unmarshal([]byte(out), &back); err != nil || back["path"] != v["path"] || back["n"] != v["n"] {
		t.Fatalf("%s: %v %v", out, back, err)
	}
	if bytes.ContainsAny([]byte(out), "\x1b\x07\r\u009b") {
		t.Fatalf("control characters left: %q", out)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	if n, err := w.Write([]byte("ok \x1b[31mred\n")); err != nil || n != len("ok \x1b[31mred\n") {
		t.Fatalf("Write: %d %v", n, err)
	}
	if b.String() != "ok \\x1b[31mred\n" {
		t.Fatalf("wrote %q", b.String())
	}
}

func BenchmarkStringClean(b *testing.B) {
	s := string(bytes.Repeat([]byte("an ordinary line of tool output\n"), 1024))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s)
	}
}
