package tui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/internal/termtext"
	"github.com/toolexplorer/toolexplorer/ledger"
)

// ledgerRecordScreen shows one call of the ledger: every field of its
// begin and end records (who, the tool and version, origin, the digests
// and sizes of the arguments and output, the digest of the idempotency
// key, the policy and confinement profile, the side effects the tool
// reported, the governance steps, the chain's hashes), then both records
// as they are written.
type ledgerRecordScreen struct {
	c    *common
	keys ledgerRecordKeys
	e    *ledger.Entry
	vp   viewport.Model
	w, h int
}

func newLedgerRecordScreen(c *common) *ledgerRecordScreen {
	s := &ledgerRecordScreen{c: c, keys: newLedgerRecordKeys(&c.global), vp: viewport.New()}
	s.vp.KeyMap = viewportKeys()
	return s
}

func (s *ledgerRecordScreen) setEntry(e *ledger.Entry) {
	s.e = e
	s.render()
	s.vp.GotoTop()
}

func (s *ledgerRecordScreen) Title() string {
	if s.e == nil {
		return "Record"
	}
	return "Record of " + termtext.Line(s.e.Begin.Call)
}

func (s *ledgerRecordScreen) Typing() bool { return false }

func (s *ledgerRecordScreen) KeyMap() help.KeyMap { return s.keys }

func (s *ledgerRecordScreen) SetSize(w, h int) {
	s.w, s.h = w, h
	s.vp.SetWidth(w)
	s.vp.SetHeight(max(h-1, 1))
	s.render()
}

func (s *ledgerRecordScreen) Show() tea.Cmd { return nil }

func (s *ledgerRecordScreen) Hide() {}

func (s *ledgerRecordScreen) Update(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok && key.Matches(k, s.keys.Back) {
		return backCmd
	}
	return s.keys.scroll(&s.vp, msg)
}

func (s *ledgerRecordScreen) View() string {
	if s.e == nil {
		return ""
	}
	st := s.c.styles
	head := ledgerOutcome(st, s.e) + st.Faint.Render(" · ") + termtext.Line(ledgerTool(s.e)) + st.Faint.Render(" · ") +
		"call " + termtext.Line(s.e.Begin.Call) + st.Faint.Render(" · ") + termtext.Line(ledgerWho(s.e))
	return head + "\n" + s.vp.View()
}

func (s *ledgerRecordScreen) render() {
	if s.e == nil {
		return
	}
	s.vp.SetContentLines(wrapLines(ledgerRecordText(s.c, s.e, s.w), max(s.w-1, 1)))
}

// ledgerRecordText is every field of a call's records, for people, then
// the records themselves, w columns wide.
func ledgerRecordText(c *common, e *ledger.Entry, w int) string {
	st := c.styles
	var b strings.Builder
	const nameW = 13
	row := func(name, value string) {
		if value == "" {
			return
		}
		lines := wrapLines(termtext.Line(value), max(w-nameW-3, 20))
		b.WriteString("\n  " + st.Faint.Render(pad(name, nameW)) + strings.Join(lines, "\n"+strings.Repeat(" ", nameW+2)))
	}
	section := func(name string) {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(st.Label.Render(name))
	}
	loc := c.now().Location()
	at := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.In(loc).Format("2006-01-02 15:04:05.000 MST")
	}
	bg, end := &e.Begin, e.End

	section("Call")
	row("call", bg.Call)
	row("tool", bg.Tool)
	row("version", bg.Version)
	row("origin", string(bg.Origin))
	row("began", at(bg.Time))
	if end != nil {
		row("ended", at(end.Time))
		row("status", end.Status)
		row("code", string(end.Code))
		row("queue wait", formatDuration(time.Duration(end.WaitMS*float64(time.Millisecond))))
		row("run", formatDuration(time.Duration(end.RunMS*float64(time.Millisecond))))
		if end.Replayed {
			row("replayed", "yes: the outcome of an earlier call with the same idempotency key; the tool did not run")
		}
		row("mode", end.Mode)
	} else {
		row("status", e.Status+": the ledger has no end of this call")
	}

	section("Principal")
	if p := bg.Principal; p != nil && p.Subject != "" {
		row("subject", p.Subject)
		row("tenant", p.Tenant)
		row("roles", strings.Join(p.Roles, ", "))
		row("scopes", strings.Join(p.Scopes, ", "))
		row("auth", p.Auth)
		row("client", p.Client)
	} else {
		row("subject", "anonymous")
	}

	section("Evidence")
	row("arguments", digest(bg.ArgsSHA256, bg.ArgsSize))
	if end != nil {
		row("output", digest(end.OutputSHA256, end.OutputSize))
	}
	idem := bg.Idempotency
	if idem == "" && end != nil {
		idem = end.Idempotency
	}
	if idem != "" {
		row("idempotency", "sha256 "+idem+" (of the key)")
	} else {
		row("idempotency", "no key")
	}
	row("policy", orElse(bg.Policy, "none recorded"))
	if end != nil {
		row("profile", orElse(end.Profile, "in process (not confined)"))
	}
	row("session", bg.Session)

	table := func(title string, m map[string]string) {
		if len(m) == 0 {
			return
		}
		section(title)
		names := make([]string, 0, len(m))
		for k := range m {
			names = append(names, k)
		}
		slices.Sort(names)
		for _, k := range names {
			row(k, m[k])
		}
	}
	if end != nil {
		table("Side effects", end.Effects)
		table("Detail (as the tool reported it)", end.Detail)
	}
	if end != nil && len(end.Governance) > 0 {
		section("Governance")
		for _, d := range end.Governance {
			row(d.Step, d.Detail)
		}
	}

	section("Chain")
	row("begin", fmt.Sprintf("record %d · hash %s · prev %s", bg.Seq, orElse(bg.Hash, "-"), orElse(bg.Prev, "-")))
	if end != nil {
		row("end", fmt.Sprintf("record %d · hash %s · prev %s", end.Seq, orElse(end.Hash, "-"), orElse(end.Prev, "-")))
	}

	for _, r := range []struct {
		name string
		rec  *ledger.Record
	}{{"Begin record", bg}, {"End record", end}} {
		if r.rec == nil {
			continue
		}
		if js, err := json.Marshal(r.rec); err == nil {
			section(r.name)
			b.WriteString("\n" + highlightJSON(st, safeJSON(js)))
		}
	}
	return b.String()
}

// digest is a SHA-256 digest with the size of what it is of.
func digest(sum string, size int) string {
	if sum == "" {
		return plural(size, "byte")
	}
	return "sha256 " + sum + " · " + plural(size, "byte")
}

func orElse(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// ledgerRecordKeys are the keys of a call of the ledger.
type ledgerRecordKeys struct {
	navKeys
	Back key.Binding
	g    *globalKeys
}

func newLedgerRecordKeys(g *globalKeys) ledgerRecordKeys {
	return ledgerRecordKeys{g: g, navKeys: newNavKeys(), Back: bind([]string{"esc"}, "esc", "back to the ledger")}
}

func (k ledgerRecordKeys) ShortHelp() []key.Binding {
	return []key.Binding{moveKey(k.Up, k.Down, "scroll"), short(k.Back, "back"), k.g.short(helpKey, "help")}
}

func (k ledgerRecordKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.navKeys.column(), {k.Back}}
}

var (
	_ help.KeyMap = ledgerRecordKeys{}
	_ screen      = (*ledgerRecordScreen)(nil)
)
