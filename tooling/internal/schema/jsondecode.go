package schema

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// maxJSONDepth is how deeply arrays and objects may nest, as in encoding/json.
const maxJSONDepth = 10000

// jsonSyntaxError is malformed JSON at a byte offset.
type jsonSyntaxError struct {
	Offset int64  // byte offset of the problem: the offending byte, or len(input) when the input ends early
	Msg    string // what is wrong, in the words of encoding/json where it has them
}

// Error returns Msg alone (as encoding/json's SyntaxError does); Offset says where.
func (e *jsonSyntaxError) Error() string { return e.Msg }

// parseJSON decodes exactly one JSON value from b (surrounding white space allowed) into
// map[string]any, []any, string, bool, nil and json.Number (numbers kept as their literal text),
// exactly as encoding/json with UseNumber would, or returns a *jsonSyntaxError.
//
// It accepts exactly the inputs json.Valid accepts. Empty objects and arrays are non-nil,
// duplicate keys keep their last value, escapes and surrogate pairs are decoded, and lone
// surrogates and invalid UTF-8 become U+FFFD, all as encoding/json does. Messages are those of
// encoding/json's SyntaxError ("invalid character 'x' looking for beginning of value",
// "unexpected end of JSON input"), except for "unexpected data after the value",
// "nesting deeper than 10000 levels", and input that stops inside a number, a literal or an
// escape, which is "unexpected end of JSON input" too (encoding/json blames a space it
// imagines at the end). Offset is the offending byte itself, where encoding/json counts the
// bytes read up to and including it.
//
// The result shares no memory with b nor between its parts: every key, string and number is
// a string of its own and every array has its own elements, so a part a tool keeps (one short
// string of a megabyte of arguments) keeps only itself alive, as with encoding/json.
func parseJSON(b []byte) (any, error) {
	p := jsonParsers.Get().(*jsonParser)
	p.src = b
	v, i := p.value(0, 0)
	if i >= 0 {
		i = skipJSONSpace(p.src, i)
		if i < len(p.src) {
			p.fail(i, "unexpected data after the value")
			i = -1
		}
	}
	err := p.err
	p.reset()
	jsonParsers.Put(p)
	if i < 0 {
		return nil, err
	}
	return v, nil
}

var jsonParsers = sync.Pool{New: func() any { return new(jsonParser) }}

// jsonMaxScratch bounds the scratch space a pooled parser keeps for the next input.
const jsonMaxScratch = 64 << 10

// jsonParser is the state of one parse; parsers are pooled with their scratch space.
type jsonParser struct {
	src []byte // the input, only read and never kept in the result
	err *jsonSyntaxError
	buf []byte // unescaped string bytes

	// The elements and members of the arrays and objects being parsed, innermost last:
	// elems[:nelems] and members[:nmembers], which have reached elemsUsed and membersUsed.
	elems                  []any
	members                []jsonMember
	nelems, nmembers       int
	elemsUsed, membersUsed int
}

type jsonMember struct {
	key string
	val any
}

// reset drops every reference to the input and to decoded values.
func (p *jsonParser) reset() {
	p.src = nil
	p.err = nil
	clear(p.elems[:max(p.nelems, p.elemsUsed)])
	clear(p.members[:max(p.nmembers, p.membersUsed)])
	p.nelems, p.nmembers, p.elemsUsed, p.membersUsed = 0, 0, 0, 0
	if cap(p.buf) > jsonMaxScratch {
		p.buf = nil
	}
	if len(p.elems) > jsonMaxScratch/16 {
		p.elems = nil
	}
	if len(p.members) > jsonMaxScratch/32 {
		p.members = nil
	}
}

func (p *jsonParser) fail(i int, msg string) int {
	p.err = &jsonSyntaxError{Offset: int64(i), Msg: msg}
	return -1
}

// failChar reports the byte at i as encoding/json does: "invalid character 'c' " + context.
func (p *jsonParser) failChar(i int, context string) int {
	return p.fail(i, "invalid character "+quoteJSONChar(p.src[i])+" "+context)
}

func (p *jsonParser) eof() int {
	return p.fail(len(p.src), "unexpected end of JSON input")
}

// quoteJSONChar quotes c as encoding/json's messages do.
func quoteJSONChar(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

func isJSONSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r'
}

// skipJSONSpace returns the offset of the first non-space byte at or after i.
func skipJSONSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && isJSONSpace(b[i]) {
		i++
	}
	return i
}

// emptyJSONArray is every decoded []: non-nil like encoding/json's, and with no capacity
// nothing can be stored through it.
var emptyJSONArray any = []any{}

// value parses the value that starts at or after i (after white space), at nesting depth, and
// returns it with the offset after it, or offset -1 and p.err.
func (p *jsonParser) value(i, depth int) (any, int) {
	data := p.src
	if i < len(data) && data[i] <= ' ' {
		i = skipJSONSpace(data, i)
	}
	if i >= len(data) {
		return nil, p.eof()
	}
	switch c := data[i]; c {
	case '"':
		if s, j := p.scanString(i + 1); j >= 0 {
			return s, j
		}
		return nil, -1
	case '{':
		return p.object(i, depth+1)
	case '[':
		return p.array(i, depth+1)
	case 't':
		return true, p.literal(i, "true")
	case 'f':
		return false, p.literal(i, "false")
	case 'n':
		return nil, p.literal(i, "null")
	default:
		if c == '-' || '0' <= c && c <= '9' {
			return p.number(i)
		}
		return nil, p.failChar(i, "looking for beginning of value")
	}
}

// literal checks that lit starts at i.
func (p *jsonParser) literal(i int, lit string) int {
	data := p.src
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	for k := 1; k < len(lit); k++ {
		if i+k >= len(data) {
			return p.eof()
		}
		if data[i+k] != lit[k] {
			return p.failChar(i+k, "in literal "+lit+" (expecting "+quoteJSONChar(lit[k])+")")
		}
	}
	return i + len(lit) // not reached: the fast check above matched
}

func (p *jsonParser) array(i, depth int) (any, int) {
	if depth > maxJSONDepth {
		return nil, p.fail(i, "nesting deeper than 10000 levels")
	}
	data := p.src
	i = skipJSONSpace(data, i+1)
	if i >= len(data) {
		return nil, p.eof()
	}
	if data[i] == ']' {
		return emptyJSONArray, i + 1
	}
	start := p.nelems
	for {
		v, j := p.value(i, depth)
		if j < 0 {
			return nil, -1
		}
		if p.nelems == len(p.elems) {
			p.elems = slices.Grow(p.elems, 16)
			p.elems = p.elems[:cap(p.elems)]
		}
		p.elems[p.nelems] = v
		p.nelems++
		if j < len(data) && data[j] <= ' ' {
			j = skipJSONSpace(data, j)
		}
		if j >= len(data) {
			return nil, p.eof()
		}
		if c := data[j]; c == ']' {
			i = j + 1
			break
		} else if c != ',' {
			return nil, p.failChar(j, "after array element")
		}
		i = j + 1
	}
	p.elemsUsed = max(p.elemsUsed, p.nelems)
	a := make([]any, p.nelems-start)
	copy(a, p.elems[start:p.nelems])
	p.nelems = start
	return a, i
}

func (p *jsonParser) object(i, depth int) (any, int) {
	if depth > maxJSONDepth {
		return nil, p.fail(i, "nesting deeper than 10000 levels")
	}
	data := p.src
	i = skipJSONSpace(data, i+1)
	if i >= len(data) {
		return nil, p.eof()
	}
	if data[i] == '}' {
		return map[string]any{}, i + 1
	}
	start := p.nmembers
	for {
		if data[i] != '"' {
			return nil, p.failChar(i, "looking for beginning of object key string")
		}
		k, j := p.scanString(i + 1)
		if j < 0 {
			return nil, -1
		}
		if j < len(data) && data[j] <= ' ' {
			j = skipJSONSpace(data, j)
		}
		if j >= len(data) {
			return nil, p.eof()
		}
		if data[j] != ':' {
			return nil, p.failChar(j, "after object key")
		}
		v, j := p.value(j+1, depth)
		if j < 0 {
			return nil, -1
		}
		if p.nmembers == len(p.members) {
			p.members = slices.Grow(p.members, 16)
			p.members = p.members[:cap(p.members)]
		}
		p.members[p.nmembers] = jsonMember{k, v}
		p.nmembers++
		if j < len(data) && data[j] <= ' ' {
			j = skipJSONSpace(data, j)
		}
		if j >= len(data) {
			return nil, p.eof()
		}
		if c := data[j]; c == '}' {
			i = j + 1
			break
		} else if c != ',' {
			return nil, p.failChar(j, "after object key:value pair")
		}
		i = skipJSONSpace(data, j+1)
		if i >= len(data) {
			return nil, p.eof()
		}
	}
	p.membersUsed = max(p.membersUsed, p.nmembers)
	members := p.members[start:p.nmembers]
	m := make(map[string]any, len(members))
	for _, e := range members {
		m[e.key] = e.val // a repeated key keeps its last value
	}
	p.nmembers = start
	return m, i
}

// scanString parses the string whose content starts at i and returns it with the offset
// after its closing quote, or -1. Content that needs no decoding (no escapes, valid UTF-8)
// is copied as it is.
func (p *jsonParser) scanString(i int) (string, int) {
	data := p.src
	j := i
	for j+8 <= len(data) && plainJSONWord(data[j:j+8]) {
		j += 8
	}
	for j < len(data) {
		c := data[j]
		if c < utf8.RuneSelf {
			if plainJSONByte[c] {
				j++
				continue
			}
			if c == '"' {
				return string(data[i:j]), j + 1
			}
			break // escape or control character
		}
		r, size := utf8.DecodeRune(data[j:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		j += size
	}
	if j = p.unescape(i, j); j < 0 {
		return "", -1
	}
	return string(p.buf), j
}

// unescape decodes into p.buf the string whose content starts at i and whose first
// j-i bytes need no decoding, as encoding/json does, and returns the offset after the
// closing quote, or -1.
func (p *jsonParser) unescape(i, j int) int {
	data := p.src
	buf := append(p.buf[:0], data[i:j]...)
	for {
		if j >= len(data) {
			return p.eof()
		}
		c := data[j]
		switch {
		case c == '"':
			p.buf = buf
			return j + 1
		case c == '\\':
			j++
			if j >= len(data) {
				return p.eof()
			}
			switch e := data[j]; e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, k := p.hex4(j + 1)
				if k < 0 {
					return -1
				}
				j = k
				if utf16.IsSurrogate(r) {
					// A pair needs the next escape to be its low half; otherwise this one
					// alone becomes U+FFFD and the next is decoded on its own.
					r2 := rune(-1)
					if j+6 <= len(data) && data[j] == '\\' && data[j+1] == 'u' {
						r2 = parseJSONHex4(data[j+2 : j+6])
					}
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						buf = utf8.AppendRune(buf, d)
						j += 6
						continue
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
				continue
			default:
				return p.failChar(j, "in string escape code")
			}
			j++
		case c < ' ':
			return p.failChar(j, "in string literal")
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			j++
		default:
			r, size := utf8.DecodeRune(data[j:])
			if r == utf8.RuneError && size == 1 {
				buf = append(buf, "\uFFFD"...)
			} else {
				buf = append(buf, data[j:j+size]...)
			}
			j += size
		}
	}
}

// hex4 reads the four hex digits of a \u escape starting at i.
func (p *jsonParser) hex4(i int) (rune, int) {
	data := p.src
	var r rune
	for k := i; k < i+4; k++ {
		if k >= len(data) {
			return 0, p.eof()
		}
		d := jsonHexValue[data[k]]
		if d < 0 {
			return 0, p.failChar(k, "in \\u hexadecimal character escape")
		}
		r = r<<4 | rune(d)
	}
	return r, i + 4
}

// parseJSONHex4 is the value of four hex digits, or -1.
func parseJSONHex4(b []byte) rune {
	var r rune
	for k := range len(b) {
		d := jsonHexValue[b[k]]
		if d < 0 {
			return -1
		}
		r = r<<4 | rune(d)
	}
	return r
}

// number parses the number that starts at i and returns it as a json.Number.
func (p *jsonParser) number(i int) (any, int) {
	data := p.src
	start := i
	if data[i] == '-' {
		i++
		if i >= len(data) {
			return nil, p.eof()
		}
	}
	switch c := data[i]; {
	case c == '0':
		i++
	case '1' <= c && c <= '9':
		i++
		for i < len(data) && isJSONDigit(data[i]) {
			i++
		}
	default:
		return nil, p.failChar(i, "in numeric literal")
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) {
			return nil, p.eof()
		}
		if !isJSONDigit(data[i]) {
			return nil, p.failChar(i, "after decimal point in numeric literal")
		}
		for i++; i < len(data) && isJSONDigit(data[i]); i++ {
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) {
			return nil, p.eof()
		}
		if !isJSONDigit(data[i]) {
			return nil, p.failChar(i, "in exponent of numeric literal")
		}
		for i++; i < len(data) && isJSONDigit(data[i]); i++ {
		}
	}
	return json.Number(string(data[start:i])), i
}

func isJSONDigit(c byte) bool { return '0' <= c && c <= '9' }

// plainJSONWord reports whether all eight bytes of w are plainJSONByte: none is a control
// character, a quote, a backslash or part of a multi-byte sequence.
func plainJSONWord(w []byte) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := binary.LittleEndian.Uint64(w)
	q := x ^ ones*'"'
	b := x ^ ones*'\\'
	// (v - ones*n) & ^v & highs is non-zero exactly when some byte of v is below n (n <= 0x80).
	return ((x-ones*' ')&^x|(q-ones)&^q|(b-ones)&^b|x)&highs == 0
}

// plainJSONByte is true for the ASCII bytes a string holds as they are.
var plainJSONByte = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// jsonHexValue is the value of a hex digit, or -1.
var jsonHexValue = func() (t [256]int8) {
	for c := range t {
		switch {
		case '0' <= c && c <= '9':
			t[c] = int8(c - '0')
		case 'a' <= c && c <= 'f':
			t[c] = int8(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			t[c] = int8(c - 'A' + 10)
		default:
			t[c] = -1
		}
	}
	return t
}()
