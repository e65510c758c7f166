package tui

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// A tool's source is where it comes from (tooling.Tool.Source): compiled
// in (""), a tools file ("file:PATH") or an MCP server ("mcp:NAME"). The
// list counts the tools of each and shows one source at a time, or all
// but the compiled-in ones, with s.

// sourceCount is one source of the listed tools.
type sourceCount struct {
	source string
	n      int
}

// sourceAll and sourceOwn are the choices of the source facet besides a
// single source: every tool, and every tool but the compiled-in ones.
const (
	sourceAll = -1
	sourceOwn = -2
)

// countSources lists the sources of items, compiled in first, then by name.
func countSources(items []toolItem) []sourceCount {
	n := map[string]int{}
	for i := range items {
		n[items[i].tool.Source]++
	}
	out := make([]sourceCount, 0, len(n))
	for s, c := range n {
		out = append(out, sourceCount{s, c})
	}
	slices.SortFunc(out, func(a, b sourceCount) int {
		if (a.source == "") != (b.source == "") {
			if a.source == "" {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.source, b.source)
	})
	return out
}

// sourceName is how the list names a source: built in (compiled in),
// file tools.json, mcp everything.
func sourceName(s string) string {
	switch {
	case s == "":
		return "built in"
	case strings.HasPrefix(s, "file:"):
		return "file " + filepath.Base(strings.TrimPrefix(s, "file:"))
	case strings.HasPrefix(s, "mcp:"):
		return "mcp " + strings.TrimPrefix(s, "mcp:")
	case strings.HasPrefix(s, "tools:"):
		return "preview " + filepath.Base(strings.TrimPrefix(s, "tools:"))
	}
	return s
}

// sourceChoices are the steps s goes through: all, each source, and all
// but compiled in when there are several other sources.
func (l *listScreen) sourceChoices() []int {
	out := []int{sourceAll}
	compiled := false
	for i, s := range l.sources {
		out = append(out, i)
		compiled = compiled || s.source == ""
	}
	if compiled && len(l.sources) > 2 {
		out = append(out, sourceOwn)
	}
	return out
}

// nextSource moves the source facet to its next choice.
func (l *listScreen) nextSource() {
	choices := l.sourceChoices()
	i := slices.Index(choices, l.source)
	l.source = choices[(i+1)%len(choices)]
	l.apply()
}

// sourceMatches reports whether the source facet shows it.
func (l *listScreen) sourceMatches(it *toolItem) bool {
	switch {
	case l.source == sourceAll || l.source >= len(l.sources):
		return true
	case l.source == sourceOwn:
		return it.tool.Source != ""
	}
	return it.tool.Source == l.sources[l.source].source
}

// sourceLine is the line of sources with their counts, the one shown
// marked; "" when every tool has the same source.
func (l *listScreen) sourceLine() string {
	if len(l.sources) < 2 {
		return ""
	}
	st := l.c.styles
	parts := []string{st.Faint.Render("s:")}
	label := func(on bool, text string) string {
		if on {
			return st.FacetOn.Render(text)
		}
		return st.FacetOff.Render(text)
	}
	parts = append(parts, label(l.source == sourceAll, fmt.Sprintf("all %d", len(l.items))))
	own := 0
	for i, s := range l.sources {
		parts = append(parts, label(l.source == i, fmt.Sprintf("%s %d", sourceName(s.source), s.n)))
		if s.source != "" {
			own += s.n
		}
	}
	if slices.Contains(l.sourceChoices(), sourceOwn) {
		parts = append(parts, label(l.source == sourceOwn, fmt.Sprintf("not built in %d", own)))
	}
	return cut(strings.Join(parts, "  "), l.w)
}

// origins are the origins o goes through: the four known ones, then those
// the tools name.
func origins(reg *tooling.Registry) []tooling.Origin {
	out := []tooling.Origin{tooling.OriginUI, tooling.OriginApp, tooling.OriginLLM, tooling.OriginSystem}
	var custom []tooling.Origin
	for _, t := range reg.List(context.Background(), tooling.Filter{}) {
		for _, o := range t.Meta.Origins {
			if !slices.Contains(out, o) && !slices.Contains(custom, o) {
				custom = append(custom, o)
			}
		}
	}
	slices.Sort(custom)
	return append(out, custom...)
}

// nextOrigin makes the console call as the next origin, and checks again
// which tools that origin may call.
func (l *listScreen) nextOrigin() tea.Cmd {
	all := origins(l.c.reg)
	if !slices.Contains(all, l.c.origin) {
		all = append(all, l.c.origin)
	}
	i := slices.Index(all, l.c.origin)
	l.c.origin = all[(i+1)%len(all)]
	clear(l.c.avail)
	l.reload() // the tools the principal sees may differ by origin
	return tea.Batch(statusCmd("calls are made as origin "+string(l.c.origin)+" now: "+keyName(l.keys.Origin)+" changes it again", false), availabilityCmd(l.c, l.names()))
}

// callAs makes the console call as the principal text names
// ("SUBJECT[@TENANT] [ROLE,...]", asserted, not verified), or as the one
// it started with when text is empty, lists the tools it sees and checks
// again which it may call.
func (l *listScreen) callAs(text string) tea.Cmd {
	p, err := parseCallAs(text, l.c.home)
	if err != nil {
		return statusCmd(err.Error(), true)
	}
	l.c.principal = p
	clear(l.c.avail)
	l.reload() // the tools it sees
	return tea.Batch(statusCmd("calls are made as "+principalText(p)+" now: "+keyName(l.keys.CallAs)+" changes it again", false), availabilityCmd(l.c, l.names()))
}

// parseCallAs reads "SUBJECT[@TENANT] [ROLE,...]"; empty is home.
func parseCallAs(text string, home tooling.Principal) (tooling.Principal, error) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return home, nil
	}
	if len(fields) > 2 {
		return home, fmt.Errorf("call as: %q is more than SUBJECT[@TENANT] [ROLE,...]", text)
	}
	subject, tenant, _ := strings.Cut(fields[0], "@")
	if subject == "" {
		return home, fmt.Errorf("call as: %q names no subject", text)
	}
	p := tooling.Principal{Subject: subject, Tenant: tenant, Auth: "asserted", Client: home.Client}
	if subject == home.Subject && tenant == home.Tenant && len(fields) == 1 {
		return home, nil
	}
	if len(fields) == 2 {
		for _, r := range strings.Split(fields[1], ",") {
			if r != "" {
				p.Roles = append(p.Roles, r)
			}
		}
	}
	return p, nil
}

// principalText is who the console calls as, for people: subject, tenant
// and roles.
func principalText(p tooling.Principal) string {
	s := p.String()
	if len(p.Roles) > 0 {
		s += " (" + strings.Join(p.Roles, ", ") + ")"
	}
	return s
}

// originNote says, on the run screen, who the console calls as when it is
// not ui, and that the origin may not call the tool when it may not.
func originNote(c *common, tool string) string {
	st := c.styles
	var note string
	if c.origin != tooling.OriginUI {
		note = "  " + st.Warn.Render("as "+string(c.origin))
	}
	if a, ok := c.avail[tool]; ok && a.checked && a.code == codes.OriginDenied {
		note += "  " + st.Err.Render("⊘ origin "+string(c.origin)+" may not call it (o on the list changes the origin)")
	}
	return note
}
