package tui

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/viewport"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/history"
	"github.com/toolexplorer/toolexplorer/history/collection"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// Options tune the console.
type Options struct {
	// NoColor draws without colours (bold, faint and reverse only). Run
	// also turns it on when the NO_COLOR environment variable is set.
	NoColor bool
	// Input and Output are the terminal. Zero: standard input and output.
	Input  io.Reader
	Output io.Writer
	// Problems are what went wrong while loading, one line each (tools that
	// could not be added, config warnings). The list says how many there
	// are, and P shows them in a screen of their own.
	Problems []string
	// Keys rebinds keys by name (config "keys"); a name the console does
	// not know is a load problem.
	Keys map[string][]string
	// ConfirmDangerous makes the console ask before every tool with side
	// effects, not only those that need consent (config
	// dangerous_tool_confirmation).
	ConfirmDangerous bool
	// Origin is who the console calls as; zero: ui. The o key on the tool
	// list changes it.
	Origin tooling.Origin
	// Principal is who the console calls as (the local user, or --as),
	// shown beside the origin. Zero: the anonymous principal.
	Principal tooling.Principal
	// ToolsFiles and ConfigFile are the tools files and the config file
	// the console was started with (--tools, --config or
	// $TOOLEXPLORER_CONFIG), none for none: a call copied as a command line
	// names them, so that it runs against the same tools and policy.
	ToolsFiles []string
	ConfigFile string
	// ToolDirs are the tools files and directories loaded (--tools-dir),
	// absolute; Demo says the demo shop runs (--demo). A call copied as a
	// command line names them too.
	ToolDirs []string
	Demo     bool
	// ServerFlags are the --server values the console was started with,
	// NAME=COMMAND... or NAME=URL: a call of such a server's tool copied
	// as a command line names its server. The config's servers are named
	// by ConfigFile.
	ServerFlags []string
	// Servers are the MCP servers whose tools are in the registry; S
	// shows them, and restarts one that failed or stopped. Nil: none.
	Servers Servers
	// Asker brings the servers' requests for input during calls, each
	// shown as a form, and their sampling requests. Nil: none come.
	Asker *Asker
	// Features are the servers' resources, prompts, log levels and roots,
	// which the servers screen opens for the server under the cursor.
	// Nil: none.
	Features Features
	// Feed brings the servers' log, the messages exchanged with them and
	// their resources' updates. Nil: none come.
	Feed *Feed
	// ToolFiles are the tools files whose tools are in the registry; L
	// reloads them and W turns shadow mode on and off. Nil: none.
	ToolFiles ToolFiles
	// Budgets reads what each budget of the config leaves p, the principal
	// the console calls as, for the governance board. Nil: no budgets.
	Budgets func(ctx context.Context, p tooling.Principal) ([]Budget, error)
	// History keeps every call the console makes, and the history screen
	// shows the calls kept there before; nil keeps this session's calls
	// in memory only.
	History *history.Store
	// Saved is the collection of saved calls (s on a call names it); nil
	// keeps none.
	Saved *history.Collection
	// Ledger is the ledger of every call, which E shows and L on a call of
	// the history opens at the call's record; nil: none is kept.
	Ledger Ledger
	// Environments are the environments of variables, by name, whose
	// values fill the {{name}} references of the arguments of a call; V
	// shows them and chooses one, and the header names it. Env is the one
	// chosen at the start, "" for none. Getenv reads the variables taken
	// from the process's environment; nil: os.Getenv.
	Environments map[string]collection.Environment
	Env          string
	Getenv       func(string) string
	// SharedState says, in one line, where the limits, budgets and
	// idempotency records shared with other replicas are decided and how
	// (a Redis server: connected, or falling back, or refusing); the
	// governance board shows it. Nil: none are shared.
	SharedState func() string
}

// screen is one screen of the console, a child of the root Model.
type screen interface {
	Update(msg tea.Msg) tea.Cmd
	View() string
	SetSize(width, height int)
	KeyMap() help.KeyMap
	// Typing reports whether a text field has the focus: then single
	// characters (q, ?, H, B) are text, not commands.
	Typing() bool
	// Title names the screen in the breadcrumb.
	Title() string
	// Show is called when the screen comes on top, Hide when it leaves.
	Show() tea.Cmd
	Hide()
}

// Model is the root of the console. It owns the screens, a stack of the
// ones opened (the breadcrumb; esc goes back), the overlays and the status
// line, and routes every message.
type Model struct {
	c        *common
	list     *listScreen
	detail   *detailScreen
	run      *runScreen
	history  *historyScreen
	call     *callScreen
	diff     *diffScreen
	board    *boardScreen
	runs     *runsScreen
	problems *problemsScreen
	servers  *serversScreen
	ask      *askScreen
	ledger   *ledgerScreen
	record   *ledgerRecordScreen
	envs     *envScreen
	mcp      *mcpViews // resources, prompts, log, traffic and roots

	stack    []screen
	confirm  *confirmDialog
	prompt   *promptDialog
	palette  *paletteDialog // the command palette, while open
	quitAsk  *quitDialog    // asking whether to quit
	showHelp bool
	helpVP   viewport.Model // the full help, scrollable
	status   string
	statusOK bool
	// toast is a notification that outlives keys until toastTime passes.
	toast    string
	toastOK  bool
	toastGen int
	// toastTimer ends the notification gen when its time is up; tests
	// replace it and send toastExpiredMsg themselves.
	toastTimer func(gen int) tea.Cmd

	width, height int
}

// Run opens the console on the terminal and returns when it quits or ctx
// ends. A call still running then is canceled.
func Run(ctx context.Context, reg *tooling.Registry, opts Options) error {
	if os.Getenv("NO_COLOR") != "" {
		opts.NoColor = true
	}
	m := New(reg, opts)
	m.c.ctx = ctx
	popts := []tea.ProgramOption{tea.WithContext(ctx)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	_, err := tea.NewProgram(m, popts...).Run()
	m.shutdown()
	if err != nil && ctx.Err() != nil {
		return nil
	}
	return err
}

// New returns the console's root model over reg, showing the tool list.
func New(reg *tooling.Registry, opts Options) *Model {
	var b [3]byte
	_, _ = rand.Read(b[:])
	prefix := "ui-" + hex.EncodeToString(b[:]) + "-"
	c := &common{
		ctx:          context.Background(),
		reg:          reg,
		styles:       newStyles(opts.NoColor),
		global:       newGlobalKeys(),
		now:          time.Now,
		callID:       func(seq int) string { return fmt.Sprintf("%s%d", prefix, seq) },
		governance:   reg.Stats,
		explainTimer: explainTick,
		avail:        make(map[string]availState),
		problems:     opts.Problems,
		toolsFiles:   opts.ToolsFiles,
		origin:       cmp.Or(opts.Origin, tooling.OriginUI),
		principal:    opts.Principal,
		home:         opts.Principal,
		dangerous:    opts.ConfirmDangerous,
		configFile:   opts.ConfigFile,
		toolDirs:     opts.ToolDirs,
		serverFlags:  opts.ServerFlags,
		demo:         opts.Demo,
		store:        opts.History,
		saved:        opts.Saved,
		servers:      opts.Servers,
		asker:        opts.Asker,
		features:     opts.Features,
		feed:         opts.Feed,
		toolFiles:    opts.ToolFiles,
		budgets:      opts.Budgets,
		ledger:       opts.Ledger,
		sharedState:  opts.SharedState,
		envs:         opts.Environments,
		getenv:       opts.Getenv,
	}
	if c.getenv == nil {
		c.getenv = os.Getenv
	}
	c.useEnv(opts.Env)
	c.newEditor = func(tool string, schema json.RawMessage, w, h int) (argsEditor, error) {
		return newFormEditor(c.styles, schema, w, h, func(args json.RawMessage) []tooling.FieldError {
			if sent, err := c.vars.Expand(args); err == nil {
				args = sent // a variable without a value: the call will say so
			}
			fields, err := reg.ValidateArgs(tool, args)
			if err != nil { // the tool is gone: the call will say so
				return nil
			}
			return fields
		})
	}
	c.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(c.styles.Status))
	reg.SetConsentFunc(consoleConsent)
	m := &Model{c: c, width: 80, height: 24, toastTimer: toastTick}
	m.list = newListScreen(c)
	m.detail = newDetailScreen(c)
	m.run = newRunScreen(c)
	m.history = newHistoryScreen(c)
	m.call = newCallScreen(c)
	m.diff = newDiffScreen(c)
	m.board = newBoardScreen(c)
	m.runs = newRunsScreen(c)
	m.problems = newProblemsScreen(c)
	m.servers = newServersScreen(c)
	m.ask = newAskScreen(c)
	m.ledger = newLedgerScreen(c)
	m.record = newLedgerRecordScreen(c)
	m.envs = newEnvScreen(c)
	m.mcp = newMCPViews(c)
	if problems := m.rebind(opts.Keys); len(problems) > 0 {
		c.problems = append(slices.Clip(c.problems), problems...)
		m.list.keys.Problems.SetEnabled(true)
	}
	m.stack = []screen{m.list}
	m.helpVP = viewport.New()
	m.helpVP.KeyMap = viewportKeys()
	m.layout()
	return m
}

// Init checks the availability of every tool and asks the terminal for its
// background colour (a light one gets the light palette).
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.list.Show(), watchServersCmd(m.c.servers), watchToolFilesCmd(m.c.toolFiles), watchAskCmd(m.c), watchFeedCmd(m.c), tea.RequestBackgroundColor)
}

func (m *Model) top() screen { return m.stack[len(m.stack)-1] }

// bodyHeight is what the screens get: all but the header, the status line
// and the help line.
func (m *Model) bodyHeight() int { return max(m.height-3, 1) }

func (m *Model) layout() {
	h := m.bodyHeight()
	for _, s := range append([]screen{m.list, m.detail, m.run, m.history, m.call, m.diff, m.board, m.runs, m.problems, m.servers, m.ask, m.ledger, m.record, m.envs}, m.mcp.screens()...) {
		s.SetSize(m.width, h)
	}
	m.helpVP.SetWidth(m.width)
	m.helpVP.SetHeight(h)
	if m.showHelp {
		m.helpVP.SetContent(helpView(m.c, m.top(), m.width))
	}
	m.sizeSplit()
}

// openHelp shows the full help of the screen on top.
func (m *Model) openHelp() {
	m.showHelp = true
	m.helpVP.SetContent(helpView(m.c, m.top(), m.width))
	m.helpVP.GotoTop()
}

// shutdown cancels the calls in flight.
func (m *Model) shutdown() { m.c.cancelAll() }

func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	_, cmd := m.update(msg)
	return m, tea.Batch(cmd, m.syncSplit())
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
		m.layout()
		return m, nil
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.MouseClickMsg:
		return m, m.click(msg)
	case tea.BackgroundColorMsg:
		m.c.useBackground(msg)
		return m, nil
	case tea.MouseWheelMsg:
		if m.showHelp {
			m.helpVP, _ = m.helpVP.Update(msg)
			return m, nil
		}
		if m.confirm != nil || m.quitAsk != nil || m.prompt != nil || m.palette != nil {
			return m, nil
		}
		return m, m.top().Update(msg)
	case openDetailMsg:
		t, ok := m.c.reg.Lookup(msg.name)
		if !ok {
			return m, statusCmd("no tool named "+msg.name, true)
		}
		m.detail.setTool(t)
		return m, m.push(m.detail)
	case openRunMsg:
		return m, m.openRun(msg)
	case openProblemsMsg:
		return m, m.push(m.problems)
	case openLedgerMsg:
		return m, m.openLedger(msg.call)
	case openLedgerRecordMsg:
		m.record.setEntry(msg.e)
		return m, m.push(m.record)
	case ledgerReadMsg:
		return m, m.ledger.Update(msg)
	case backMsg:
		return m, m.pop()
	case confirmMsg:
		m.confirm = newConfirmDialog(m.c, msg)
		return m, nil
	case promptMsg:
		m.prompt = newPromptDialog(m.c, msg)
		return m, nil
	case openCallMsg:
		m.call.setCall(msg.rec)
		return m, m.push(m.call)
	case openDiffMsg:
		m.diff.setCalls(msg.a, msg.b)
		return m, m.push(m.diff)
	case savedChangedMsg, historyIndexMsg:
		return m, m.history.Update(msg)
	case startRunMsg:
		return m, m.run.Update(msg)
	case runDoneMsg:
		var keep tea.Cmd
		if rec := m.c.record(msg.seq); rec != nil {
			rec.result = msg.result
			keep = m.c.keepCmd(rec)
		}
		m.c.ended(msg.seq, msg.result)
		watched := m.top() == m.run && m.run.busy() && m.run.seq == msg.seq
		cmd := tea.Batch(keep, m.run.Update(msg))
		if msg.result != nil && !watched {
			cmd = tea.Batch(cmd, m.notify(fmt.Sprintf("call %d of %s ended: %s", msg.seq, msg.result.Tool, outcome(msg.result)), msg.result.OK()))
		}
		return m, cmd
	case toastExpiredMsg:
		if msg.gen == m.toastGen {
			m.toast = ""
		}
		return m, nil
	case followRunMsg:
		return m, m.followRun(msg.seq)
	case spinner.TickMsg:
		return m, m.c.tick(msg)
	case availabilityMsg:
		if msg.origin != m.c.origin {
			return m, nil // checked for the origin before the last change
		}
		for name, st := range msg.states {
			m.c.avail[name] = st
		}
		return m, tea.Batch(m.list.Update(msg), m.detail.Update(msg))
	case toggledMsg:
		m.list.refreshTool(msg.name)
		return m, m.detail.Update(msg)
	case boardTickMsg, budgetsMsg:
		return m, m.board.Update(msg)
	case serverRestartedMsg, serverStoppedMsg:
		return m, m.serverChanged(msg)
	case askMsg:
		return m, m.openAsk(msg)
	case askGoneMsg:
		return m, m.askGone(msg)
	case feedMsg:
		return m, m.mcp.fed(msg)
	case mcpMsg:
		s, cmd := m.mcp.Update(msg)
		if s != nil {
			cmd = tea.Batch(cmd, m.push(s))
		}
		return m, cmd
	case toolFilesReloadedMsg:
		return m, m.toolFilesReloaded(msg)
	case toolFilesWatchedMsg:
		return m, tea.Batch(m.toolFilesReloaded(msg.toolFilesReloadedMsg), watchToolFilesCmd(m.c.toolFiles))
	case statusMsg:
		m.setStatus(msg.text, !msg.isErr)
		return m, nil
	case viewer.StatusMsg:
		m.setStatus(msg.Text, !msg.Err)
		return m, nil
	case viewer.CopyMsg:
		return m, clipboardCmd(m.c, msg.Text, msg.What)
	}
	// Anything else (pastes, cursor blinks) goes to the screen on top; the
	// editor of the run screen also gets its timers when it is covered.
	_, input := msg.(tea.PasteMsg)
	var cmd tea.Cmd
	covered := m.confirm != nil || m.quitAsk != nil || m.showHelp || m.prompt != nil || m.palette != nil
	if m.prompt != nil { // a paste goes into the prompt
		cmd = m.prompt.Update(msg)
	}
	if m.palette != nil && m.prompt == nil {
		_, cmd = m.palette.Update(msg)
	}
	if !covered {
		cmd = m.top().Update(msg)
	}
	if !input && (m.top() != m.run || covered) {
		cmd = tea.Batch(cmd, m.run.Update(msg))
	}
	return m, cmd
}

func outcome(res *tooling.Result) string {
	if res.OK() {
		return "ok"
	}
	return string(res.Status) + " " + string(res.Code)
}

func (m *Model) setStatus(text string, ok bool) {
	m.status, m.statusOK = text, ok
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	g := m.c.global
	if key.Matches(msg, g.ForceQuit) {
		return m.interrupt()
	}
	if m.confirm != nil {
		cmd := m.confirm.Update(msg)
		if m.confirm.done {
			m.confirm = nil
		}
		return cmd
	}
	if m.prompt != nil {
		cmd := m.prompt.Update(msg)
		if m.prompt.done {
			m.prompt = nil
		}
		return cmd
	}
	if m.palette != nil {
		run, cmd := m.palette.Update(msg)
		if m.palette.done {
			m.palette = nil
		}
		if run != nil {
			cmd = tea.Batch(cmd, run(m))
		}
		return cmd
	}
	if m.quitAsk != nil {
		m.quitAsk.Update(msg)
		if m.quitAsk.done {
			quit := m.quitAsk.quit
			m.quitAsk = nil
			if quit {
				return m.quit()
			}
		}
		return nil
	}
	if key.Matches(msg, g.PaletteAlways) {
		m.showHelp = false
		m.openPalette()
		return nil
	}
	if m.showHelp {
		if key.Matches(msg, g.Quit) { // as the footer says: q quits here too
			return m.askQuit()
		}
		if key.Matches(msg, g.Help, g.HelpAlways, g.Back) {
			m.showHelp = false
			return nil
		}
		m.helpVP, _ = m.helpVP.Update(msg)
		return nil
	}
	m.status = ""
	if key.Matches(msg, g.HelpAlways) {
		m.openHelp()
		return nil
	}
	if !m.top().Typing() {
		switch {
		case key.Matches(msg, g.Quit):
			return m.askQuit()
		case key.Matches(msg, g.Help):
			m.openHelp()
			return nil
		case key.Matches(msg, g.History):
			return m.push(m.history)
		case key.Matches(msg, g.Board):
			return m.push(m.board)
		case key.Matches(msg, g.Runs):
			return m.push(m.runs)
		case key.Matches(msg, g.Servers):
			return m.push(m.servers)
		case key.Matches(msg, g.Ledger):
			return m.openLedger("")
		case key.Matches(msg, g.Environments):
			return m.push(m.envs)
		case key.Matches(msg, g.Tools):
			return m.home()
		case key.Matches(msg, g.Palette):
			m.openPalette()
			return nil
		case key.Matches(msg, g.Left) && leftGoesBack(m.top()):
			return m.pop()
		}
	}
	return m.top().Update(msg)
}

// askQuit quits from the tool list; from any other screen it first asks,
// since leaving there loses a form being filled in or a result being read.
func (m *Model) askQuit() tea.Cmd {
	if m.top() == m.list {
		return m.quit()
	}
	var running []string
	for _, a := range m.c.running() {
		running = append(running, a.tool)
	}
	m.quitAsk = newQuitDialog(m.c, running)
	return nil
}

// interrupt is ctrl+c: with calls in flight, it cancels them and says so,
// so that they end as canceled, in the history too; the next one, or one
// with no call left to cancel, quits.
func (m *Model) interrupt() tea.Cmd {
	var canceled []string
	for _, a := range m.c.running() {
		if !a.canceling {
			a.stop()
			canceled = append(canceled, a.tool)
		}
	}
	if len(canceled) == 0 {
		return m.quit()
	}
	what := "the call of " + canceled[0]
	if len(canceled) > 1 {
		what = plural(len(canceled), "call") + " in flight"
	}
	m.setStatus(fmt.Sprintf("%s: canceled %s; %s again quits", keyName(m.c.global.ForceQuit), what, keyName(m.c.global.ForceQuit)), false)
	return nil
}

func (m *Model) quit() tea.Cmd {
	m.shutdown()
	return tea.Quit
}

// push puts s on top; a screen is on the stack at most once, so opening it
// again brings it forward.
func (m *Model) push(s screen) tea.Cmd {
	if m.top() == s {
		return nil
	}
	m.top().Hide()
	if i := slices.Index(m.stack, s); i >= 0 {
		m.stack = slices.Delete(m.stack, i, i+1)
	}
	m.stack = append(m.stack, s)
	s.SetSize(m.width, m.bodyHeight())
	m.sizeSplit()
	return s.Show()
}

// pop goes back to the screen below; the list stays.
func (m *Model) pop() tea.Cmd {
	if len(m.stack) == 1 {
		return nil
	}
	m.top().Hide()
	m.stack = m.stack[:len(m.stack)-1]
	m.sizeSplit()
	return m.top().Show()
}

// openRun opens the run screen of a tool. A call the screen follows goes
// on in the background.
func (m *Model) openRun(msg openRunMsg) tea.Cmd {
	t, ok := m.c.reg.Lookup(msg.name)
	if !ok {
		return statusCmd("no tool named "+msg.name, true)
	}
	cmd := tea.Batch(m.run.setTool(t, msg.args), m.push(m.run))
	if msg.again {
		m.run.setIdemKey(msg.idemKey)
	}
	if msg.start {
		args := msg.args
		if args == nil {
			args = json.RawMessage(`{}`)
		}
		cmd = tea.Batch(cmd, m.run.start(args, false))
	}
	return cmd
}

// openLedger shows the ledger; with call, that call's record once the
// ledger is read.
func (m *Model) openLedger(call string) tea.Cmd {
	cmd := m.push(m.ledger)
	if call != "" {
		cmd = tea.Batch(cmd, m.ledger.jump(call))
	}
	return cmd
}

// followRun opens the run screen on the call seq in flight.
func (m *Model) followRun(seq int) tea.Cmd {
	a := m.c.runOf(seq)
	if a == nil {
		return nil
	}
	if !a.running() {
		if rec := m.c.record(seq); rec != nil {
			m.call.setCall(rec)
			return m.push(m.call)
		}
		return nil
	}
	t, ok := m.c.reg.Lookup(a.tool)
	if !ok {
		return statusCmd("no tool named "+a.tool, true)
	}
	return tea.Batch(m.run.follow(t, a), m.push(m.run))
}

// toastTime is how long a notification stays in the footer.
const toastTime = 5 * time.Second

// toastExpiredMsg ends the notification gen.
type toastExpiredMsg struct{ gen int }

// notify shows a short notification in the footer until toastTime passes
// (or a newer one replaces it): a call ended while its screen was not on
// top.
func (m *Model) notify(text string, ok bool) tea.Cmd {
	m.toastGen++
	m.toast, m.toastOK = text, ok
	m.status = "" // older than the notification
	return m.toastTimer(m.toastGen)
}

// toastTick is the notifications' timer.
func toastTick(gen int) tea.Cmd {
	return tea.Tick(toastTime, func(time.Time) tea.Msg { return toastExpiredMsg{gen: gen} })
}

// View draws the header, the screen (or an overlay), the status line and
// the short help, each cut to the terminal's width.
func (m *Model) View() tea.View {
	v := tea.NewView(m.render())
	v.AltScreen = true
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "toolexplorer"
	return v
}

func (m *Model) render() string {
	st := m.c.styles
	w, bodyH := m.width, m.bodyHeight()
	top := m.top()

	var body string
	switch {
	case m.quitAsk != nil:
		body = m.quitAsk.View(w, bodyH)
	case m.showHelp:
		body = m.helpVP.View()
	case m.confirm != nil:
		body = m.confirm.View(w, bodyH)
	case m.prompt != nil:
		body = m.prompt.View(w, bodyH)
	case m.palette != nil:
		body = m.palette.View(w, bodyH)
	case m.split():
		body = m.splitView()
	default:
		body = top.View()
	}

	var status string
	text, ok := m.status, m.statusOK
	if text == "" {
		text, ok = m.toast, m.toastOK
	}
	if text != "" {
		if ok {
			status = st.Status.Render(text)
		} else {
			status = st.StatusErr.Render(text)
		}
	}
	var km help.KeyMap = top.KeyMap()
	typing := top.Typing()
	switch {
	case m.quitAsk != nil:
		km, typing = m.quitAsk.keys, true
	case m.showHelp:
		km, typing = helpOverlayKeys(&m.c.global), false
	case m.confirm != nil:
		km, typing = m.confirm.keys, true
	case m.prompt != nil:
		km, typing = m.prompt.keys, true
	case m.palette != nil:
		km, typing = m.palette.keys, true
	}

	var b strings.Builder
	b.WriteString(fit(m.header(), w, 1))
	b.WriteByte('\n')
	b.WriteString(fit(body, w, bodyH))
	b.WriteByte('\n')
	b.WriteString(fit(status, w, 1))
	b.WriteByte('\n')
	b.WriteString(fit(shortHelpView(m.c, km, w, typing), w, 1))
	return b.String()
}

// header is the breadcrumb of the stack, and the call in flight on the
// right when its screen is not on top.
func (m *Model) header() string {
	st := m.c.styles
	parts := []string{st.HeaderApp.Render("toolexplorer")}
	for i, s := range m.stack {
		if i == len(m.stack)-1 {
			parts = append(parts, st.CrumbActive.Render(s.Title()))
		} else {
			parts = append(parts, st.Crumb.Render(s.Title()))
		}
	}
	left := strings.Join(parts, st.Faint.Render(" › "))
	var right string
	if run := m.c.running(); len(run) == 1 && !(m.top() == m.run && m.run.busy()) {
		right = st.Status.Render(m.c.spin.View() + " " + run[0].tool + " " + formatDuration(run[0].elapsed(m.c.now())))
	} else if len(run) > 1 {
		right = st.Status.Render(m.c.spin.View() + " " + strconv.Itoa(len(run)) + " calls running (R)")
	} else if n := len(m.c.history); n > 0 {
		right = st.Faint.Render(plural(n, "call"))
	}
	if env := m.c.env; env != "" {
		// The environment whose variables fill the arguments, as the
		// principal is said below.
		e := st.Warn.Render("env " + env)
		if right == "" {
			right = e
		} else {
			right = e + st.Faint.Render(" · ") + right
		}
	}
	if p := m.c.principal; p.Auth == "asserted" {
		// Who the console calls as, when it is not who runs it (--as, or
		// the list's call-as key), as the run screen says the origin.
		as := st.Warn.Render("as " + principalText(p))
		if right == "" {
			right = as
		} else {
			right = as + st.Faint.Render(" · ") + right
		}
	}
	if right == "" {
		return left
	}
	return pad(left, max(m.width-ansi.StringWidth(right)-1, 0)) + " " + right
}

var _ tea.Model = (*Model)(nil)
