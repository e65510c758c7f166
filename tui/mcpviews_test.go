package tui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui/viewer"
)

// fakeFeatures are the resources, prompts and roots of the server "good"
// of fakeServers; it records what it is asked.
type fakeFeatures struct {
	mu     sync.Mutex
	asked  []string
	roots  []Root
	levels []string
}

func (f *fakeFeatures) note(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, s)
}

func (f *fakeFeatures) Resources(server string) ([]Resource, []ResourceTemplate) {
	return []Resource{
			{URI: "mem://notes/today", Name: "today", MIMEType: "text/plain", Description: "Today's note."},
			{URI: "mem://notes/list", Name: "list", MIMEType: "application/json"},
		}, []ResourceTemplate{
			{URITemplate: "mem://notes/{day}{?lang}", Name: "note of a day", Description: "The note of any day."},
		}
}

func (f *fakeFeatures) ReadResource(_ context.Context, server, uri string) (json.RawMessage, error) {
	f.note("read " + server + " " + uri)
	if uri == "mem://notes/list" {
		return nil, errors.New("resource not found")
	}
	return json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": uri, "mimeType": "text/plain", "text": "the note of " + uri}}})
}

func (f *fakeFeatures) Subscribe(_ context.Context, server, uri string, on bool) error {
	f.note(fmt.Sprintf("subscribe %s %s %v", server, uri, on))
	return nil
}

func (f *fakeFeatures) Prompts(string) []Prompt {
	return []Prompt{
		{Name: "simple", Description: "A prompt without arguments."},
		{Name: "greet", Title: "Greet someone", Arguments: []PromptArgument{{Name: "name", Description: "Who", Required: true}, {Name: "tone"}}},
	}
}

func (f *fakeFeatures) GetPrompt(_ context.Context, server, name string, args map[string]string) (json.RawMessage, error) {
	b, _ := json.Marshal(args)
	f.note("prompt " + server + " " + name + " " + string(b))
	return json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "Hello, " + args["name"]}}}})
}

func (f *fakeFeatures) SetLogLevel(_ context.Context, server, level string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.levels = append(f.levels, server+" "+level)
	return nil
}

func (f *fakeFeatures) Roots() []Root {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Root(nil), f.roots...)
}

func (f *fakeFeatures) SetRoots(roots []Root) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range roots {
		if !strings.HasPrefix(r.URI, "file://") {
			return errors.New("not a file:// URI")
		}
	}
	f.roots = roots
	return nil
}

func (f *fakeFeatures) saw(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.asked {
		if a == s {
			return true
		}
	}
	return false
}

// mcpHarness is a console with the fake servers, features and a feed, on
// the servers screen.
func mcpHarness(t *testing.T, w, h int) (*harness, *fakeFeatures, *Feed) {
	reg := tooling.NewRegistry()
	srv := newFakeServers(reg)
	f, feed := &fakeFeatures{}, NewFeed()
	hs := newHarnessWith(t, reg, Options{Servers: srv, Features: f, Feed: feed}, w, h)
	t.Cleanup(func() {
		close(srv.stopped)
		feed.Close()
	})
	hs.press("S")
	return hs, f, feed
}

// waitFeed waits until the console has taken what the feed held.
func waitFeed(h *harness) {
	h.t.Helper()
	n := 0
	for _, m := range h.seen {
		if _, ok := m.(feedMsg); ok {
			n++
		}
	}
	h.waitFor("the feed", func(m tea.Msg) bool {
		if _, ok := m.(feedMsg); ok {
			n--
		}
		return n < 0
	})
}

// TestResourcesScreen: o on a server lists its resources and templates;
// enter reads a resource into the viewer; a template's parameters are
// filled in a form and the URI they make is read; s subscribes, and the
// updates the feed brings are counted beside the resource and logged.
func TestResourcesScreen(t *testing.T) {
	h, f, feed := mcpHarness(t, 100, 30)
	h.press("o")
	h.mustContain("Resources of good · 2 resources · 1 template", "today", "mem://notes/today", "text/plain", "T note of a day", "mem://notes/{day}{?lang}", "Today's note.")
	golden(t, "resources_100x30", h.view())

	h.press("enter")
	h.waitFor("the read", func(m tea.Msg) bool { _, ok := m.(resourceReadMsg); return ok })
	h.mustContain("toolexplorer › Tools › MCP servers › Resources of good › Resource mem://notes/today", "the note of mem://notes/today")
	h.press("esc")

	h.press("j")
	h.press("enter")
	h.waitFor("the failed read", func(m tea.Msg) bool { _, ok := m.(resourceReadMsg); return ok })
	h.mustContain("reading mem://notes/list: resource not found")

	h.press("j", "enter")
	h.mustContain("Parameters of note of a day", "Template mem://notes/{day}{?lang}", "day", "lang")
	h.typeText("monday")
	h.press("ctrl+s")
	h.waitFor("the read of the template", func(m tea.Msg) bool { _, ok := m.(resourceReadMsg); return ok })
	if !f.saw("read good mem://notes/monday") {
		t.Fatalf("asked %v", f.asked)
	}
	h.mustContain("the note of mem://notes/monday")
	h.press("esc", "esc")

	h.press("g", "k", "k")
	h.press("s")
	h.waitFor("the subscription", func(m tea.Msg) bool { _, ok := m.(subscribedMsg); return ok })
	h.mustContain("subscribed to mem://notes/today", "● today")
	feed.Updated("good", "mem://notes/today")
	feed.Updated("good", "mem://notes/today")
	waitFeed(h)
	h.mustContain("updated 2 times")
	h.press("s")
	h.waitFor("the end of the subscription", func(m tea.Msg) bool { m2, ok := m.(subscribedMsg); return ok && !m2.on })
	if !f.saw("subscribe good mem://notes/today true") || !f.saw("subscribe good mem://notes/today false") {
		t.Errorf("asked %v", f.asked)
	}
	h.press("esc", "l")
	h.mustContain("resource updated: mem://notes/today")
}

// TestPromptsScreen: p lists a server's prompts with their arguments; a
// prompt without arguments is got at once; one with arguments is filled
// in a form, the required one marked, and its messages are shown.
func TestPromptsScreen(t *testing.T) {
	h, f, _ := mcpHarness(t, 100, 30)
	h.press("p")
	h.mustContain("Prompts of good · 2 prompts", "simple", "greet", "(name*, tone)", "Greet someone")
	golden(t, "prompts_100x30", h.view())
	h.press("enter")
	h.waitFor("the prompt", func(m tea.Msg) bool { _, ok := m.(promptGotMsg); return ok })
	h.mustContain("Prompt simple")
	h.press("esc", "j", "enter")
	h.mustContain("Arguments of greet", "name*", "tone")
	h.typeText("Ada")
	h.press("ctrl+s")
	h.waitFor("the prompt with arguments", func(m tea.Msg) bool { m2, ok := m.(promptGotMsg); return ok && m2.name == "greet" })
	h.mustContain(`arguments {"name":"Ada"}`, "Hello, Ada", `"role": "user"`)
	if !f.saw(`prompt good greet {"name":"Ada"}`) {
		t.Errorf("asked %v", f.asked)
	}
	golden(t, "prompt_messages_100x30", h.view())
}

// TestLogScreen: l shows the server's log messages and stderr lines as the
// feed brings them, following the end; v asks the server for the next
// level.
func TestLogScreen(t *testing.T) {
	h, f, feed := mcpHarness(t, 100, 30)
	feed.Log(LogLine{Server: "good", Time: fixedTime, Source: "stderr", Text: "good: listening on stdio"})
	feed.Log(LogLine{Server: "good", Time: fixedTime, Source: "log", Level: "error", Logger: "db", Text: "connection refused"})
	feed.Log(LogLine{Server: "other", Time: fixedTime, Source: "stderr", Text: "not this server's"})
	waitFeed(h)
	h.press("l")
	h.mustContain("Log of good · 2 lines · level: the server's own", "stderr    good: listening on stdio", "error     db: connection refused")
	h.mustNotContain("not this server's")
	golden(t, "log_100x30", h.view())
	h.press("v")
	h.waitFor("the level", func(m tea.Msg) bool { _, ok := m.(logLevelMsg); return ok })
	h.mustContain("level: debug and up", "server good logs from debug up")
	h.press("v")
	h.waitFor("the next level", func(m tea.Msg) bool { m2, ok := m.(logLevelMsg); return ok && m2.level == 1 })
	if strings.Join(f.levels, ",") != "good debug,good info" {
		t.Errorf("levels asked %v", f.levels)
	}
	for i := range 40 {
		feed.Log(LogLine{Server: "good", Time: fixedTime, Source: "stderr", Text: fmt.Sprintf("line %d", i)})
	}
	waitFeed(h)
	h.mustContain("line 39") // followed
	h.press("k")
	h.mustContain("below: G follows the end")
}

// TestTrafficScreen: t lists the messages exchanged with the server, each
// response named by its request's method; / filters them by method, enter
// opens one in the viewer and c copies it.
func TestTrafficScreen(t *testing.T) {
	h, _, feed := mcpHarness(t, 100, 30)
	msgs := []Message{
		{Sent: true, Kind: "request", Method: "initialize", ID: "1", Raw: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)},
		{Kind: "response", Method: "initialize", ID: "1", Raw: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"good"}}}`)},
		{Sent: true, Kind: "request", Method: "tools/call", ID: "2", Raw: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}`)},
		{Kind: "notification", Method: "notifications/message", Raw: json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)},
		{Kind: "error", Method: "tools/call", ID: "2", Raw: json.RawMessage(`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope"}}`)},
	}
	for _, m := range msgs {
		m.Server, m.Time = "good", fixedTime
		feed.Traffic(m)
	}
	waitFeed(h)
	h.press("t")
	h.mustContain("Traffic of good · 5 messages", "→ request      initialize", "← response     initialize", "← error        tools/call")
	golden(t, "traffic_100x30", h.view())
	h.press("/")
	h.typeText("tools")
	h.press("enter")
	h.mustContain(`Traffic of good · 2 messages · method holds "tools"`)
	h.mustNotContain("initialize")
	h.press("enter")
	h.mustContain("Message tools/call", "error tools/call · ← from good", `"code": -32601`)
	h.press("esc", "k", "c")
	copied := h.waitFor("the copy", func(m tea.Msg) bool { _, ok := m.(viewer.CopyMsg); return ok }).(viewer.CopyMsg)
	if copied.Text != string(msgs[2].Raw) {
		t.Errorf("copied %q", copied.Text)
	}
}

// TestRootsScreen: f shows the roots given to the servers; a adds a
// directory as a file:// URI with a name, d removes it.
func TestRootsScreen(t *testing.T) {
	h, f, _ := mcpHarness(t, 100, 30)
	h.press("f")
	h.mustContain("Roots · 0 roots", "a adds one")
	h.press("a")
	h.typeText("/srv/project work")
	h.press("enter")
	h.waitFor("the roots", func(m tea.Msg) bool { _, ok := m.(rootsSetMsg); return ok })
	h.mustContain("added file:///srv/project: the servers are told", "file:///srv/project work")
	golden(t, "roots_100x30", h.view())
	if r := f.Roots(); len(r) != 1 || r[0] != (Root{URI: "file:///srv/project", Name: "work"}) {
		t.Fatalf("roots %v", r)
	}
	h.press("d")
	h.waitFor("the removal", func(m tea.Msg) bool { m2, ok := m.(rootsSetMsg); return ok && strings.HasPrefix(m2.what, "removed") })
	if len(f.Roots()) != 0 {
		t.Errorf("roots %v", f.Roots())
	}
}

// TestSamplingDialog: a server's sampling request comes up as a dialog with
// its conversation; the reply written there goes back with the model it
// names, and esc declines.
func TestSamplingDialog(t *testing.T) {
	asker := NewAsker()
	h := newHarnessWith(t, tooling.NewRegistry(), Options{Asker: asker}, 100, 30)
	t.Cleanup(asker.Close)
	type reply struct {
		text, model string
		ok          bool
		err         error
	}
	asked := 0
	sample := func() chan reply {
		asked++
		ch := make(chan reply, 1)
		go func() {
			text, model, ok, err := asker.Sample(context.Background(), Sampling{Server: "everything", SystemPrompt: "You are a helpful test server.",
				Messages: []SamplingMessage{{Role: "user", Text: "Resource context: what is 2+2?"}}, MaxTokens: 100})
			ch <- reply{text, model, ok, err}
		}()
		seen := 0
		h.waitFor("the request", func(m tea.Msg) bool {
			if _, ok := m.(askMsg); ok {
				seen++
			}
			return seen == asked
		})
		return ch
	}
	got := sample()
	h.mustContain("Sampling requested", "the MCP server everything asks for a model's reply", "system: You are a helpful test server.",
		"user: Resource context: what is 2+2?", "(at most 100 tokens)", "reply", "the MCP server everything asks for a model's reply: ctrl+s sends")
	golden(t, "sampling_100x30", h.view())
	h.typeText("four")
	h.press("ctrl+s")
	if r := <-got; r.err != nil || !r.ok || r.text != "four" || r.model != "a person at toolexplorer" {
		t.Fatalf("sent: %+v", r)
	}
	got = sample()
	h.press("esc")
	if r := <-got; r.err != nil || r.ok {
		t.Fatalf("declined: %+v", r)
	}
}

// TestMCPPalette: the palette lists the screens of each connected server.
func TestMCPPalette(t *testing.T) {
	h, _, _ := mcpHarness(t, 100, 30)
	h.press(":")
	h.typeText("traffic of good")
	h.press("enter")
	h.mustContain("Traffic of good · 0 messages")
}

func TestExpandTemplate(t *testing.T) {
	for _, c := range []struct {
		tmpl   string
		values map[string]string
		want   string
	}{
		{"demo://resource/dynamic/text/{index}", map[string]string{"index": "3"}, "demo://resource/dynamic/text/3"},
		{"mem://notes/{day}{?lang,fmt}", map[string]string{"day": "a b", "lang": "en", "fmt": ""}, "mem://notes/a%20b?lang=en"},
		{"file://{+path}", map[string]string{"path": "/a/b"}, "file:///a/b"},
		{"x://{/a,b}", map[string]string{"a": "1", "b": "2"}, "x:///1/2"},
	} {
		if got := expandTemplate(c.tmpl, c.values); got != c.want {
			t.Errorf("%s with %v: %q, want %q", c.tmpl, c.values, got, c.want)
		}
	}
	if got := templateVars("mem://notes/{day}{?lang,fmt*}{+day}"); strings.Join(got, ",") != "day,lang,fmt" {
		t.Errorf("vars %v", got)
	}
}
