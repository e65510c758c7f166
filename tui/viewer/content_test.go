package viewer

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

func TestContentLines(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(make([]byte, 12595)) // 12.3 KB
	wav := base64.StdEncoding.EncodeToString(make([]byte, 100))
	blocks := `[
 {"type":"text","text":"first line\nsecond\nthird"},
 {"type":"image","mimeType":"image/png","data":"` + png + `"},
 {"type":"audio","mimeType":"audio/wav","data":"` + wav + `"},
 {"type":"resource_link","uri":"test://static/resource/1","name":"Resource 1","mimeType":"text/plain"},
 {"type":"resource","resource":{"uri":"test://doc","mimeType":"text/markdown","text":"# hi"}},
 {"type":"image","data":"AAAA"}
]`
	got := ContentLines(json.RawMessage(blocks), 80)
	want := []string{
		"text: first line (2 more lines)",
		"[image/png, 12.3 KB]",
		"[audio/wav, 100 B]",
		"link: Resource 1 <test://static/resource/1> (text/plain)",
		"resource: test://doc (text/markdown, 4 B of text)",
		"[image of unknown type, 3 B]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, out := range []string{`{"type":"text"}`, `[]`, `[1,2]`, `[{"type":"video"}]`, `"text"`, ``} {
		if got := ContentLines(json.RawMessage(out), 80); got != nil {
			t.Errorf("%s: %q, want none", out, got)
		}
	}
}
