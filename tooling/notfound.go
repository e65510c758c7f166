package tooling

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolexplorer/toolexplorer/internal/textdist"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// notFound is the refusal of a call of an unknown tool: its message names
// the nearest tool if one is near, its hint (for Result.Hint) asks whether
// the package of the name's group was imported when no tool of the group is
// registered. Whatever the name and however many tools, it costs a bounded
// amount of work (nameIndex), and it shows at most maxLookupLen bytes of the
// name (shownName).
func (r *Registry) notFound(name string) (err *Error, hint string) {
	err = &Error{Code: codes.NotFound, Tool: shownName(name)}
	switch {
	case name == "":
		err.Message = "no tool name given"
		return err, ""
	case len(name) > maxLookupLen:
		err.Message = fmt.Sprintf("no tool named %q: the name is %d bytes, and no tool name is over %d", err.Tool, len(name), maxLookupLen)
		return err, ""
	}
	err.Message = fmt.Sprintf("no tool named %q", name)
	idx := r.nameIndex()
	q := toolname.ParseExport(name)
	if c := r.suggest(idx, q, name); c != "" {
		err.Message += fmt.Sprintf(" (did you mean %q?)", c)
		return err, ""
	}
	if group, _, ok := strings.Cut(q, "."); ok && !idx.hasGroup(group) {
		hint = fmt.Sprintf("no tool of group %q is registered: is the package that defines it imported (import _ \"your/module/tools\")?", group)
	}
	return err, hint
}

// notFoundError is notFound's refusal without its hint.
func (r *Registry) notFoundError(name string) *Error {
	err, _ := r.notFound(name)
	return err
}

// suggestBudget bounds the work of the search for a name two or more edits
// away from an unknown one, in units of textdist.NearestSorted (a name
// visited or a cell of a distance table): a few microseconds, about what a
// call costs. Registries of up to a hundred tools or so are searched whole.
const suggestBudget = 1 << 12

// nameIndex is what a miss consults, built by the first miss after the
// tools changed: the names sorted, each last segment of a name with the
// one tool whose name ends with it, and the bytes names are made of.
type nameIndex struct {
	sorted   []string
	byLast   map[string]string // "echo" -> "demo.echo"; "" when several names end with it
	alphabet []byte
}

func (r *Registry) nameIndex() *nameIndex {
	r.mu.RLock()
	idx := r.index
	r.mu.RUnlock()
	if idx != nil {
		return idx
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index == nil {
		es := r.sortedLocked()
		idx := &nameIndex{sorted: make([]string, len(es)), byLast: make(map[string]string, len(es))}
		var seen [256]bool
		for i, e := range es {
			n := e.tool.Name
			idx.sorted[i] = n
			if d := strings.LastIndexByte(n, '.'); d >= 0 {
				last := n[d+1:]
				if _, dup := idx.byLast[last]; dup {
					idx.byLast[last] = ""
				} else {
					idx.byLast[last] = n
				}
			}
			for k := 0; k < len(n); k++ {
				seen[n[k]] = true
			}
		}
		for c, ok := range seen {
			if ok {
				idx.alphabet = append(idx.alphabet, byte(c))
			}
		}
		r.index = idx
	}
	return r.index
}

// suggest finds the registered name nearest to q (the name asked for,
// dots spelled as dots): a typo of a whole name, or a name given without
// its group ("echo" for "demo.echo"). A name one edit away is found among
// any number of tools (oneEditAway); a name further away is searched for
// with bounded work, so with many tools it may be missed.
func (r *Registry) suggest(idx *nameIndex, q, name string) string {
	if c := r.oneEditAway(idx, q); c != "" {
		return c
	}
	if c, _ := textdist.NearestSorted(q, idx.sorted, max(2, len(q)/3), suggestBudget); c != "" {
		return c
	}
	return idx.byLast[name]
}

// oneEditAway returns the registered name at most one edit from q that
// sorts first, or "": it looks up q itself and every string one edit away
// (a rune deleted, two neighbours swapped, a byte of idx.alphabet put in
// place of a rune or inserted), which is every name at a distance of at
// most one: both grammars of names (toolname, wirename) are ASCII, so each
// rune of a name is one of the bytes of idx.alphabet. The work grows with the
// length of q (at most maxLookupLen bytes), not with the number of tools.
//
// A name one edit away at rune i starts with the runes of q before i, so
// only the edits at the runes up to the longest prefix of q some name starts
// with are tried: for a name far from every tool, only a few.
func (r *Registry) oneEditAway(idx *nameIndex, q string) string {
	off := make([]int, 0, len(q)+1) // where each rune of q starts, and len(q)
	for i := range q {
		off = append(off, i)
	}
	off = append(off, len(q))
	last := 0 // the edits tried are at runes 0 to last
	for last+1 < len(off) && idx.hasPrefix(q[:off[last+1]]) {
		last++
	}
	buf := make([]byte, 0, len(q)+1)
	best := ""
	r.mu.RLock()
	defer r.mu.RUnlock()
	try := func() {
		if _, ok := r.tools[string(buf)]; ok && (best == "" || string(buf) < best) {
			best = string(buf)
		}
	}
	buf = append(buf[:0], q...)
	if try(); best != "" {
		return best // q itself, as the exported spelling "a__b" of a name "a.b"
	}
	for i := 0; i <= last; i++ {
		head, rest := q[:off[i]], q[off[i]:]
		for _, c := range idx.alphabet { // inserted before rune i
			buf = append(append(append(buf[:0], head...), c), rest...)
			try()
		}
		if i == len(off)-1 {
			break
		}
		tail := q[off[i+1]:]
		buf = append(append(buf[:0], head...), tail...) // rune i deleted
		try()
		for _, c := range idx.alphabet { // rune i replaced
			buf = append(append(append(buf[:0], head...), c), tail...)
			try()
		}
		if i+2 < len(off) { // runes i and i+1 swapped
			buf = append(append(append(append(buf[:0], head...), q[off[i+1]:off[i+2]]...), q[off[i]:off[i+1]]...), q[off[i+2]:]...)
			try()
		}
	}
	return best
}

// hasGroup reports whether a tool of group is registered.
func (idx *nameIndex) hasGroup(group string) bool { return idx.hasPrefix(group + ".") }

// hasPrefix reports whether a registered name starts with prefix.
func (idx *nameIndex) hasPrefix(prefix string) bool {
	i := sort.SearchStrings(idx.sorted, prefix)
	return i < len(idx.sorted) && strings.HasPrefix(idx.sorted[i], prefix)
}

// shownName is name as a refusal shows it: whole up to maxLookupLen bytes,
// else its first shownNameLen bytes (whole runes) and "...".
func shownName(name string) string {
	if len(name) <= maxLookupLen {
		return name
	}
	n := shownNameLen
	for n > 0 && !utf8.RuneStart(name[n]) {
		n--
	}
	return name[:n] + "..."
}
