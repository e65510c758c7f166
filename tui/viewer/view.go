package viewer

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// View draws the rows on screen, the search line and the copy panel.
func (v *Model) View() string {
	st := v.st
	var b strings.Builder
	if v.tab != nil {
		b.WriteString(v.tableView())
	} else {
		end := min(v.offset+v.bodyRows(), len(v.rows))
		for i := v.offset; i < end; i++ {
			if i > v.offset {
				b.WriteByte('\n')
			}
			b.WriteString(v.renderRow(v.rows[i], i == v.cursor))
		}
		for i := end; i < v.offset+v.bodyRows(); i++ {
			b.WriteByte('\n')
		}
	}
	if v.copied != "" {
		title := st.Label.Render("Copied (also sent to the clipboard with OSC 52):")
		b.WriteString("\n" + title + "\n" + st.Panel.Width(max(v.w, 20)).Render(strings.Join(v.panelText(), "\n")))
	}
	if v.jqLines() > 0 {
		b.WriteString("\n" + v.jqView())
	}
	switch {
	case v.searching:
		b.WriteString("\n" + v.search.View())
	case v.query != "":
		b.WriteString("\n" + st.Faint.Render(cut(fmt.Sprintf("/%s: %s · n next · N previous · / new search", v.query, matches(len(v.matches))), v.w)))
	}
	return b.String()
}

// maxRowBytes bounds what a row draws of a long line before cutting it to
// the width: a 1 MiB string costs no more than a short one.
func (v *Model) maxRowBytes() int { return 4*v.w + 64 }

// renderRow draws one row: a gutter (cursor, fold marker, error mark),
// the indentation and the line.
func (v *Model) renderRow(r vrow, selected bool) string {
	st := v.st
	switch r.part {
	case partHead:
		return v.finish(v.head[r.line], selected, false)
	case partTail:
		return v.finish(v.tail[r.line], selected, false)
	}
	t := v.tree
	l := &t.lines[r.line]
	gutter := "  "
	switch {
	case l.mark != "":
		gutter = "✗ "
	case l.kind == vOpen && l.count == 0:
	case l.kind == vOpen && v.folded[r.line]:
		gutter = "▸ "
	case l.kind == vOpen:
		gutter = "▾ "
	}
	indent := strings.Repeat("  ", int(l.depth))
	hit := v.query != "" && v.isMatch(r)
	color := st.Color && !hit && !selected
	var line string
	switch {
	case r.sub > 0: // a line of a string shown as text, or a piece of it
		w := v.textWidth(l)
		line = indent + "  " + t.wrapped(r.line, r.sub, w).piece(t.textLines(r.line)[r.sub-1], w, int(r.wrap))
		if color {
			line = st.JSONString.Render(line)
		}
	default:
		key := l.key
		if color && key != "" {
			key = st.JSONKey.Render(strings.TrimSuffix(key, ": ")) + st.JSONPunct.Render(": ")
		}
		val := l.val
		style := st.JSONPunct
		switch l.kind {
		case vString:
			style = st.JSONString
			switch {
			case v.asText(l) && l.nl == 1:
				val, style = "⏎ one line of "+plural(int(l.runes), "character")+", wrapped", st.Faint
			case v.asText(l):
				val, style = "⏎ "+plural(int(l.nl), "line"), st.Faint
			case v.plain:
				val = `"` + l.str + `"`
			}
			val = v.limit(val)
		case vScalar:
			style = st.JSONNumber
			switch val {
			case "true", "false":
				style = st.JSONBool
			case "null":
				style = st.JSONNull
			}
		case vOpen:
			switch {
			case l.count == 0 && l.array:
				val = "[]"
			case l.count == 0:
				val = "{}"
			case v.folded[r.line]:
				val = folded(l)
			}
			if l.count == 0 || v.folded[r.line] {
				val += comma(t.lines[l.end].comma)
			}
		}
		val += comma(l.comma)
		if color {
			val = style.Render(val)
		}
		line = indent + key + val
	}
	if l.mark != "" && r.sub == 0 {
		mark := "  ← " + l.mark
		if !selected {
			mark = st.Err.Render(mark)
		}
		line += mark
	}
	if hit {
		line = v.highlight(line)
	}
	return v.finish(gutter+line, selected, hit)
}

func matches(n int) string {
	if n == 1 {
		return "1 match"
	}
	return fmt.Sprintf("%d matches", n)
}

func comma(on bool) string {
	if on {
		return ","
	}
	return ""
}

// folded is how a folded value reads: {…} 3 keys, […] 2 items.
func folded(l *vline) string {
	if l.array {
		return "[…] " + plural(int(l.count), "item")
	}
	return "{…} " + plural(int(l.count), "key")
}

// limit shortens s to what a row can show.
func (v *Model) limit(s string) string {
	if n := v.maxRowBytes(); len(s) > n {
		s = s[:n]
	}
	return s
}

// finish adds the cursor and fits the row to the width.
func (v *Model) finish(line string, selected, hit bool) string {
	st := v.st
	if selected {
		line = st.Cursor.Render("›") + line
		if st.Color && !hit {
			return st.Selected.Render(pad(ansi.Strip(line), v.w))
		}
		return cut(line, v.w)
	}
	return cut(" "+line, v.w)
}

// isMatch reports whether row r is one of the search's matches.
func (v *Model) isMatch(r vrow) bool {
	lo, hi := 0, len(v.matches)
	for lo < hi {
		mid := (lo + hi) / 2
		if before(v.matches[mid], r) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < len(v.matches) && v.matches[lo] == r
}

// highlight marks the occurrences of the query in plain s.
func (v *Model) highlight(s string) string {
	s = ansi.Strip(s)
	lower := strings.ToLower(s)
	if len(lower) != len(s) { // case folding changed the length: mark nothing
		return s
	}
	var b strings.Builder
	style := lipgloss.NewStyle().Reverse(true)
	for {
		i := strings.Index(lower, v.query)
		if i < 0 || v.query == "" {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(v.query)
		b.WriteString(s[:i] + style.Render(s[i:j]))
		s, lower = s[j:], lower[j:]
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
