package viewer

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// width is the number of columns s takes.
func width(s string) int {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c < 0x20 {
			return ansi.StringWidth(s)
		}
	}
	return len(s)
}

// cut truncates one line to w columns, with an ellipsis when it is cut.
func cut(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if len(s) <= w || width(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// pad cuts s to w columns and fills it up to w with spaces.
func pad(s string, w int) string {
	s = cut(s, w)
	if n := w - width(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// firstLine returns the first line of s, trimmed.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// padLeft right-aligns s in w columns.
func padLeft(s string, w int) string {
	s = cut(s, w)
	if n := w - width(s); n > 0 {
		s = strings.Repeat(" ", n) + s
	}
	return s
}
