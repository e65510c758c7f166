package viewer

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// htmlBody is about n bytes of HTML on one line, as a web page arrives.
func htmlBody(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>shop</title></head><body>`)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `<div class="item" id="i%05d"><a href="/p/%d">product %d</a><span>€%d.99</span></div>`, i, i, i, i%100)
	}
	b.WriteString(`</body></html>`)
	return b.String()
}

// longOutput is an HTTP tool's output whose body is s.
func longOutput(s string) json.RawMessage {
	out, _ := json.Marshal(map[string]any{"status": 200, "body": s})
	return out
}

// pagesOf pages through the whole view with pgdown and returns the text
// rows of the body, top to bottom, checking every row fits the width.
func pagesOf(t *testing.T, h *harness, w int) []string {
	t.Helper()
	v := h.v
	seen := map[int]string{}
	for pages := 0; ; pages++ {
		for i, l := range strings.Split(v.View(), "\n") {
			if cw := ansi.StringWidth(l); cw > w {
				t.Fatalf("a row is %d columns wide, on a screen of %d", cw, w)
			}
			if row := v.offset + i; i < v.bodyRows() && row < len(v.rows) && v.rows[row].sub > 0 {
				l = ansi.Strip(l)
				if !strings.HasPrefix(l, "›") && !strings.HasPrefix(l, " ") {
					t.Fatalf("row %q has no gutter", l)
				}
				_, size := utf8.DecodeRuneInString(l)
				seen[row] = l[size:]
			}
		}
		if v.offset+v.bodyRows() >= len(v.rows) {
			break
		}
		if pages > 100000 {
			t.Fatal("pgdown never reaches the bottom")
		}
		h.press("pgdown")
	}
	var rows []string
	for i := range len(v.rows) {
		if v.rows[i].sub > 0 {
			rows = append(rows, seen[i])
		}
	}
	return rows
}

// TestLongLinesWrap: a string of one long line (a 64 KiB HTML page, text
// with wide and accented letters) reads as text from the start, wrapped to
// the screen: paging from the top to the bottom shows all of it, in order,
// every row within the width.
func TestLongLinesWrap(t *testing.T) {
	for _, tc := range []struct {
		name, s string
	}{
		{"html", htmlBody(64 << 10)},
		{"wide", strings.Repeat("grüße 日本語のテキスト ✓ ", 2000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const w = 90
			h := newHarness(t, w, 30, longOutput(tc.s))
			h.mustContain(`"body": ⏎ one line of`, "wrapped")
			rows := pagesOf(t, h, w)
			if len(rows) < 2 {
				t.Fatalf("%d rows", len(rows))
			}
			const indent = "      " // the gutter, the key's indentation and the text's
			var joined strings.Builder
			for _, r := range rows {
				if !strings.HasPrefix(r, indent) {
					t.Fatalf("row %q lacks the indentation", r)
				}
				joined.WriteString(r[len(indent):])
			}
			if got := strings.TrimRight(joined.String(), " "); got != strings.TrimRight(tc.s, " ") {
				t.Fatalf("the rows are not the string: %d bytes against %d", len(got), len(tc.s))
			}
			h.press("t") // as JSON: one row, cut
			h.mustContain(`"body": "`)
			h.mustNotContain("wrapped")
		})
	}
}

// TestLongLineSearch: a match deep in a long line takes the cursor to the
// row it is on, and n to the next such row.
func TestLongLineSearch(t *testing.T) {
	s := htmlBody(64 << 10)
	h := newHarness(t, 100, 30, longOutput(s))
	h.press("/")
	h.typeText(`id="i00500"`)
	h.press("enter")
	h.mustContain(`id="i00500"`)
	if r := h.v.at(); r.sub != 1 || r.wrap == 0 {
		t.Fatalf("the match is at %+v", r)
	}
	h.press("/")
	h.typeText("product 7")
	h.press("enter")
	first := h.v.at()
	h.press("n")
	if next := h.v.at(); next.wrap <= first.wrap {
		t.Fatalf("n went from row %d to row %d", first.wrap, next.wrap)
	}
	h.mustContain("product 7")
}

// BenchmarkLongLine is a string of one long line: opening it (parse and
// the first frame) and a key with the frame after it. Budget: 16 ms.
func BenchmarkLongLine(b *testing.B) {
	for _, o := range []struct {
		name string
		s    string
	}{
		{"ascii_1MB", strings.Repeat("lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 1<<20/57)},
		{"wide_1MB", strings.Repeat("grüße 日本語のテキスト ✓ ", 1<<20/36)},
		{"html_64KiB", htmlBody(64 << 10)},
	} {
		out := longOutput(o.s)
		b.Run("string="+o.name+"/open", func(b *testing.B) {
			v := New(plainStyles())
			v.SetSize(120, 38)
			b.ReportAllocs()
			start := processCPU()
			for b.Loop() {
				v.SetOutput(out, nil, []string{"head"}, nil)
				_ = v.View()
			}
			reportCPU(b, start)
		})
		for _, k := range [][2]string{{"j", "k"}, {"G", "g"}, {"pgdown", "pgup"}, {"n", "N"}, {"t", "t"}} {
			b.Run("string="+o.name+"/key="+k[0], func(b *testing.B) {
				v := New(plainStyles())
				v.SetSize(120, 38)
				v.SetOutput(out, nil, []string{"head"}, nil)
				v.find("it")
				v.Update(keyMsg("pgdown"))
				b.ReportAllocs()
				i := 0
				start := processCPU()
				for b.Loop() {
					v.Update(keyMsg(k[i%2]))
					_ = v.View()
					i++
				}
				reportCPU(b, start)
			})
		}
	}
}
