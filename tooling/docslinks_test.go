package tooling_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	// inlineLink matches the target of [text](target) and ![alt](target),
	// with an optional title after it.
	inlineLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	// refLink matches the target of a reference definition, [name]: target.
	refLink = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*(\S+)`)
	// codeSpan matches inline code, whose text is no link.
	codeSpan = regexp.MustCompile("`[^`]*`")
)

// TestDocsLinks: every relative link of the documentation (README.md,
// docs/*.md and the other pages they link to in the repository) leads to
// a file or directory of the repository, and a link to #anchor to a
// heading of its page, so that moving text between pages cannot leave a
// link behind.
func TestDocsLinks(t *testing.T) {
	pages := docPages(t)
	for _, p := range []string{"SECURITY.md", "BENCHMARKS.md", filepath.Join("config", "README.md")} {
		if _, err := os.Stat(filepath.Join("..", p)); err == nil {
			pages = append(pages, filepath.Join("..", p))
		}
	}
	anchors := map[string]map[string]bool{} // page: its headings' anchors
	anchorsOf := func(page string) map[string]bool {
		if a, ok := anchors[page]; ok {
			return a
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		anchors[page] = headingAnchors(string(b))
		return anchors[page]
	}
	links := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range relativeLinks(string(b)) {
			links++
			where, target := page+":"+strconv.Itoa(l.line), l.target
			path, anchor, _ := strings.Cut(target, "#")
			dest := page
			if path != "" {
				dest = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link to %s: no such file", where, target)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link to %s: an anchor in a page that is not Markdown", where, target)
				continue
			}
			if !anchorsOf(dest)[anchor] {
				t.Errorf("%s: link to %s: %s has no heading whose anchor is #%s", where, target, dest, anchor)
			}
		}
	}
	if links == 0 {
		t.Fatal("no relative link found in the docs: the test reads nothing")
	}
}

// link is the target of a link and the line it is on.
type link struct {
	line   int
	target string
}

// relativeLinks returns the links of a Markdown page that lead inside the
// repository (no scheme, not an absolute path), outside code blocks and
// inline code.
func relativeLinks(page string) []link {
	var links []link
	fenced := false
	n := 0
	for line := range strings.Lines(page) {
		n++
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		var targets []string
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := refLink.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "/") {
				continue
			}
			links = append(links, link{n, target})
		}
	}
	return links
}

// headingAnchors returns the anchors of a Markdown page's headings as
// GitHub makes them: lower case, punctuation dropped, spaces as hyphens,
// and -1, -2… after a repeated one.
func headingAnchors(page string) map[string]bool {
	anchors := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for line := range strings.Lines(page) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			seen[a]++
			a += "-" + strconv.Itoa(k)
		} else {
			seen[a] = 1
		}
		anchors[a] = true
	}
	return anchors
}
