package tui

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/tooling"
	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// testTools are demo-like tools covering every badge and governance path
// the console shows.
func testTools() []tooling.Tool {
	return []tooling.Tool{
		{
			Name: "demo.echo", Title: "Echo",
			Description: "Returns the text it is given, repeated.\nA second line the list does not show.",
			Input: json.RawMessage(`{
  "type": "object",
  "properties": {
    "text": {"type": "string", "description": "What to say.", "minLength": 1},
    "repeat": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1}
  },
  "required": ["text"],
  "additionalProperties": false
}`),
			Output: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Meta:   tooling.Meta{Concurrency: tooling.ReadOnly, Idempotent: true, Tags: []string{"demo"}, Version: "1.0.0"},
			Run: func(_ context.Context, c tooling.Call) (any, error) {
				parts := make([]string, callargs.Int(c.Args, "repeat"))
				for i := range parts {
					parts[i] = callargs.String(c.Args, "text")
				}
				return map[string]any{"text": strings.Join(parts, " ")}, nil
			},
		},
		{
			Name: "demo.slow", Title: "Slow", Description: "Sleeps for ms milliseconds, honouring its context.",
			Input: json.RawMessage(`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"default":100}}}`),
			Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Timeout: time.Minute},
			Run: func(ctx context.Context, c tooling.Call) (any, error) {
				select {
				case <-time.After(time.Duration(callargs.Int(c.Args, "ms")) * time.Millisecond):
					return map[string]any{"slept_ms": callargs.Int(c.Args, "ms")}, nil
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			},
		},
		{
			Name: "demo.write_note", Title: "Write note", Description: "Stores a note under a key.",
			Input: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"},"note":{"type":"string"}},"required":["key","note"]}`),
			Meta:  tooling.Meta{Effects: tooling.EffectWrite, Resources: []string{"notes"}},
			Run: func(_ context.Context, c tooling.Call) (any, error) {
				return map[string]any{"stored": callargs.String(c.Args, "key")}, nil
			},
		},
		{
			Name: "demo.fetch", Title: "Fetch", Description: "Pretends to fetch a URL from the network.",
			Input: json.RawMessage(`{"type":"object","properties":{"url":{"type":"string","format":"uri"}},"required":["url"]}`),
			Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead | tooling.EffectNetwork},
			Run:   func(context.Context, tooling.Call) (any, error) { return map[string]any{"status": 200}, nil },
		},
		{
			Name: "demo.fail", Title: "Fail", Description: "Always fails with a tool error.",
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
			Run:  func(context.Context, tooling.Call) (any, error) { return nil, errors.New("the disk is on fire") },
		},
		{
			Name: "demo.unavailable", Title: "Unavailable", Description: "Never available: there is no device.",
			Meta:      tooling.Meta{Concurrency: tooling.ReadOnly},
			Available: func(context.Context, tooling.Call) error { return errors.New("no device attached") },
			Run:       func(context.Context, tooling.Call) (any, error) { return nil, nil },
		},
		{
			Name: "demo.main", Title: "Main thread", Description: "Runs on the main thread.",
			Meta: tooling.Meta{Concurrency: tooling.MainThread},
			Run:  func(context.Context, tooling.Call) (any, error) { return map[string]any{"ok": true}, nil },
		},
		{
			Name: "demo.llm_only", Title: "For models", Description: "Only a language model may call it.",
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Origins: []tooling.Origin{tooling.OriginLLM}},
			Run:  func(context.Context, tooling.Call) (any, error) { return nil, nil },
		},
		{
			Name: "demo.ui_only", Title: "For people", Description: "Only a person at a UI may call it.",
			Input: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`),
			Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Origins: []tooling.Origin{tooling.OriginUI}},
			Run:   func(context.Context, tooling.Call) (any, error) { return nil, nil },
		},
	}
}

func newTestRegistry(t testing.TB) *tooling.Registry {
	t.Helper()
	reg := tooling.NewRegistry()
	for _, tool := range testTools() {
		if err := reg.Add(tool); err != nil {
			t.Fatal(err)
		}
	}
	return reg
}

// fixedTime is the clock of the tests' views.
var fixedTime = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// harness drives a Model the way the Bubble Tea runtime does, on the
// test's goroutine: it sends messages to Update and runs the commands.
// Commands that answer at once (navigation, status, availability) are
// handled before send returns; slower ones (a call, a timer) run in the
// background and their messages are handled by waitFor. Timer messages of
// the spinner and the board are dropped: tests send those themselves.
type harness struct {
	t    testing.TB
	m    *Model
	msgs chan tea.Msg
	seen []tea.Msg // every message handled, in order
	done chan struct{}
	wg   sync.WaitGroup
}

func newHarness(t testing.TB, reg *tooling.Registry, w, h int) *harness {
	t.Helper()
	return newHarnessWith(t, reg, Options{}, w, h)
}

// newHarnessWith is newHarness with options (NoColor is always set).
func newHarnessWith(t testing.TB, reg *tooling.Registry, opts Options, w, h int) *harness {
	t.Helper()
	opts.NoColor = true
	m := New(reg, opts)
	m.c.now = func() time.Time { return fixedTime }
	m.c.callID = func(seq int) string { return fmt.Sprintf("call-%d", seq) }
	m.toastTimer = func(int) tea.Cmd { return nil } // tests send toastExpiredMsg
	// The form's preflight is asked at once, not after a pause in typing.
	m.c.explainTimer = func(gen int) tea.Cmd { return msgCmd(explainTickMsg{gen: gen}) }
	hs := &harness{t: t, m: m, msgs: make(chan tea.Msg, 256), done: make(chan struct{})}
	t.Cleanup(func() {
		m.shutdown()
		close(hs.done)
		hs.wg.Wait()
	})
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.exec(m.Init())
	return hs
}

// send hands msg to Update and runs the command it returns.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	h.seen = append(h.seen, msg)
	_, cmd := h.m.Update(msg)
	h.exec(cmd)
}

// instant is how long a command may take to count as answering at once:
// well above scheduling delays on a busy machine, below the cursor's
// blink (about 530ms), whose commands must stay in the background.
const instant = 400 * time.Millisecond

func (h *harness) exec(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	ch := make(chan tea.Msg, 1)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		msg := cmd()
		select {
		case ch <- msg:
		case <-h.done:
		}
	}()
	select {
	case msg := <-ch:
		h.handle(msg)
	case <-time.After(instant):
		h.wg.Add(1)
		go func() {
			defer h.wg.Done()
			select {
			case msg := <-ch:
				select {
				case h.msgs <- msg:
				case <-h.done:
				}
			case <-h.done:
			}
		}()
	}
}

func (h *harness) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.exec(c)
		}
	case spinner.TickMsg, boardTickMsg:
		// Timers: dropped after the first spinner frame.
		if _, ok := msg.(spinner.TickMsg); ok && !h.sawSpinner() {
			h.send(msg)
		}
	default:
		if _, ok := msg.(tea.QuitMsg); ok {
			h.seen = append(h.seen, msg)
			return
		}
		h.send(msg)
	}
}

func (h *harness) sawSpinner() bool {
	for _, m := range h.seen {
		if _, ok := m.(spinner.TickMsg); ok {
			return true
		}
	}
	return false
}

// waitFor handles background messages until one satisfies ok.
func (h *harness) waitFor(what string, ok func(tea.Msg) bool) tea.Msg {
	h.t.Helper()
	for _, m := range h.seen {
		if ok(m) {
			return m
		}
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-h.msgs:
			n := len(h.seen)
			h.handle(msg)
			for _, m := range h.seen[n:] {
				if ok(m) {
					return m
				}
			}
		case <-deadline:
			h.t.Fatalf("timed out waiting for %s", what)
			return nil
		}
	}
}

// runDone waits for the result of call seq.
func (h *harness) runDone(seq int) *tooling.Result {
	h.t.Helper()
	msg := h.waitFor(fmt.Sprintf("the result of call %d", seq), func(m tea.Msg) bool {
		d, ok := m.(runDoneMsg)
		return ok && d.seq == seq
	})
	return msg.(runDoneMsg).result
}

// press sends keys: single characters, or names like "enter", "ctrl+s".
func (h *harness) press(keys ...string) {
	h.t.Helper()
	for _, k := range keys {
		h.send(keyMsg(k))
	}
}

// typeText types s one character at a time.
func (h *harness) typeText(s string) {
	h.t.Helper()
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func keyMsg(k string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
		"left": tea.KeyLeft, "right": tea.KeyRight, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown,
		"pgup": tea.KeyPgUp, "home": tea.KeyHome, "end": tea.KeyEnd, "space": tea.KeySpace, "f1": tea.KeyF1,
	}
	var mod tea.KeyMod
	name := k
	for {
		switch {
		case strings.HasPrefix(name, "ctrl+"):
			mod |= tea.ModCtrl
			name = name[5:]
			continue
		case strings.HasPrefix(name, "shift+"):
			mod |= tea.ModShift
			name = name[6:]
			continue
		case strings.HasPrefix(name, "alt+"):
			mod |= tea.ModAlt
			name = name[4:]
			continue
		}
		break
	}
	if r, ok := special[name]; ok {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	r := []rune(name)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: name}
}

// view is the frame as plain text.
func (h *harness) view() string {
	return ansi.Strip(h.m.render())
}

func (h *harness) mustContain(subs ...string) {
	h.t.Helper()
	v := h.view()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			h.t.Fatalf("view lacks %q:\n%s", s, v)
		}
	}
}

func (h *harness) mustNotContain(subs ...string) {
	h.t.Helper()
	v := h.view()
	for _, s := range subs {
		if strings.Contains(v, s) {
			h.t.Fatalf("view has %q:\n%s", s, v)
		}
	}
}

// golden compares the frame with testdata/name.golden (rewritten with
// -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
