package tui

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// fakeEditor is an argsEditor that records what the run screen does with
// it, as the schema form will see it.
type fakeEditor struct {
	value     json.RawMessage
	errs      []tooling.FieldError
	setErrs   int
	keys      []string // keys it was given
	binds     key.Binding
	submitted bool
	capturing bool
	text      bool // InputFocused
}

func (f *fakeEditor) Init() tea.Cmd { return nil }

func (f *fakeEditor) Update(msg tea.Msg) tea.Cmd {
	f.submitted = false
	if k, ok := msg.(tea.KeyPressMsg); ok {
		f.keys = append(f.keys, k.String())
		f.submitted = k.String() == "ctrl+s"
	}
	return nil
}
func (f *fakeEditor) Submitted() bool                  { return f.submitted }
func (f *fakeEditor) Capturing() bool                  { return f.capturing }
func (f *fakeEditor) InputFocused() bool               { return f.text }
func (f *fakeEditor) View() string                     { return "FAKE " + string(f.value) }
func (f *fakeEditor) SetSize(int, int)                 {}
func (f *fakeEditor) Value() (json.RawMessage, error)  { return f.value, nil }
func (f *fakeEditor) SetValue(v json.RawMessage) error { f.value = v; return nil }
func (f *fakeEditor) SetErrors(e []tooling.FieldError) { f.errs = e; f.setErrs++ }
func (f *fakeEditor) Raw() bool                        { return false }
func (f *fakeEditor) ToggleRaw() error                 { return nil }
func (f *fakeEditor) KeyMap() help.KeyMap              { return f }
func (f *fakeEditor) ShortHelp() []key.Binding         { return []key.Binding{f.binds} }
func (f *fakeEditor) FullHelp() [][]key.Binding        { return [][]key.Binding{{f.binds}} }

func withFakeEditor(h *harness) *fakeEditor {
	f := &fakeEditor{value: json.RawMessage(`{}`)}
	h.m.c.newEditor = func(string, json.RawMessage, int, int) (argsEditor, error) { return f, nil }
	return f
}

// openRun opens the run screen of name with args in the editor.
func openRun(t *testing.T, h *harness, name, args string) {
	t.Helper()
	var a json.RawMessage
	if args != "" {
		a = json.RawMessage(args)
	}
	h.send(openRunMsg{name: name, args: a})
	if h.m.top() != h.m.run || h.m.run.tool.Name != name {
		t.Fatalf("the run screen of %s is not on top", name)
	}
}

func TestRunEchoShowsTheResult(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", `{"text":"hi","repeat":2}`)
	h.mustContain("Run demo.echo · Echo", "arguments: form", "text*", " hi", "repeat", " 2", "ctrl+s submit")
	h.press("ctrl+s")
	res := h.runDone(1)
	if !res.OK() || res.Origin != tooling.OriginUI || res.CallID != "call-1" {
		t.Fatalf("result: %+v", res)
	}
	h.mustContain("✓ ok · demo.echo · call call-1", "Output", `"text": "hi hi"`, "Governance")
	if len(h.m.c.history) != 1 || h.m.c.history[0].result != res || string(h.m.c.history[0].args) != `{"text":"hi","repeat":2}` {
		t.Fatalf("history: %+v", h.m.c.history)
	}
	h.press("e") // back to the arguments
	if h.m.run.phase != phaseEditing {
		t.Fatal("e does not go back to the arguments")
	}
	h.press("tab", "enter") // enter on the last field runs too
	if res := h.runDone(2); !res.OK() {
		t.Fatalf("second call: %s %s", res.Code, res.Message)
	}
	h.press("r") // again, from the result
	if res := h.runDone(3); !res.OK() {
		t.Fatalf("third call: %s %s", res.Code, res.Message)
	}
	h.press("esc", "esc")
	if h.m.top() != h.m.list {
		t.Fatal("esc esc from a result does not go back to the list")
	}
}

func TestRunScrollsTheResult(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 8)
	openRun(t, h, "demo.echo", `{"text":"hi"}`)
	h.press("ctrl+s")
	h.runDone(1)
	top := h.view()
	h.press("j", "j")
	if !strings.Contains(top, " Output\n") || strings.Contains(h.view(), " Output\n") || !strings.Contains(h.view(), "›  }") {
		t.Fatalf("j j: the cursor is not on the last row, scrolled:\n%s\nfrom\n%s", h.view(), top)
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if !strings.Contains(h.view(), " Output\n") {
		t.Fatalf("wheel up did not scroll back to the top:\n%s", h.view())
	}
}

func TestRunValidationErrorsGoToTheEditor(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	f := withFakeEditor(h)
	openRun(t, h, "demo.echo", "")
	f.value = json.RawMessage(`{"repeat":99}`)
	h.press("ctrl+s")
	res := h.runDone(1)
	if res.Code != codes.ValidationError {
		t.Fatalf("code %s", res.Code)
	}
	if h.m.run.phase != phaseEditing {
		t.Fatal("a validation error leaves the editor")
	}
	var paths []string
	for _, e := range f.errs {
		paths = append(paths, e.Path)
	}
	if got := strings.Join(paths, ","); got != "/repeat,/text" {
		t.Fatalf("errors given to the editor: %v", f.errs)
	}
	h.mustContain("validation_error: 2 arguments to fix, marked on the fields")
	f.value = json.RawMessage(`{"text":"ok"}`)
	n := f.setErrs
	h.press("ctrl+s")
	if f.setErrs == n || f.errs != nil {
		t.Fatal("a new call does not clear the editor's errors")
	}
	if res := h.runDone(2); !res.OK() {
		t.Fatalf("second call: %s", res.Code)
	}
}

func TestRunEditorKeys(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	f := withFakeEditor(h)
	f.text = true
	f.value = json.RawMessage(`{"text":"x"}`)
	openRun(t, h, "demo.echo", "")
	h.press("enter", "q", "?", "H", "tab", "ctrl+r")
	if got := strings.Join(f.keys, " "); got != "enter q ? H tab ctrl+r" {
		t.Fatalf("the editor got %q", got)
	}
	if len(h.m.c.history) != 0 || h.m.top() != h.m.run || h.m.showHelp {
		t.Fatal("keys typed in the editor reached the console")
	}
	h.press("f1")
	if !h.m.showHelp {
		t.Fatal("f1 does not open the help while typing")
	}
	h.mustContain("Keys · Run demo.echo", "esc", "back")
	h.press("esc")

	f.capturing = true // an open picker takes esc
	h.press("esc")
	if h.m.top() != h.m.run || f.keys[len(f.keys)-1] != "esc" {
		t.Fatal("esc left while the editor captures it")
	}
	f.capturing, f.text = false, false // the focus on a field that takes no text
	h.press("?")
	if !h.m.showHelp {
		t.Fatal("? does not open the help when no text field has the focus")
	}
	h.press("esc")
	h.press("ctrl+s")
	if res := h.runDone(1); res.Code != codes.OK {
		t.Fatalf("submitted call: %s", res.Code)
	}
	h.press("e", "esc")
	if h.m.top() != h.m.list {
		t.Fatal("esc from the editor does not go back")
	}
}

func TestRawEditorFallback(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	h.m.c.newEditor = func(string, json.RawMessage, int, int) (argsEditor, error) {
		return nil, errors.New("form: the schema is not valid JSON")
	}
	openRun(t, h, "demo.echo", "")
	h.mustContain("form: the schema is not valid JSON (editing raw JSON)", "arguments: raw JSON", "ctrl+s/enter run")
	ed := h.m.run.editor
	if !ed.Raw() || ed.ToggleRaw() == nil {
		t.Fatal("the fallback editor is not raw only")
	}
	v, err := ed.Value()
	if err != nil || string(v) != `{"text":"","repeat":1}` {
		t.Fatalf("template = %s, %v", v, err)
	}
	if err := ed.SetValue(json.RawMessage(`{"text": 1`)); err == nil {
		t.Fatal("SetValue took invalid JSON")
	}
	h.typeText("x")
	h.press("ctrl+s")
	h.mustContain("the arguments are not valid JSON: line 1, column 1")
	if len(h.m.c.history) != 0 {
		t.Fatal("invalid JSON was sent")
	}
	_ = ed.SetValue(json.RawMessage(`[1]`))
	h.press("enter")
	h.mustContain("the arguments must be a JSON object")
	_ = ed.SetValue(json.RawMessage(`{"text":"typed"}`))
	h.press("ctrl+j") // a new line, not a run
	if len(h.m.c.history) != 0 {
		t.Fatal("ctrl+j ran the call")
	}
	h.press("enter")
	if res := h.runDone(1); !res.OK() || !strings.Contains(string(res.Output), "typed") {
		t.Fatalf("%s %s", res.Code, res.Output)
	}
	h.press("e")
	_ = ed.SetValue(json.RawMessage(`{"repeat":0}`))
	h.press("ctrl+s")
	h.runDone(2)
	h.mustContain("✗ /repeat: must be at least 1", "✗ /text: is required but missing")
}

func TestRunFailureShowsCodeAndMessage(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.fail", "")
	h.press("ctrl+s")
	if res := h.runDone(1); res.Code != codes.ToolError {
		t.Fatalf("code %s", res.Code)
	}
	h.mustContain("✗ error tool_error · demo.fail", "tool_error: the disk is on fire")

	openRun(t, h, "demo.llm_only", "")
	h.press("ctrl+s")
	if res := h.runDone(2); res.Code != codes.OriginDenied {
		t.Fatalf("code %s", res.Code)
	}
	h.mustContain("⊘ denied origin_denied")

	openRun(t, h, "demo.ui_only", "") // the console calls as origin ui
	h.press("ctrl+s")
	if res := h.runDone(3); !res.OK() {
		t.Fatalf("ui-only tool: %s %s", res.Code, res.Message)
	}
}

func TestRunCancelSlowCall(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.slow", `{"ms":60000}`)
	h.press("ctrl+s")
	if !h.m.run.busy() {
		t.Fatal("the call is not running")
	}
	h.mustContain("Run demo.slow", "queue wait", "timeout 1m0s", "esc cancels the call")
	h.press("B") // the board while it runs
	if h.m.top() != h.m.board {
		t.Fatal("B does not open the board during a call")
	}
	h.mustContain("demo.slow 0s") // the call in flight, in the header
	h.press("esc")
	if h.m.top() != h.m.run || !h.m.run.busy() {
		t.Fatal("esc from the board does not go back to the running call")
	}
	h.press("esc")
	h.mustContain("canceling")
	res := h.runDone(1)
	if res.Code != codes.Canceled {
		t.Fatalf("code %s: %s", res.Code, res.Message)
	}
	h.mustContain("✗ error canceled", "canceled by its caller")
}

func TestQuitCancelsTheCall(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.slow", `{"ms":60000}`)
	h.press("ctrl+s")
	h.press("q")
	h.mustContain("The call of demo.slow in flight is")
	h.press("y")
	if res := h.runDone(1); res.Code != codes.Canceled {
		t.Fatalf("code %s", res.Code)
	}
	h.waitFor("quit", func(m tea.Msg) bool { _, ok := m.(tea.QuitMsg); return ok })
}

func TestRunConsentDialog(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.mustContain("asks consent")
	h.press("ctrl+s")
	if h.m.confirm == nil {
		t.Fatal("no consent dialog")
	}
	h.mustContain("Run demo.write_note?", "demo.write_note has write effects at medium risk and needs consent.",
		"Arguments", `"key": "k",`, `"note": "n"`, "Consent and run (y)", "Cancel (n)")
	h.press("enter") // the focus starts on cancel
	if h.m.confirm != nil || len(h.m.c.history) != 0 {
		t.Fatal("enter on the dialog did not cancel")
	}
	h.mustContain("canceled: nothing was run")

	h.press("ctrl+s", "n")
	if len(h.m.c.history) != 0 {
		t.Fatal("n ran the call")
	}
	h.press("ctrl+s", "tab", "enter") // the focus moves to consent
	res := h.runDone(1)
	if !res.OK() {
		t.Fatalf("with consent: %s %s", res.Code, res.Message)
	}
	if !h.m.c.history[0].consent {
		t.Fatal("the history does not record the consent")
	}
	h.press("r") // again from the result: asks again
	if h.m.confirm == nil {
		t.Fatal("run again does not ask for consent")
	}
	h.press("y")
	if res := h.runDone(2); !res.OK() {
		t.Fatalf("y: %s", res.Code)
	}
}

func TestDangerousToolConfirmation(t *testing.T) {
	reg := newTestRegistry(t)
	h := newHarness(t, reg, 100, 30)
	openRun(t, h, "demo.fetch", `{"url":"https://example.com"}`)
	h.press("ctrl+s")
	if h.m.confirm != nil {
		t.Fatal("a network tool asks for consent without dangerous_tool_confirmation")
	}
	h.runDone(1)

	h.m.c.dangerous = true // config dangerous_tool_confirmation
	h.press("e", "ctrl+s")
	if h.m.confirm == nil {
		t.Fatal("dangerous_tool_confirmation does not ask before a network tool")
	}
	h.mustContain("read|network effects at medium risk; the config asks")
	h.press("y")
	if res := h.runDone(2); !res.OK() || !h.m.c.history[1].consent {
		t.Fatalf("%s, consent %v", res.Code, h.m.c.history[1].consent)
	}
	openRun(t, h, "demo.echo", `{"text":"x"}`)
	h.press("ctrl+s")
	if h.m.confirm != nil {
		t.Fatal("a tool without side effects asks for consent")
	}
	h.runDone(3)
}

func TestConsentIsAskedForValidArgumentsOnly(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	f := withFakeEditor(h)
	openRun(t, h, "demo.write_note", "")
	f.value = json.RawMessage(`{"key":"k"}`)
	h.press("ctrl+s")
	if h.m.confirm != nil || len(h.m.c.history) != 0 {
		t.Fatal("consent asked for arguments that do not validate")
	}
	if len(f.errs) != 1 || f.errs[0].Path != "/note" {
		t.Fatalf("errors given to the editor: %v", f.errs)
	}
	h.mustContain("validation_error: 1 argument to fix before consent is asked")
	f.value = json.RawMessage(`{"key":"k","note":"n"}`)
	h.press("ctrl+s")
	if h.m.confirm == nil {
		t.Fatal("no consent dialog for valid arguments")
	}
}

// TestRunFormChecksThroughTheRegistry: the form's checks as a person types
// are the registry's own, so the form never accepts what the call refuses
// (a date-time with a space where RFC 3339 wants a T).
func TestRunFormChecksThroughTheRegistry(t *testing.T) {
	reg := newTestRegistry(t)
	if err := reg.Add(tooling.Tool{
		Name: "demo.schedule", Description: "Schedules a reminder.",
		Input: json.RawMessage(`{"type":"object","properties":{"at":{"type":"string","format":"date-time"}},"required":["at"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly},
		Run:   func(context.Context, tooling.Call) (any, error) { return map[string]any{"ok": true}, nil },
	}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 100, 30)
	openRun(t, h, "demo.schedule", "")
	h.typeText("2026-01-31 15:04:05Z")
	h.mustContain("! must be a valid date-time, like 2026-01-31T15:04:05Z")
	for range len("15:04:05Z") + 1 {
		h.press("backspace")
	}
	h.typeText("T15:04:05Z")
	if v := h.view(); strings.Contains(v, "must be a valid") {
		t.Fatalf("the hint stays on a valid date-time:\n%s", v)
	}
}

// "Allow for this session" goes through the registry's consent function:
// later calls of the tool from the console run without asking, and the
// registry keeps the consent for that tool and origin only.
func TestConsentForThisSession(t *testing.T) {
	reg := newTestRegistry(t)
	h := newHarness(t, reg, 120, 30)
	openRun(t, h, "demo.write_note", `{"key":"k","note":"n"}`)
	h.press("ctrl+s")
	h.mustContain("Allow for this session (a)")
	h.press("tab", "tab", "enter") // consent, then allow for this session
	res := h.runDone(1)
	if !res.OK() || !h.m.c.history[0].consent {
		t.Fatalf("allowed for the session: %s %s", res.Code, res.Message)
	}
	found := false
	for _, d := range res.Governance {
		found = found || d.Step == "consent" && d.Detail == "given for this session (tool, origin ui and principal anonymous)"
	}
	if !found {
		t.Fatalf("governance %+v", res.Governance)
	}
	if c := h.m.c.sessionConsent; !c[sessionKey{tool: "demo.write_note", origin: tooling.OriginUI}] || c[sessionKey{tool: "demo.write_note", origin: tooling.OriginApp}] {
		t.Fatal("the console does not hold the consent for the tool and its origin only")
	}
	h.press("r") // again from the result: no dialog now
	if h.m.confirm != nil {
		t.Fatal("asked again after allow for this session")
	}
	if res := h.runDone(2); !res.OK() || !h.m.c.history[1].consent {
		t.Fatalf("second call: %s", res.Code)
	}
	// A host calling the same tool from another origin still needs consent.
	if _, err := reg.Execute(context.Background(), "demo.write_note", json.RawMessage(`{"key":"k","note":"n"}`)); !errors.Is(err, codes.ConsentRequired) {
		t.Fatalf("origin app: %v", err)
	}
	// The key a works as the button does; a tool the config alone asks
	// about offers consent once only.
	h.m.c.dangerous = true // config dangerous_tool_confirmation
	openRun(t, h, "demo.fetch", `{"url":"https://example.com"}`)
	h.press("ctrl+s")
	if h.m.confirm == nil || strings.Contains(h.view(), "Allow for this session") {
		t.Fatal("the config's question offers consent for the session")
	}
	h.press("a") // not offered: nothing happens
	if h.m.confirm == nil {
		t.Fatal("a answered a dialog that does not offer it")
	}
	h.press("n")
}

// TestRunScrollsAHugeResult: the result of a call whose output is one
// long JSON string with line breaks reads as text, from the top to the
// bottom (tui/viewer pages through all of it).
func TestRunScrollsAHugeResult(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 80, 24)
	out := bigOutput(64 << 10)
	res := &tooling.Result{Tool: "demo.echo", Status: "ok", Output: out}
	showResult(h.m, res)
	h.mustContain("✓ ok · demo.echo", "Output", `"body": ⏎ 875 lines`, "paragraph 000000: lorem")
	for _, l := range strings.Split(h.m.render(), "\n") {
		if w := ansi.StringWidth(l); w > 80 {
			t.Fatalf("a row is %d columns wide, wider than the screen: %q", w, l)
		}
	}
	var body struct{ Body string }
	if err := json.Unmarshal(out, &body); err != nil {
		t.Fatal(err)
	}
	paragraphs := strings.Split(strings.TrimSuffix(body.Body, "\n"), "\n")
	last := paragraphs[len(paragraphs)-1]
	h.press("g")
	h.mustContain(`"body": ⏎`, "paragraph 000000:")
	h.press("G")
	h.mustContain(`"status": 200`, last[:70])
	h.mustNotContain("paragraph 000000:")
	h.press("pgup", "k")
	h.mustNotContain(`"status": 200`)
}

// The result says how many failing fields are not listed.
func TestResultCountsMoreFields(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.echo", "")
	h.m.run.finish(&tooling.Result{CallID: "call-1", Tool: "demo.echo", Status: "denied", Code: codes.ValidationError,
		Message: "3 invalid arguments, the first 1 listed (config max_field_errors): /text: is required but missing",
		Fields:  []tooling.FieldError{{Path: "/text", Keyword: "required", Message: "is required but missing"}}, MoreFields: 2})
	h.mustContain("✗ is required but missing", "validation_error: 3 arguments to fix, the first 1 marked on the fields (config max_field_errors)")

	h.m.run.finish(&tooling.Result{CallID: "call-2", Tool: "demo.echo", Status: "error", Code: codes.OutputInvalid,
		Message: "demo.echo returned output that does not match its output schema",
		Fields:  []tooling.FieldError{{Path: "/text", Keyword: "type", Message: "must be a string, got a number"}}, MoreFields: 2})
	h.mustContain("/text: must be a string, got a number", "... and 2 more (config max_field_errors)")
}

// TestRunRetryAfterCountsDown: a call refused by a rate limit says when it
// may be made again, and counts down to it.
func TestRunRetryAfterCountsDown(t *testing.T) {
	reg := newTestRegistry(t)
	if err := reg.Add(tooling.Tool{
		Name: "demo.limited", Description: "Once a minute.",
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Rate: tooling.Rate{PerMinute: 1}},
		Run:  func(context.Context, tooling.Call) (any, error) { return map[string]any{"ok": true}, nil },
	}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, reg, 100, 30)
	now := fixedTime
	h.m.c.now = func() time.Time { return now }
	openRun(t, h, "demo.limited", "")
	h.press("ctrl+s")
	h.runDone(1)
	h.press("r")
	if res := h.runDone(2); res.Code != codes.RateLimited {
		t.Fatalf("second call: %s", res.Code)
	}
	if !regexp.MustCompile(`retry in (59s|1m0s)`).MatchString(h.view()) {
		t.Fatalf("no countdown from the retry-after:\n%s", h.view())
	}
	now = now.Add(30 * time.Second)
	h.send(retryTickMsg{seq: 2})
	h.mustContain("retry in 30s")
	// The message counts down too (it said 1m0s all along).
	h.mustContain(`(bucket "demo.limited"): retry in 30s`)
	now = now.Add(31 * time.Second)
	h.send(retryTickMsg{seq: 2})
	h.mustContain("the limit allows a call again: r runs it again")
	h.mustContain(`(bucket "demo.limited"): the limit allows`)
}

// The text around a result's output is wrapped once, at the viewer's
// width: a line never breaks before a word that would have fitted on it
// (wrapped twice, a hint left a lone "in" on a line of its own).
func TestResultFrameWrapsOnce(t *testing.T) {
	res := &tooling.Result{Tool: "demo.limited", Status: "denied", Code: codes.RateLimited,
		Message: `demo.limited is limited to 1/min, burst 1 (bucket "demo.limited"): retry in 59.396s`,
		Hint:    `wait for the retry-after, or raise rate_per_minute and burst of "demo.limited" under tools in the config, which sets this limit (up to the tool's own 2/min burst 2)`}
	for w := 40; w <= 120; w++ {
		head, _ := resultFrame(newStyles(true), res, w)
		lines := strings.Split(ansi.Strip(strings.Join(head, "\n")), "\n")
		for i := 0; i+1 < len(lines); i++ {
			next := strings.Fields(lines[i+1])
			if len(next) == 0 || strings.TrimSpace(lines[i]) == "" || next[0] == "hint:" { // a paragraph ends
				continue
			}
			if width(strings.TrimRight(lines[i], " "))+1+width(next[0]) <= w-2 {
				t.Fatalf("width %d: line %d breaks before %q, which fits:\n%s", w, i+1, next[0], strings.Join(lines, "\n"))
			}
		}
	}
}

// TestInterruptCancelsTheCallFirst: ctrl+c during a call cancels it and
// says so, the call ends as canceled and is kept; only the next ctrl+c
// quits (the first quit at once and the call was not kept).
func TestInterruptCancelsTheCallFirst(t *testing.T) {
	h := newHarness(t, newTestRegistry(t), 100, 30)
	openRun(t, h, "demo.slow", `{"ms":60000}`)
	h.press("ctrl+s")
	h.press("ctrl+c")
	quit := func() bool {
		for _, m := range h.seen {
			if _, ok := m.(tea.QuitMsg); ok {
				return true
			}
		}
		return false
	}
	if quit() {
		t.Fatal("ctrl+c during a call quit")
	}
	h.mustContain("ctrl+c: canceled the call of demo.slow; ctrl+c again quits")
	if res := h.runDone(1); res.Code != codes.Canceled {
		t.Fatalf("code %s", res.Code)
	}
	if rec := h.m.c.record(1); rec == nil || rec.result == nil || rec.result.Code != codes.Canceled {
		t.Fatalf("the history has %+v", rec)
	}
	h.mustContain("✗ error canceled")
	if quit() {
		t.Fatal("the canceled call quit")
	}
	h.press("ctrl+c")
	if !quit() {
		t.Fatal("the second ctrl+c did not quit")
	}
}
