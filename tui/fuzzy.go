package tui

import "strings"

// The filter of the tool list scores each tool against the words of the
// query; a tool must match every word. A word scores, best first: as a
// substring of the name (more at its start or after a '.' or '_'), as a
// subsequence of the name, as a substring of the title, of a parameter
// name, of the description, and last as a subsequence of the title or of
// a parameter name. The description is only searched for substrings: a
// short word is a subsequence of almost any paragraph.
//
// Everything is lower-cased once, when the list is built, so a keystroke
// costs a few strings.Index calls per tool.

const (
	scoreNameSub    = 1000
	scoreNameSeq    = 600
	scoreTitleSub   = 400
	scoreParamSub   = 300
	scoreDescSub    = 150
	scoreTitleSeq   = 100
	scoreParamSeq   = 80
	scoreBoundary   = 200 // the match starts a word of the name
	scoreExactName  = 500 // the word is the whole name or its last segment
	scorePrefixName = 300 // the name starts with the word
)

// filterText is the lower-cased text of a tool the filter searches.
type filterText struct {
	name, title, desc string
	params            string   // parameter names joined by '\x00'
	mask              charMask // of all four
	nameMask          charMask
	titleMask         charMask
	paramsMask        charMask
	descMask          charMask
}

func newFilterText(name, title, desc string, params []string) filterText {
	t := filterText{
		name:   strings.ToLower(name),
		title:  strings.ToLower(title),
		desc:   strings.ToLower(desc),
		params: strings.ToLower(strings.Join(params, "\x00")),
	}
	t.nameMask, t.titleMask, t.paramsMask, t.descMask = maskOf(t.name), maskOf(t.title), maskOf(t.params), maskOf(t.desc)
	t.mask = t.nameMask | t.titleMask | t.paramsMask | t.descMask
	return t
}

// charMask is the set of bytes a text holds, folded into 64 bits: a word
// with a byte outside a tool's mask cannot match it, which rejects most
// tools for a rare letter without searching their text.
type charMask uint64

func maskOf(s string) charMask {
	var m charMask
	for i := 0; i < len(s); i++ {
		m |= 1 << (s[i] & 63)
	}
	return m
}

// query is the parsed filter: its words and the bytes they need.
type query struct {
	words []string
	masks []charMask // of each word
	mask  charMask   // of them all
}

func parseQuery(q string) query {
	words := strings.Fields(strings.ToLower(q))
	out := query{words: words, masks: make([]charMask, len(words))}
	for i, w := range words {
		out.masks[i] = maskOf(w)
		out.mask |= out.masks[i]
	}
	return out
}

// score returns how well q matches t, 0 when a word does not match.
func (t *filterText) score(q *query) int {
	if t.mask&q.mask != q.mask {
		return 0
	}
	total := 0
	for i, w := range q.words {
		s := t.scoreWord(w, q.masks[i])
		if s == 0 {
			return 0
		}
		total += s
	}
	return total
}

// narrows reports whether every tool matching next also matches prev, so
// that next can be searched among prev's matches only: next extends prev
// (typing on), and every way a word matches also matches its prefixes.
func narrows(prev, next string) bool {
	return prev != "" && strings.HasPrefix(next, prev)
}

func (t *filterText) scoreWord(w string, m charMask) int {
	if t.nameMask&m == m {
		if i := strings.Index(t.name, w); i >= 0 {
			s := scoreNameSub - min(i, 100)
			switch {
			case i == 0:
				s += scorePrefixName
			case isBoundary(t.name[i-1]):
				s += scoreBoundary
			}
			n := len(t.name)
			if n == len(w) || n > len(w) && t.name[n-len(w)-1] == '.' && strings.HasSuffix(t.name, w) {
				s += scoreExactName
			}
			return s
		}
		if g, ok := subsequence(t.name, w); ok {
			return scoreNameSeq - min(g, 500)
		}
	}
	inTitle, inParams := t.titleMask&m == m, t.paramsMask&m == m
	if inTitle && strings.Contains(t.title, w) {
		return scoreTitleSub
	}
	if inParams && strings.Contains(t.params, w) {
		return scoreParamSub
	}
	if t.descMask&m == m && strings.Contains(t.desc, w) {
		return scoreDescSub
	}
	if inTitle {
		if _, ok := subsequence(t.title, w); ok {
			return scoreTitleSeq
		}
	}
	if inParams {
		for p := range strings.SplitSeq(t.params, "\x00") {
			if _, ok := subsequence(p, w); ok {
				return scoreParamSeq
			}
		}
	}
	return 0
}

func isBoundary(c byte) bool { return c == '.' || c == '_' || c == '-' || c == ' ' }

// subsequence reports whether w's bytes occur in s in order, and the
// number of bytes skipped between the first and the last match (the gaps:
// fewer is better).
func subsequence(s, w string) (gaps int, ok bool) {
	if len(w) == 0 {
		return 0, true
	}
	j, first := 0, -1
	for i := 0; i < len(s); i++ {
		if s[i] == w[j] {
			if first < 0 {
				first = i
			}
			j++
			if j == len(w) {
				return i - first + 1 - len(w), true
			}
		}
	}
	return 0, false
}
