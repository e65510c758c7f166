package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// everythingSpec is the --server command of the reference MCP server,
// server-everything, installed in the checkout by scripts/install-peers.sh;
// quoted as a shell would need it.
func everythingSpec(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		needPeer(t, "server-everything needs node: %v", err)
	}
	index, err := filepath.Abs(filepath.Join("..", "..", ".cache", "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(index); err != nil {
		needPeer(t, "server-everything is not installed (run scripts/install-peers.sh): %v", err)
	}
	return "'" + node + "' '" + index + "' stdio"
}

// TestGateway: serve fronts server-everything as one governed MCP server:
// its tools are listed under its name, called through the registry, and
// refused by the config's rate limit, blacklist and consent, and by the
// local validation of their arguments, before anything reaches it.
func TestGateway(t *testing.T) {
	spec := everythingSpec(t)
	cfg := writeFile(t, "c.json", `{
  "tools": {"everything.echo": {"rate_per_minute": 1, "burst": 1}},
  "blacklist": ["everything.get_env"]
}`)
	cs := serveStdio(t, nil, "--config", cfg, "--server", "everything="+spec)
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	for _, want := range []string{"everything.echo", "everything.get_sum"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s: %v", want, names)
		}
	}
	if slices.Contains(names, "demo.echo") {
		t.Errorf("a gateway serves the program's own demo.echo: %v", names)
	}
	if slices.Contains(names, "everything.get_env") {
		t.Errorf("the blacklisted everything.get_env is listed")
	}
	if res, r := callTool(t, cs, "everything.get_sum", `{"a":2,"b":40}`); res.IsError || !strings.Contains(string(r.Output), "42") {
		t.Errorf("everything.get_sum: %s %s %s", r.Code, r.Message, r.Output)
	}
	if res, r := callTool(t, cs, "everything.echo", `{"message":"hi"}`); res.IsError || !strings.Contains(string(r.Output), "Echo: hi") {
		t.Errorf("everything.echo: %s %s %s", r.Code, r.Message, r.Output)
	}
	for _, c := range []struct{ tool, args, code string }{
		{"everything.echo", `{"message":"again"}`, "rate_limited"},
		{"everything.get_sum", `{"a":"two","b":40}`, "validation_error"},
		{"everything.get_env", `{}`, "disabled"},
		// Not read-only: a write, which needs consent; the client cannot be asked.
		{"everything.toggle_simulated_logging", `{}`, "consent_required"},
	} {
		if res, r := callTool(t, cs, c.tool, c.args); !res.IsError || string(r.Code) != c.code {
			t.Errorf("%s %s: %s %s, want %s", c.tool, c.args, r.Code, r.Message, c.code)
		}
	}

	// A client that can answer is asked, and its yes lets the call through.
	var mu sync.Mutex
	var asked []string
	ask := serveStdio(t, &sdk.ClientOptions{ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, req.Params.Message)
		mu.Unlock()
		return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"allow": true}}, nil
	}}, "--server", "everything="+spec)
	if res, r := callTool(t, ask, "everything.toggle_simulated_logging", `{}`); res.IsError {
		t.Errorf("asked and allowed: %s %s", r.Code, r.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.HasPrefix(asked[0], "everything.toggle_simulated_logging wants to write") {
		t.Errorf("asked %q", asked)
	}
}

// TestE2EInspectorGateway: the MCP Inspector's CLI starts `toolexplorer
// serve` fronting server-everything (named in a Claude Desktop style
// config file) and calls its tools through it.
func TestE2EInspectorGateway(t *testing.T) {
	bin := buildBinary(t)
	in := newInspector(t)
	words, err := shellWords(everythingSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	command, _ := json.Marshal(words[0])
	args, _ := json.Marshal(words[1:])
	cfg := writeFile(t, "claude_desktop_config.json", `{"globalShortcut": "", "mcpServers": {"everything": {"command": `+string(command)+`, "args": `+string(args)+`}}}`)
	call := func(tool string, args ...string) (int, map[string]any) {
		a := []string{"-e", configEnv + "=" + cfg, bin, "serve", "--method", "tools/call", "--tool-name", tool}
		for _, kv := range args {
			a = append(a, "--tool-arg", kv)
		}
		return in.run(t, a...)
	}
	if code, res := call("everything.echo", "message=through the gateway"); code != 0 || res["isError"] == true || !strings.Contains(contentText(res), "Echo: through the gateway") {
		t.Errorf("everything.echo through the gateway: exit %d: %v", code, res)
	}
	if code, res := call("everything.toggle_simulated_logging"); code == 0 || resultCode(res) != "consent_required" {
		t.Errorf("everything.toggle_simulated_logging through the gateway: exit %d: %v, want consent_required", code, res)
	}
}

// TestRunDeclinesElicitation: on the command line nobody can answer a
// server's request for input during a call: it is declined, and stderr
// says so.
func TestRunDeclinesElicitation(t *testing.T) {
	spec := everythingSpec(t)
	o := cli(t, "", "run", "--server", "everything="+spec, "everything.trigger_elicitation_request", "--consent", "--args", "{}")
	if o.code != exitOK || !strings.Contains(o.stdout, "User declined") || !strings.Contains(o.stderr, `server "everything" asked for input during the call (Please provide inputs`) {
		t.Errorf("run of a tool that asks for input:\n%s", o)
	}
}

// TestGatewayPromptsAndResourcesOfEverything: the gateway serves
// server-everything's prompts, as everything.NAME, and its resources, and
// gets and reads them from it.
func TestGatewayPromptsAndResourcesOfEverything(t *testing.T) {
	spec := everythingSpec(t)
	cs := serveStdio(t, nil, "--server", "everything="+spec)
	ctx := context.Background()
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var simple string
	for _, p := range prompts.Prompts {
		if !strings.HasPrefix(p.Name, "everything.") {
			t.Errorf("prompt %q is not named everything.*", p.Name)
		}
		if len(p.Arguments) == 0 && simple == "" {
			simple = p.Name
		}
	}
	if simple == "" {
		t.Fatalf("no prompt without arguments among %d", len(prompts.Prompts))
	}
	if got, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: simple}); err != nil || len(got.Messages) == 0 {
		t.Errorf("prompts/get %s: %v", simple, err)
	}
	resources, err := cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list: %d, %v", len(resources.Resources), err)
	}
	uri := resources.Resources[0].URI
	if got, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri}); err != nil || len(got.Contents) == 0 {
		t.Errorf("resources/read %s: %v", uri, err)
	}
}

// TestGatewaySubscriptionsOfEverything: a client of the gateway subscribes
// to a resource of server-everything; once the server is told to send
// updates, its notifications/resources/updated reach the client through
// the gateway.
func TestGatewaySubscriptionsOfEverything(t *testing.T) {
	spec := everythingSpec(t)
	updated := make(chan string, 16)
	cs := serveStdio(t, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		select {
		case updated <- req.Params.URI:
		default:
		}
	}}, "--server", "everything="+spec, "--consent", "everything.toggle_subscriber_updates")
	ctx := context.Background()
	resources, err := cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list: %v", err)
	}
	uri := resources.Resources[0].URI
	subscribed := make(chan error, 1)
	go func() { subscribed <- cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}) }()
	if res, r := callTool(t, cs, "everything.toggle_subscriber_updates", `{}`); res.IsError {
		t.Fatalf("everything.toggle_subscriber_updates: %s %s", r.Code, r.Message)
	}
	// The server sends an update at once when told to, then every 5 s: the
	// first may pass before the subscription is in, the next does not.
	select {
	case got := <-updated:
		if got != uri {
			t.Errorf("updated %q, want %q", got, uri)
		}
	case <-time.After(time.Minute): // a hang guard: the server sends one every 5 s
		t.Fatalf("no notifications/resources/updated of %s within a minute", uri)
	}
	if err := cs.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := <-subscribed; err != nil {
		t.Errorf("subscribe: %v", err)
	}
}
