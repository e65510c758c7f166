package bindings

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A statement of a SQL binding names its parameters as :name, each a
// property of the tool's input. The statement is split once, when the tool
// is compiled, into the text the driver receives (":name" replaced by the
// driver's numbered placeholder, $1 for PostgreSQL and ?1 for SQLite) and
// the order in which the arguments are bound. Nothing of an argument is
// ever put into the text.

// sqlStatement is a statement split into the driver's text and its
// parameters.
type sqlStatement struct {
	text      string   // the driver's text, with numbered placeholders
	params    []string // the parameters by number: params[0] is $1 or ?1
	returning bool     // the statement has a RETURNING clause
	rows      bool     // the statement is a query (SELECT, VALUES, WITH without a write...)
}

// sqlToken is a piece of a statement: code, or something the scanner
// skips over (a string literal, a quoted identifier, a comment).
type sqlToken struct {
	text    string
	code    bool // outside literals, quoted identifiers and comments
	literal bool // a string literal ('...', E'...'), not a dollar-quoted body
}

// sqlTokens splits a statement into code and the literals, quoted
// identifiers and comments between it, in the syntax of both PostgreSQL and
// SQLite. An unterminated literal or comment is an error.
func sqlTokens(stmt string) ([]sqlToken, error) {
	var out []sqlToken
	code := 0 // start of the current run of code
	flush := func(i int) {
		if i > code {
			out = append(out, sqlToken{text: stmt[code:i], code: true})
		}
	}
	for i := 0; i < len(stmt); {
		c := stmt[i]
		end, literal := -1, false
		var what string
		switch {
		case c == '\'':
			// E'...' takes backslash escapes (PostgreSQL).
			backslash := i > 0 && (stmt[i-1] == 'E' || stmt[i-1] == 'e') && (i < 2 || !identByte(stmt[i-2]))
			end, literal, what = quoted(stmt, i, '\'', backslash), true, "string literal"
		case c == '"' || c == '`':
			end, what = quoted(stmt, i, c, false), "quoted identifier"
		case c == '-' && strings.HasPrefix(stmt[i:], "--"):
			if j := strings.IndexByte(stmt[i:], '\n'); j >= 0 {
				end = i + j + 1
			} else {
				end = len(stmt)
			}
		case c == '/' && strings.HasPrefix(stmt[i:], "/*"):
			if j := strings.Index(stmt[i+2:], "*/"); j >= 0 {
				end = i + 2 + j + 2
			}
			what = "comment"
		case c == '$' && (i == 0 || !identByte(stmt[i-1])):
			tag, ok := dollarTag(stmt[i:])
			if !ok {
				i++
				continue
			}
			if j := strings.Index(stmt[i+len(tag):], tag); j >= 0 {
				end = i + len(tag) + j + len(tag)
			}
			what = "dollar-quoted string"
		default:
			i++
			continue
		}
		if end < 0 {
			return nil, fmt.Errorf("unterminated %s at offset %d", what, i)
		}
		flush(i)
		out = append(out, sqlToken{text: stmt[i:end], literal: literal})
		code, i = end, end
	}
	flush(len(stmt))
	return out, nil
}

// quoted returns the end of the quoted run starting at i (q doubled inside
// is q itself; with backslash, \q too), or -1 when it never ends.
func quoted(s string, i int, q byte, backslash bool) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if backslash {
				j++
			}
		case q:
			if j+1 < len(s) && s[j+1] == q {
				j++
				continue
			}
			return j + 1
		}
	}
	return -1
}

// dollarTag returns the opening tag of a PostgreSQL dollar-quoted string
// ("$$" or "$tag$") at the start of s.
func dollarTag(s string) (string, bool) {
	for j := 1; j < len(s); j++ {
		switch {
		case s[j] == '$':
			return s[:j+1], true
		case identByte(s[j]) && !(j == 1 && s[j] >= '0' && s[j] <= '9'):
		default:
			return "", false
		}
	}
	return "", false
}

func identByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func identStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// parseSQL splits stmt for driver ("sqlite" or "postgres"). It refuses a
// second statement after a semicolon, the driver's own placeholders (they
// could not be bound by name), and text interpolation.
func parseSQL(stmt, driver string) (*sqlStatement, error) {
	if problems := sqlInterpolation(stmt); len(problems) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	toks, err := sqlTokens(stmt)
	if err != nil {
		return nil, err
	}
	st := &sqlStatement{}
	number := map[string]int{}
	var b strings.Builder
	b.Grow(len(stmt))
	ended := false // a semicolon has been seen
	first, writes := "", false
	for _, t := range toks {
		if !t.code {
			if ended && !strings.HasPrefix(t.text, "--") && !strings.HasPrefix(t.text, "/*") {
				return nil, fmt.Errorf("one statement only: text follows the semicolon")
			}
			b.WriteString(t.text)
			continue
		}
		s := t.text
		for i := 0; i < len(s); i++ {
			c := s[i]
			if ended && !isSpace(c) {
				return nil, fmt.Errorf("one statement only: text follows the semicolon")
			}
			switch {
			case c == ';':
				ended = true
			case c == ':' && i+1 < len(s) && s[i+1] == ':':
				b.WriteString("::") // a PostgreSQL cast
				i++
				continue
			case c == ':' && i+1 < len(s) && identStart(s[i+1]) && (i == 0 || !identByte(s[i-1])):
				j := i + 1
				for j < len(s) && identByte(s[j]) {
					j++
				}
				name := s[i+1 : j]
				n, ok := number[name]
				if !ok {
					st.params = append(st.params, name)
					n = len(st.params)
					number[name] = n
				}
				if driver == "postgres" {
					b.WriteString("$" + strconv.Itoa(n))
				} else {
					b.WriteString("?" + strconv.Itoa(n))
				}
				i = j - 1
				continue
			case c == '$' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
				return nil, fmt.Errorf("positional placeholder %s: name the parameter, as :name", leadingWord(s[i:]))
			case driver == "sqlite" && c == '?':
				return nil, fmt.Errorf("positional placeholder %s: name the parameter, as :name", leadingWord(s[i:]))
			case driver == "sqlite" && (c == '@' || c == '$') && i+1 < len(s) && identStart(s[i+1]):
				return nil, fmt.Errorf("placeholder %s: write it as :%s", leadingWord(s[i:]), leadingWord(s[i+1:]))
			}
			if identStart(c) && (i == 0 || !identByte(s[i-1])) {
				w := leadingWord(s[i:])
				switch lw := strings.ToLower(w); {
				case first == "":
					first = lw
				case lw == "returning":
					st.returning = true
				case lw == "insert" || lw == "update" || lw == "delete" || lw == "merge" || lw == "replace":
					writes = true
				}
				b.WriteString(w)
				i += len(w) - 1
				continue
			}
			b.WriteByte(c)
		}
	}
	st.text = strings.TrimRightFunc(strings.TrimSpace(b.String()), func(r rune) bool { return r == ';' || r == ' ' || r == '\n' || r == '\t' || r == '\r' })
	if strings.TrimSpace(st.text) == "" {
		return nil, fmt.Errorf("the statement is empty")
	}
	switch first {
	case "select", "values", "table", "pragma", "show", "explain":
		st.rows = true
	case "with":
		st.rows = !writes
	}
	return st, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// leadingWord is the placeholder or identifier at the start of s.
func leadingWord(s string) string {
	j := 1
	for j < len(s) && identByte(s[j]) {
		j++
	}
	if !identByte(s[0]) && j == 1 {
		return s[:1]
	}
	return s[:j]
}

var (
	// {{name}}, ${name}: a template would splice text.
	sqlTemplate = regexp.MustCompile(`\$\{[^}]*\}?|\{\{[^}]*\}?\}?`)
	// {name}: a template outside a literal; inside one, also a PostgreSQL
	// array ('{sale}'), refused when it names an input property.
	sqlBrace = regexp.MustCompile(`\{\s*([A-Za-z_][A-Za-z0-9_.]*)\s*\}`)
	// printf and Python format verbs: %s, %d, %v, %(name)s.
	sqlFormat = regexp.MustCompile(`%(\([A-Za-z_][A-Za-z0-9_]*\))?[sdvq]\b`)
	// Host-language concatenation: '...' + name, name + '...', " + name + ".
	sqlConcat = regexp.MustCompile(`'\s*\+\s*[A-Za-z_]|[A-Za-z0-9_)]\s*\+\s*'|"\s*\+\s*[A-Za-z_][A-Za-z0-9_.]*\s*\+\s*"`)
	// :name inside a string literal is text, not a placeholder.
	sqlQuotedParam = regexp.MustCompile(`(^|[^:A-Za-z0-9_]):[A-Za-z_][A-Za-z0-9_]*`)
)

// sqlInterpolation lists the signs of text interpolation in a statement, each
// a sentence naming what was found: templates (${x}, {{x}}, {x} outside
// quotes; compileSQL also refuses '{x}' when x is an input property), format
// verbs (%s), concatenation with a quote, and a :name inside a string
// literal, where it would be text and never bound. A statement passes only
// values, through its :name placeholders. The tools-file lint reports these
// too.
func sqlInterpolation(stmt string) []string {
	var out []string
	for _, m := range sqlTemplate.FindAllString(stmt, -1) {
		out = append(out, fmt.Sprintf("%q is text interpolation: pass the value as a :name placeholder", m))
	}
	for _, m := range sqlFormat.FindAllString(stmt, -1) {
		out = append(out, fmt.Sprintf("%q is a format verb: pass the value as a :name placeholder", m))
	}
	for _, m := range sqlConcat.FindAllString(stmt, -1) {
		out = append(out, fmt.Sprintf("%q concatenates text into the statement: pass the value as a :name placeholder", m))
	}
	toks, err := sqlTokens(stmt)
	if err != nil {
		return out
	}
	for _, t := range toks {
		if t.code {
			for _, m := range sqlBrace.FindAllString(t.text, -1) {
				out = append(out, fmt.Sprintf("%q is text interpolation: pass the value as a :name placeholder", m))
			}
		}
		if !t.literal {
			continue
		}
		for _, m := range sqlQuotedParam.FindAllStringSubmatch(t.text, -1) {
			p := strings.TrimPrefix(m[0], m[1])
			out = append(out, fmt.Sprintf("%s inside the string literal %s is text, never bound: write the placeholder outside the quotes ('%%' || %s || '%%')", p, t.text, p))
		}
	}
	return out
}
