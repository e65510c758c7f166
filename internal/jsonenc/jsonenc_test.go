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
