package tooling

import (
	"fmt"
	"strings"

	"github.com/toolexplorer/toolexplorer/internal/textdist"
	"github.com/toolexplorer/toolexplorer/internal/toolname"
)

// maxNameLen is the longest tool name Register accepts: 64 bytes once dots
// are spelled "__" (toolname.Export), the limit of OpenAI and Anthropic.
const maxNameLen = 64

// maxLookupLen is the longest name a registry can hold, in either
// spelling: a Go tool's name is at most maxNameLen bytes once exported, a
// name taken as is (AddNamedAsIs) at most 128, MCP's limit. A longer name
// is not looked up and gets no suggestion.
const maxLookupLen = 128

// shownNameLen is how much of an unknown name longer than maxLookupLen a
// refusal shows.
const shownNameLen = 64

// checkName returns why name is not a valid "group.name", or "".
//
// A name is two or more segments joined by dots; each segment is lower snake
// case: a letter, then letters or digits, with single underscores between
// runs ("demo.echo", "fs.read_file", "net.http_get").
func checkName(name string) string {
	if name == "" {
		return "the name is empty: name tools \"group.name\" in lower snake case, like \"demo.echo\""
	}
	if n := len(toolname.Export(name)); n > maxNameLen {
		return fmt.Sprintf("the name is %d bytes once exported (dots become \"__\"), over %d: shorten it", n, maxNameLen)
	}
	segs := strings.Split(name, ".")
	if len(segs) < 2 {
		return fmt.Sprintf("the name has no group: name tools \"group.name\", like \"demo.%s\"", toolname.Snake(name))
	}
	for _, s := range segs {
		if !toolname.Segment(s) {
			return fmt.Sprintf("segment %q is not lower snake case (a letter, then letters, digits and single underscores): try %q", s, toolname.Snake(name))
		}
	}
	return ""
}

// closest returns the candidate nearest to name, if near enough to be a typo.
func closest(name string, candidates []string) string {
	return textdist.Nearest(name, candidates, max(2, len(name)/3))
}
