package mcp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// extrasServer serves prompts, resources and a resource template.
func extrasServer(t *testing.T) (*sdk.Server, string) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
	srv.AddPrompt(&sdk.Prompt{Name: "greet", Description: "Greets someone.", Arguments: []*sdk.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "Hello, " + req.Params.Arguments["who"]}}}}, nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "secret-plan"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "the plan"}}}}, nil
	})
	text := func(s string) sdk.ResourceHandler {
		return func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: s + " " + req.Params.URI}}}, nil
		}
	}
	srv.AddResource(&sdk.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/plain"}, text("the readme"))
	srv.AddResource(&sdk.Resource{URI: "docs://private", Name: "private", MIMEType: "text/plain"}, text("private"))
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "docs://pages/{page}", Name: "page"}, text("page"))
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	return srv, ts.URL
}

// TestGatewayPromptsAndResources: a gateway serves its upstream's prompts
// as SERVER.prompt and its resources and resource templates under their
// URIs, forwards prompts/get and resources/read, leaves out
// what ExposeName refuses (not listed, not got, not read), and follows the
// upstream's list as it changes.
func TestGatewayPromptsAndResources(t *testing.T) {
	up, url := extrasServer(t)
	reg := tooling.NewRegistry()
	var gw *mcp.Server
	changed := make(chan struct{}, 8)
	r, err := mcp.Connect(context.Background(), reg, "docs", mcp.Spec{URL: url}, mcp.WithToolsChanged(func() {
		gw.Refresh(context.Background())
		changed <- struct{}{}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gw = mcp.NewServer(reg, mcp.Options{Upstreams: func() []*mcp.Remote { return []*mcp.Remote{r} },
		ExposeName: func(name string) bool { return name != "docs.secret_plan" && name != "docs.private" }})
	defer gw.Detach()
	cs := connect(t, gw, nil)
	ctx := context.Background()

	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"docs.greet"}) {
		t.Errorf("prompts %v, want docs.greet alone", names)
	}
	got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.greet", Arguments: map[string]string{"who": "Ada"}})
	if err != nil || len(got.Messages) != 1 || got.Messages[0].Content.(*sdk.TextContent).Text != "Hello, Ada" {
		t.Fatalf("prompts/get docs.greet: %+v %v", got, err)
	}
	// The control: the upstream has the prompt the gateway refuses.
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.secret_plan"}); err == nil {
		t.Error("prompts/get of a prompt not served succeeded")
	}

	resources, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, res := range resources.Resources {
		uris = append(uris, res.URI)
	}
	if !slices.Equal(uris, []string{"docs://readme"}) {
		t.Errorf("resources %v, want docs://readme alone", uris)
	}
	read, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "the readme docs://readme" {
		t.Fatalf("resources/read docs://readme: %+v %v", read, err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://private"}); err == nil {
		t.Error("resources/read of a resource not served succeeded")
	}
	templates, err := cs.ListResourceTemplates(ctx, nil)
	if err != nil || len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "docs://pages/{page}" {
		t.Fatalf("resources/templates/list: %+v %v", templates, err)
	}
	read, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://pages/intro"})
	if err != nil || len(read.Contents) != 1 || read.Contents[0].Text != "page docs://pages/intro" {
		t.Fatalf("resources/read through the template: %+v %v", read, err)
	}

	// The upstream adds a prompt: the gateway's clients list it.
	up.AddPrompt(&sdk.Prompt{Name: "bye"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "bye"}}}}, nil
	})
	<-changed
	prompts, err = cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, p := range prompts.Prompts {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "docs.bye") {
		t.Errorf("prompts after the upstream added bye: %v", names)
	}
	if got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.bye"}); err != nil || !strings.Contains(got.Messages[0].Content.(*sdk.TextContent).Text, "bye") {
		t.Errorf("prompts/get docs.bye: %v", err)
	}
}

// TestGatewayAuditsPromptsAndResources: each prompts/get and
// resources/read of a gateway, served or refused, gives Options.Audit a
// begin and an end event with the caller's principal, the method and what
// was got or read, and how it went; never the content.
func TestGatewayAuditsPromptsAndResources(t *testing.T) {
	_, url := extrasServer(t)
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "docs", mcp.Spec{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var events []tooling.Event
	gw := mcp.NewServer(reg, mcp.Options{Principal: tooling.Principal{Subject: "ada", Tenant: "acme"},
		Upstreams:  func() []*mcp.Remote { return []*mcp.Remote{r} },
		ExposeName: func(name string) bool { return name != "docs.secret_plan" && name != "docs.private" },
		Audit: func(_ context.Context, ev tooling.Event) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}})
	defer gw.Detach()
	cs := connect(t, gw, nil)
	ctx := context.Background()
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.greet", Arguments: map[string]string{"who": "Ada"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.secret_plan"}); err == nil {
		t.Fatal("a prompt not served was got")
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://private"}); err == nil {
		t.Fatal("a resource not served was read")
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://pages/intro"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for i, ev := range events {
		if ev.Principal.Subject != "ada" || ev.Principal.Tenant != "acme" || ev.Principal.Client != "test 1" {
			t.Errorf("event %d: principal %+v", i, ev.Principal)
		}
		if ev.ArgsSHA256 == "" || ev.CallID == "" {
			t.Errorf("event %d: no digest or call id: %+v", i, ev)
		}
		if !ev.End {
			continue
		}
		if b := events[i-1]; b.End || b.CallID != ev.CallID || b.Tool != ev.Tool {
			t.Errorf("end %d does not follow its begin: %+v then %+v", i, b, ev)
		}
		if (ev.Status == "ok") != (ev.OutputSHA256 != "") {
			t.Errorf("event %d: status %s with output digest %q", i, ev.Status, ev.OutputSHA256)
		}
		got = append(got, fmt.Sprintf("%s %s %s", ev.Tool, ev.Status, ev.Code))
	}
	want := []string{"prompts/get docs.greet ok ", "prompts/get docs.secret_plan denied not_found",
		"resources/read docs://readme ok ", "resources/read docs://private denied not_found",
		"resources/read docs://pages/intro ok "}
	if !slices.Equal(got, want) {
		t.Errorf("audited\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestGatewayRefusesPromptsAndResources: while Options.Refusal refuses (a
// ledger that cannot write, when its on_failure is refuse), a gateway's
// prompts/get and resources/read are refused with its reason, recorded as
// denied unavailable, and the upstream is not asked; once it no longer
// refuses, they are served again.
func TestGatewayRefusesPromptsAndResources(t *testing.T) {
	up, url := extrasServer(t)
	var asked sync.Map // method → count of requests the upstream got
	up.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			n, _ := asked.LoadOrStore(method, new(atomic.Int64))
			n.(*atomic.Int64).Add(1)
			return next(ctx, method, req)
		}
	})
	count := func(method string) int {
		if n, ok := asked.Load(method); ok {
			return int(n.(*atomic.Int64).Load())
		}
		return 0
	}
	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "docs", mcp.Spec{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var mu sync.Mutex
	var events []string
	var refusing atomic.Bool
	refusing.Store(true)
	gw := mcp.NewServer(reg, mcp.Options{
		Upstreams: func() []*mcp.Remote { return []*mcp.Remote{r} },
		Audit: func(_ context.Context, ev tooling.Event) {
			if ev.End {
				mu.Lock()
				events = append(events, fmt.Sprintf("%s %s %s", ev.Tool, ev.Status, ev.Code))
				mu.Unlock()
			}
		},
		Refusal: func() error {
			if refusing.Load() {
				return errors.New("ledger /x cannot record the call: no space left")
			}
			return nil
		}})
	defer gw.Detach()
	cs := connect(t, gw, nil)
	ctx := context.Background()
	_, perr := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.greet", Arguments: map[string]string{"who": "Ada"}})
	_, rerr := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"})
	for _, err := range []error{perr, rerr} {
		if err == nil || !strings.Contains(err.Error(), "unavailable: ledger /x cannot record the call") {
			t.Errorf("while refusing: %v, want the refusal", err)
		}
	}
	if n := count("prompts/get") + count("resources/read"); n != 0 {
		t.Errorf("the upstream was asked %d times while the gateway refused", n)
	}
	refusing.Store(false)
	if _, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "docs.greet", Arguments: map[string]string{"who": "Ada"}}); err != nil {
		t.Errorf("prompts/get once no longer refused: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "docs://readme"}); err != nil {
		t.Errorf("resources/read once no longer refused: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"prompts/get docs.greet denied unavailable", "resources/read docs://readme denied unavailable",
		"prompts/get docs.greet ok ", "resources/read docs://readme ok "}
	if !slices.Equal(events, want) {
		t.Errorf("audited\n%s\nwant\n%s", strings.Join(events, "\n"), strings.Join(want, "\n"))
	}
}
