package tui

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// The messages of the console. Screens emit them with the Cmd
// constructors below; the root Model routes them.

// openDetailMsg asks for the detail screen of a tool.
type openDetailMsg struct{ name string }

// openRunMsg asks for the run screen of a tool, with args in the editor
// when not nil; start runs them at once (through the consent dialog when
// the tool asks for it).
type openRunMsg struct {
	name  string
	args  json.RawMessage
	start bool
	// again says the call is one made before (from the history), whose
	// idempotency key idemKey ("" for none) goes into the form with args.
	again   bool
	idemKey string
}

// openProblemsMsg asks for the load problems screen.
type openProblemsMsg struct{}

// backMsg asks to leave the current screen.
type backMsg struct{}

// startRunMsg starts a call of the run screen's tool with args; consent is
// set when the person consented in the dialog, session too when they
// allowed the tool for this session.
type startRunMsg struct {
	tool    string
	args    json.RawMessage
	consent bool
	session bool
}

// confirmMsg opens the consent dialog; yes is sent when the person
// consents, session when they allow the tool for this session (nil: not
// offered), nothing when they decline.
type confirmMsg struct {
	title   string
	body    string
	args    json.RawMessage // the call's arguments, shown under body
	yes     tea.Msg
	session tea.Msg
}

// runDoneMsg carries the result of call seq.
type runDoneMsg struct {
	seq    int
	result *tooling.Result
}

// availabilityMsg carries fresh availability of some tools.
type availabilityMsg struct {
	origin tooling.Origin // checked for: stale when the console's origin changed since
	states map[string]availState
}

// boardTickMsg refreshes the governance board; gen tells stale ticks
// (from a board that was closed since) from live ones.
type boardTickMsg struct {
	gen int
	at  time.Time
}

// toggledMsg says a tool was enabled or disabled at runtime.
type toggledMsg struct{ name string }

// statusMsg shows a line in the status bar.
type statusMsg struct {
	text  string
	isErr bool
}

func msgCmd(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

func openDetailCmd(name string) tea.Cmd { return msgCmd(openDetailMsg{name: name}) }

func openRunCmd(name string, args json.RawMessage, start bool) tea.Cmd {
	return msgCmd(openRunMsg{name: name, args: args, start: start})
}

// againCmd opens the run screen on a call made before, with its arguments
// and idempotency key; start makes it again at once.
func againCmd(rec *callRecord, start bool) tea.Cmd {
	return msgCmd(openRunMsg{name: rec.tool, args: rec.args, start: start, again: true, idemKey: rec.idemKey})
}

func backCmd() tea.Msg { return backMsg{} }

func confirmCmd(title, body string, args json.RawMessage, yes, session tea.Msg) tea.Cmd {
	return msgCmd(confirmMsg{title: title, body: body, args: args, yes: yes, session: session})
}

func statusCmd(text string, isErr bool) tea.Cmd { return msgCmd(statusMsg{text: text, isErr: isErr}) }

// executeCmd calls the tool through the registry's governed path. It
// blocks in its own goroutine, never in Update; canceling ctx cancels the
// call, which then returns with code canceled.
func executeCmd(ctx context.Context, reg *tooling.Registry, seq int, name string, args json.RawMessage, opts ...tooling.Option) tea.Cmd {
	return func() tea.Msg {
		res, _ := reg.Execute(ctx, name, args, opts...)
		return runDoneMsg{seq: seq, result: res}
	}
}

// availabilityCheckTimeout bounds one tool's Available during a check.
const availabilityCheckTimeout = 2 * time.Second

// availabilityCmd checks, in its own goroutine, whether each named tool
// can run now for origin ui: enabled, origin allowed, and its Available.
func availabilityCmd(c *common, names []string) tea.Cmd {
	if len(names) == 0 {
		return nil
	}
	ctx, reg, origin := c.ctx, c.reg, c.origin
	return func() tea.Msg {
		return availabilityMsg{origin: origin, states: checkAvailability(ctx, reg, names, origin)}
	}
}

func checkAvailability(ctx context.Context, reg *tooling.Registry, names []string, origin tooling.Origin) map[string]availState {
	out := make(map[string]availState, len(names))
	for _, n := range names {
		cctx, cancel := context.WithTimeout(ctx, availabilityCheckTimeout)
		err := reg.Availability(cctx, n, origin)
		cancel()
		st := availState{checked: true}
		if err != nil {
			st.reason = err.Error()
			st.code = codes.Unavailable
			var te *tooling.Error
			if errors.As(err, &te) {
				st.code, st.reason = te.Code, te.Message
			}
		}
		out[n] = st
	}
	return out
}

// boardTickCmd schedules the next refresh of the governance board.
func boardTickCmd(gen int) tea.Cmd {
	return tea.Tick(boardInterval, func(t time.Time) tea.Msg { return boardTickMsg{gen: gen, at: t} })
}
