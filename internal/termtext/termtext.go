package termtext

import (
	"io"
	"strings"
	"unicode/utf8"
)

// String returns s with every C0 control character but newline and tab, DEL, every C1 control
// character (U+0080 to U+009F) and every byte that is not UTF-8 replaced by a visible escape:
// \r, \x1b, \u009b, \x9b. What it returns holds no control sequence a terminal acts on. Text
// that is JSON stays JSON with the same value: control characters can only stand in a JSON
// string, where the escapes for C1 characters are JSON escapes too (and encoding/json already
// escapes C0 ones).
func String(s string) string { return escape(s, false) }

// Line is String for text shown on one line: newlines and tabs are escaped too.
func Line(s string) string { return escape(s, true) }

func escape(s string, line bool) string {
	i := unsafeIndex(s, line)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			b.WriteString(`\x`)
			b.WriteString(hex2(s[i]))
		case r == '\n' && !line || r == '\t' && !line:
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			b.WriteString(`\x`)
			b.WriteString(hex2(byte(r)))
		case r >= 0x80 && r <= 0x9f:
			b.WriteString(`\u00`)
			b.WriteString(hex2(byte(r)))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeIndex returns the index of the first byte String (or Line) would change, or -1.
func unsafeIndex(s string, line bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && (line || c != '\n' && c != '\t') || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 || r >= 0x80 && r <= 0x9f {
			return i
		}
		i += size
	}
	return -1
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&0xf]})
}

// Writer returns a writer that passes what is written to w through String. Each Write should
// hold whole characters (as fmt and encoding/json write): a character cut between two writes is
// escaped as the bytes it is made of.
func Writer(w io.Writer) io.Writer { return &writer{w} }

type writer struct{ w io.Writer }

func (w *writer) Write(p []byte) (int, error) {
	s := string(p)
	if unsafeIndex(s, false) < 0 {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, String(s)); err != nil {
		return 0, err
	}
	return len(p), nil
}
