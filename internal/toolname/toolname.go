package toolname

import "strings"

// Segment reports whether s is one segment of a tool name: a lower-case
// letter, then lower-case letters and digits, with single underscores
// between runs ("read_file", "v2").
func Segment(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '_' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case c == '_' && s[i-1] != '_':
		default:
			return false
		}
	}
	return true
}

// Valid reports whether name is a tool name: two or more segments joined
// by dots.
func Valid(name string) bool {
	segs := strings.Split(name, ".")
	if len(segs) < 2 {
		return false
	}
	for _, s := range segs {
		if !Segment(s) {
			return false
		}
	}
	return true
}

// ValidPattern reports whether pattern is "*" or two or more segments
// joined by dots, each a segment or "*".
func ValidPattern(pattern string) bool {
	if pattern == "*" {
		return true
	}
	segs := strings.Split(pattern, ".")
	if len(segs) < 2 {
		return false
	}
	for _, s := range segs {
		if s != "*" && !Segment(s) {
			return false
		}
	}
	return true
}

// Export spells a tool name for formats that refuse dots in names (OpenAI,
// Anthropic): each "." becomes "__". Valid names never hold "__", so the
// spelling is reversible (ParseExport), and a registry accepts both.
func Export(name string) string {
	return strings.ReplaceAll(name, ".", "__")
}

// ParseExport reverses Export.
func ParseExport(exported string) string {
	return strings.ReplaceAll(exported, "__", ".")
}

// Snake spells s in lower snake case, the closest name or key a person
// likely meant: "Demo.ReadFile" or "demo-read file" becomes
// "demo.read_file", "defaultTimeout" or "Default-Timeout" becomes
// "default_timeout". Dots stay; other characters separate words.
func Snake(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r >= 'A' && r <= 'Z':
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(r + 'a' - 'A')
			prevLower = false
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			prevLower = true
		case r == '.':
			b.WriteByte('.')
			prevLower = false
		default:
			if prevLower {
				b.WriteByte('_')
			}
			prevLower = false
		}
	}
	return strings.Trim(strings.ReplaceAll(b.String(), "__", "_"), "_.")
}

// Match reports whether the tool named name matches pattern, as
// config.Match documents: segments compare as with path.Match, the dot
// playing the part of the slash, and a last segment "*" stands for the rest
// of the name. An empty pattern or name matches nothing.
func Match(pattern, name string) bool {
	if pattern == "" || name == "" {
		return false
	}
	ps, ns := strings.Split(pattern, "."), strings.Split(name, ".")
	for i, p := range ps {
		if i >= len(ns) || ns[i] == "" {
			return false
		}
		if p == "*" {
			if i == len(ps)-1 {
				for _, n := range ns[i:] {
					if n == "" {
						return false
					}
				}
				return true
			}
			continue
		}
		if p != ns[i] {
			return false
		}
	}
	return len(ns) == len(ps)
}
