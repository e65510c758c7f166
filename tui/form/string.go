package form

import (
	"fmt"
	"net/mail"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/pattern"
)

// stringField is a line of text, checked as you type against minLength,
// maxLength, pattern and format.
type stringField struct {
	fieldBase
	in    textinput.Model
	exact *string         // a loaded value the line cannot show as is (line breaks, ""), kept until edited
	re    *pattern.Regexp // the schema's pattern, compiled as the registry compiles it
}

func newString(fb fieldBase) *stringField {
	f := &stringField{fieldBase: fb}
	ph := "text"
	if h := formatHint(fb.n.format); h != "" {
		ph = h
	}
	f.in = fb.env.newInput(ph)
	if fb.n.pattern != "" {
		f.re, _ = pattern.Compile(fb.n.pattern)
	}
	return f
}

func (f *stringField) value() (any, bool, error) {
	if f.exact != nil {
		return *f.exact, true, nil
	}
	s := f.in.Value()
	if s == "" && !f.item {
		return nil, false, nil
	}
	return s, true, nil
}

func (f *stringField) set(v any) error {
	f.given = true
	s, ok := v.(string)
	if !ok {
		return typeErr(f.path, "a string", v)
	}
	f.in.SetValue(s)
	f.in.CursorEnd()
	f.exact = nil
	if s == "" || f.in.Value() != s {
		f.exact = &s
	}
	return nil
}

func (f *stringField) clear() {
	f.in.SetValue("")
	f.exact, f.given = nil, false
}

func (f *stringField) key(k tea.KeyPressMsg) (bool, tea.Cmd) {
	handled, changed, cmd := inputKey(&f.in, k)
	if changed {
		f.exact = nil
		f.touch()
	}
	return handled, cmd
}

func (f *stringField) update(msg tea.Msg) tea.Cmd {
	before := f.in.Value()
	var cmd tea.Cmd
	f.in, cmd = f.in.Update(msg)
	if f.in.Value() != before {
		f.exact = nil
		f.touch()
	}
	return cmd
}

func (f *stringField) widget(c *rctx) string {
	if f.exact != nil && *f.exact == "" && f.in.Value() == "" {
		return c.st.Value.Render(`""`) + c.st.Muted.Render("  (an empty string)")
	}
	return f.in.View()
}

func (f *stringField) focus() tea.Cmd  { return f.in.Focus() }
func (f *stringField) blur()           { f.in.Blur() }
func (f *stringField) takesText() bool { return true }
func (f *stringField) setWidth(w int)  { f.in.SetWidth(max(w-1, 1)) }

func (f *stringField) check() string {
	if f.exact != nil {
		if *f.exact != "" {
			return "has line breaks or tabs, kept as loaded; edit it in raw JSON (ctrl+r) to keep them"
		}
		return ""
	}
	return checkString(f.n, f.re, f.in.Value())
}

// checkString says what is wrong with s so far, "" when nothing.
func checkString(n *node, re *pattern.Regexp, s string) string {
	if s == "" {
		return ""
	}
	l := utf8.RuneCountInString(s)
	var probs []string
	if n.minLen >= 0 && l < n.minLen {
		probs = append(probs, fmt.Sprintf("too short: %d of at least %d characters", l, n.minLen))
	}
	if n.maxLen >= 0 && l > n.maxLen {
		probs = append(probs, fmt.Sprintf("too long: %d of at most %d characters", l, n.maxLen))
	}
	if re != nil {
		if ok, err := re.Match(s); err != nil {
			probs = append(probs, "could not be checked against the pattern "+n.pattern+" in time")
		} else if !ok {
			probs = append(probs, "does not match the pattern "+n.pattern)
		}
	}
	if msg := checkFormat(n.format, s); msg != "" {
		probs = append(probs, msg)
	}
	return strings.Join(probs, "; ")
}

// formatHint is the placeholder of a string with a known format.
func formatHint(format string) string {
	switch format {
	case "date":
		return "date: YYYY-MM-DD"
	case "date-time":
		return "date-time: 2006-01-02T15:04:05Z"
	case "time":
		return "time: 15:04:05Z"
	case "email", "idn-email":
		return "email: name@example.com"
	case "uri", "iri":
		return "uri: https://example.com/path"
	case "uri-reference", "iri-reference":
		return "uri reference"
	case "uuid":
		return "uuid: 8-4-4-4-12 hex digits"
	case "ipv4":
		return "ipv4: 192.0.2.1"
	case "ipv6":
		return "ipv6: 2001:db8::1"
	case "hostname", "idn-hostname":
		return "hostname: example.com"
	case "duration":
		return "duration: P1DT2H"
	case "regex":
		return "regular expression"
	case "":
		return ""
	}
	return format
}

// The format expressions compile on first use: bounded repetitions such as {0,61} compile to
// large programs, which every start of the program (confined children included) would pay.
var (
	uuidRE     = lazyRE(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	durationRE = lazyRE(`^P(\d+W|(\d+Y)?(\d+M)?(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?)$`)
	hostnameRE = lazyRE(`^(?i)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$`)
)

func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// checkFormat checks the common formats; others are only hints.
func checkFormat(format, s string) string {
	bad := func() string { return "not a valid " + format }
	switch format {
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return bad() + " (YYYY-MM-DD)"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, strings.Replace(strings.ToUpper(s), " ", "T", 1)); err != nil {
			return bad() + " (RFC 3339, e.g. 2006-01-02T15:04:05Z)"
		}
	case "time":
		if _, err := time.Parse("15:04:05Z07:00", strings.ToUpper(s)); err != nil {
			if _, err := time.Parse("15:04:05.999999999Z07:00", strings.ToUpper(s)); err != nil {
				return bad() + " (15:04:05Z)"
			}
		}
	case "email", "idn-email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return bad()
		}
	case "uri", "iri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return bad() + " (an absolute URI with a scheme)"
		}
	case "uri-reference", "iri-reference":
		if _, err := url.Parse(s); err != nil {
			return bad()
		}
	case "uuid":
		if !uuidRE().MatchString(s) {
			return bad()
		}
	case "ipv4":
		if a, err := netip.ParseAddr(s); err != nil || !a.Is4() {
			return bad()
		}
	case "ipv6":
		if a, err := netip.ParseAddr(s); err != nil || !a.Is6() {
			return bad()
		}
	case "hostname", "idn-hostname":
		if len(s) > 253 || !hostnameRE().MatchString(s) {
			return bad()
		}
	case "duration":
		if s == "P" || strings.HasSuffix(s, "T") || !durationRE().MatchString(s) {
			return bad() + " (ISO 8601, e.g. P1DT2H)"
		}
	case "regex":
		if _, err := pattern.Compile(s); err != nil {
			return bad()
		}
	}
	return ""
}
