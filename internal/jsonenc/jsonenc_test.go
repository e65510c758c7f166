package jsonenc

import (
	"encoding/json"
	"testing"
)

func TestNoHTMLEscaping(t *testing.T) {
	v := map[string]any{"s": "<a href='x'>&</a>", "raw": json.RawMessage(`{"k":"<&>"}`), "n": 1}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"n":1,"raw":{"k":"<&>"},"s":"<a href='x'>&</a>"}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	got, err = MarshalIndent(map[string]string{"s": "a<b"}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"s\": \"a<b\"\n}"; string(got) != want {
		t.Errorf("MarshalIndent = %q, want %q", got, want)
	}
	// Everything else is encoding/json's: other escapes stay.
	got, _ = Marshal("\u2028\"\n")
	if want, _ := json.Marshal("\u2028\"\n"); string(got) != string(want) {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("no error for a func")
	}
}

// A string holding the six characters \u003c is not an escape to undo.
func TestLiteralBackslashU(t *testing.T) {
	got, err := Marshal(map[string]string{"a": `\u003c`, "b": "<"})
	if err != nil || string(got) != `{"a":"\\u003c","b":"<"}` {
		t.Errorf("Marshal = %s, %v", got, err)
	}
	got, _ = Marshal(`\u003c`)
	if string(got) != `"\\u003c"` {
		t.Errorf("Marshal = %s", got)
	}
}

func BenchmarkMarshal(b *testing.B) {
	v := map[string]any{"text": "hello world", "n": 3, "list": []any{1, 2, 3}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Marshal(v); err != nil {
			b.Fatal(err)
		}
	}
}
