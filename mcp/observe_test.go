//go:build linux

//lint:file-ignore SA1019 the test server uses sampling, roots and logging, deprecated from protocol 2026-07-28, which servers still use

package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// extrasPeer is a stdio server with a resource, a resource template, a
// prompt, subscriptions, a log, and tools that ask the client for a
// model's reply (sampling) and for its roots.
func extrasPeer() int {
	srv := sdk.NewServer(&sdk.Implementation{Name: "extras", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler:   func(context.Context, *sdk.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	srv.AddResource(&sdk.Resource{URI: "mem://notes/today", Name: "today", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "buy milk"}}}, nil
		})
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "mem://notes/{day}", Name: "note of a day"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "note of " + strings.TrimPrefix(req.Params.URI, "mem://notes/")}}}, nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "greet", Description: "greets someone", Arguments: []*sdk.PromptArgument{{Name: "name", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello, " + req.Params.Arguments["name"]}}}}, nil
		})
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	obj := json.RawMessage(`{"type":"object"}`)
	srv.AddTool(&sdk.Tool{Name: "touch", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "notes", Data: "the note changed"})
			_ = srv.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "mem://notes/today"})
			return text("touched"), req.Session.Ping(ctx, nil) // the notifications are handled before the answer
		})
	srv.AddTool(&sdk.Tool{Name: "ask_model", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			// On protocol 2026-07-28 the question goes back with the
			// result, and the call comes again with the answer.
			answer, ok := req.Params.InputResponses["model"]
			if !ok {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"model": &sdk.CreateMessageParams{MaxTokens: 50, SystemPrompt: "be brief",
					Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "What is 2+2?"}}}}}}, nil
			}
			b, _ := json.Marshal(answer)
			var res struct {
				Model   string `json:"model"`
				Content struct {
					Text string `json:"text"`
				} `json:"content"`
			}
			if err := json.Unmarshal(b, &res); err != nil {
				return nil, err
			}
			return text(fmt.Sprintf("%s said %s", res.Model, res.Content.Text)), nil
		})
	srv.AddTool(&sdk.Tool{Name: "roots", InputSchema: obj, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			answer, ok := req.Params.InputResponses["roots"]
			if !ok {
				return &sdk.CallToolResult{InputRequests: sdk.InputRequestMap{"roots": &sdk.ListRootsParams{}}}, nil
			}
			b, _ := json.Marshal(answer)
			var res sdk.ListRootsResult
			if err := json.Unmarshal(b, &res); err != nil {
				return nil, err
			}
			var uris []string
			for _, r := range res.Roots {
				uris = append(uris, r.URI)
			}
			return text(strings.Join(uris, " ")), nil
		})
	fmt.Fprintln(os.Stderr, "extras: ready")
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		return 1
	}
	return 0
}

// seen collects what an Observer is told.
type seen struct {
	mu      sync.Mutex
	traffic []mcp.Message
	log     []mcp.LogEntry
	updated []string
	changed chan struct{}
}

func newSeen() *seen { return &seen{changed: make(chan struct{}, 1)} }

func (s *seen) observer() mcp.Observer {
	note := func(f func()) {
		s.mu.Lock()
		f()
		s.mu.Unlock()
		select {
		case s.changed <- struct{}{}:
		default:
		}
	}
	return mcp.Observer{
		Traffic: func(m mcp.Message) { note(func() { s.traffic = append(s.traffic, m) }) },
		Log:     func(e mcp.LogEntry) { note(func() { s.log = append(s.log, e) }) },
		Updated: func(_, uri string) { note(func() { s.updated = append(s.updated, uri) }) },
	}
}

// waitFor waits until cond holds, held under s.mu; a deadline far beyond
// any machine's slowness fails the test.
// waitUntil waits at most d for cond, and reports whether it held.
func (s *seen) waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.After(d)
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-s.changed:
		case <-deadline:
			return false
		}
	}
}

func (s *seen) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-s.changed:
		case <-deadline:
			s.mu.Lock()
			said := fmt.Sprintf("log %+v, updates %v, %d messages", s.log, s.updated, len(s.traffic))
			s.mu.Unlock()
			t.Fatalf("never saw %s: %s", what, said)
		}
	}
}

// TestObserverSeesTrafficLogAndUpdates: the observer is told each
// JSON-RPC message exchanged with a stdio server (responses named by the
// method of their request), the server's log messages and stderr lines,
// and the updates of a resource subscribed to.
func TestObserverSeesTrafficLogAndUpdates(t *testing.T) {
	s := newSeen()
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "extras", peer(t, "extras"), mcp.WithObserver(s.observer()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.SetLogLevel(context.Background(), "info"); err != nil {
		t.Fatal(err)
	}
	if err := r.Subscribe(context.Background(), "mem://notes/today", true); err != nil {
		t.Fatal(err)
	}
	// On protocol 2026-07-28 the subscription is a stream the server
	// takes up after Subscribe returns: the note is touched again until
	// an update comes, so that a touch before the server listens is not
	// taken for a lost update.
	for i := 0; ; i++ {
		if res, err := reg.Execute(context.Background(), "extras.touch", nil); err != nil {
			t.Fatal(res.Message)
		}
		if s.waitUntil(2*time.Second, func() bool { return len(s.updated) > 0 }) {
			break
		}
		if i == 30 {
			s.waitFor(t, "the update", func() bool { return len(s.updated) > 0 })
		}
	}
	s.waitFor(t, "the log message and the stderr line", func() bool { return len(s.log) >= 2 })
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.updated[0] != "mem://notes/today" {
		t.Errorf("updated %v", s.updated)
	}
	var stderr, logged bool
	for _, e := range s.log {
		stderr = stderr || e.Source == "stderr" && e.Text == "extras: ready"
		logged = logged || e.Source == "log" && e.Level == "warning" && e.Logger == "notes" && e.Text == "the note changed"
	}
	if !stderr || !logged {
		t.Errorf("log %+v: want the stderr line and the warning", s.log)
	}
	want := map[string]bool{}
	for _, m := range s.traffic {
		want[fmt.Sprintf("%v %s %s", m.Sent, m.Kind, m.Method)] = true
		if !json.Valid(m.Raw) || m.Server != "extras" {
			t.Errorf("message %+v", m)
		}
	}
	// On protocol 2026-07-28, server/discover replaces initialize and
	// subscriptions/listen resources/subscribe.
	for _, k := range []string{"true request server/discover", "false response server/discover",
		"true request tools/list", "false response tools/list", "true request subscriptions/listen", "true request tools/call",
		"false response tools/call", "false notification notifications/message", "false notification notifications/resources/updated"} {
		if !want[k] {
			t.Errorf("no %q among the messages: %v", k, want)
		}
	}
}

// TestResourcesAndPrompts: the server's resources, templates and prompts
// are listed; a resource is read and a prompt got with its argument.
func TestResourcesAndPrompts(t *testing.T) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "extras", peer(t, "extras"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if res := r.Resources(); len(res) != 1 || res[0].URI != "mem://notes/today" || res[0].MIMEType != "text/plain" {
		t.Errorf("resources %+v", res)
	}
	if tm := r.ResourceTemplates(); len(tm) != 1 || tm[0].URITemplate != "mem://notes/{day}" {
		t.Errorf("templates %+v", tm)
	}
	if p := r.Prompts(); len(p) != 1 || p[0].Name != "greet" || len(p[0].Arguments) != 1 || !p[0].Arguments[0].Required {
		t.Errorf("prompts %+v", p)
	}
	got, err := r.ReadResource(context.Background(), "mem://notes/monday")
	if err != nil || !strings.Contains(string(got), `"text":"note of monday"`) {
		t.Errorf("read: %s %v", got, err)
	}
	got, err = r.GetPrompt(context.Background(), "greet", map[string]string{"name": "Ada"})
	if err != nil || !strings.Contains(string(got), `"text":"Hello, Ada"`) {
		t.Errorf("prompt: %s %v", got, err)
	}
	if _, err := r.GetPrompt(context.Background(), "nope", nil); err == nil {
		t.Error("an unknown prompt: no error")
	}
}

// TestSamplingAnsweredByThePerson: a server's sampling request reaches the
// SampleFunc with its conversation; the reply goes back as the model's,
// and a declined request is an error the server sees. Without
// WithSampling, the client offers no sampling.
func TestSamplingAnsweredByThePerson(t *testing.T) {
	var got mcp.Sampling
	accept := true
	f := func(_ context.Context, s mcp.Sampling) (string, string, bool, error) {
		got = s
		return "four", "a person", accept, nil
	}
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "extras", peer(t, "extras"), mcp.WithSampling(f))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "extras.ask_model", nil)
	if !res.OK() || string(res.Output) != `"a person said four"` {
		t.Fatalf("%s: %s %s", res.Code, res.Message, res.Output)
	}
	if got.Server != "extras" || got.SystemPrompt != "be brief" || got.MaxTokens != 50 || len(got.Messages) != 1 ||
		got.Messages[0] != (mcp.SamplingMessage{Role: "user", Text: "What is 2+2?"}) {
		t.Errorf("the request as given: %+v", got)
	}
	accept = false
	res, _ = reg.Execute(context.Background(), "extras.ask_model", nil)
	if res.OK() || !strings.Contains(res.Message, "declined") {
		t.Errorf("declined: %s %s", res.Code, res.Message)
	}

	reg2 := tooling.NewRegistry()
	r2, err := mcp.Connect(context.Background(), reg2, "extras", peer(t, "extras"))
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	res, _ = reg2.Execute(context.Background(), "extras.ask_model", nil)
	if res.OK() {
		t.Errorf("the control: sampling answered without WithSampling: %s", res.Output)
	}
}

// TestRootsAreThePersons: roots/list is answered from Roots, and a change
// of Roots reaches a server connected already.
func TestRootsAreThePersons(t *testing.T) {
	var roots mcp.Roots
	if err := roots.Set([]mcp.Root{{URI: "file:///srv/a", Name: "a"}}); err != nil {
		t.Fatal(err)
	}
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "extras", peer(t, "extras"), mcp.WithRoots(&roots))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "extras.roots", nil)
	if string(res.Output) != `"file:///srv/a"` {
		t.Fatalf("roots %s %s", res.Output, res.Message)
	}
	if err := roots.Set([]mcp.Root{{URI: "file:///srv/b"}, {URI: "file:///srv/c"}}); err != nil {
		t.Fatal(err)
	}
	res, _ = reg.Execute(context.Background(), "extras.roots", nil)
	if string(res.Output) != `"file:///srv/b file:///srv/c"` {
		t.Fatalf("roots after the change %s %s", res.Output, res.Message)
	}
	if err := roots.Set([]mcp.Root{{URI: "/srv/d"}}); err == nil || len(roots.List()) != 2 {
		t.Errorf("a root that is not file://: %v, roots %v", err, roots.List())
	}
}

// TestTaskOnlyToolIsUnavailable: a tool the server lists with
// execution.taskSupport "required" is unavailable, saying it needs task
// augmentation, before any call is sent; its neighbour with "optional"
// runs.
func TestTaskOnlyToolIsUnavailable(t *testing.T) {
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "raw", peer(t, "raw-tasks"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	res, _ := reg.Execute(context.Background(), "raw.research", nil)
	if res.Code != codes.Unavailable || !strings.Contains(res.Message, `runs its tool "research" only as a task`) {
		t.Errorf("research: %s %s", res.Code, res.Message)
	}
	if res, _ := reg.Execute(context.Background(), "raw.quick", nil); !res.OK() {
		t.Errorf("the control, quick: %s %s", res.Code, res.Message)
	}
}
