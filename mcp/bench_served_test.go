package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/internal/gctune"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// servedEnv, when set in a process of this test binary, makes it one of
// BenchmarkServedPeers's servers: "SERVER TRANSPORT" (toolexplorer,
// toolexplorer-sdkio, go-sdk, mcp-go, go-sdk-typed or mcp-go-typed; stdio
// or http). Over http it prints its URL as its first line and serves until
// its standard input ends.
const servedEnv = "TOOLEXPLORER_BENCH_SERVED"

// servedProfileEnv, with servedEnv, is a path prefix: the server writes
// its CPU profile to PREFIX.cpu and its allocations to PREFIX.allocs when
// it ends.
const servedProfileEnv = "TOOLEXPLORER_BENCH_SERVED_PROFILE"

// servedPeer serves as servedEnv says, and reports whether it did (the
// process then exits).
func servedPeer() bool {
	spec := os.Getenv(servedEnv)
	if spec == "" {
		return false
	}
	server, transport, _ := strings.Cut(spec, " ")
	if prefix := os.Getenv(servedProfileEnv); prefix != "" {
		f, err := os.Create(prefix + ".cpu")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		runtime.MemProfileRate = 4096
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
			if m, err := os.Create(prefix + ".allocs"); err == nil {
				pprof.Lookup("allocs").WriteTo(m, 0)
				m.Close()
			}
		}()
	}
	if err := serveServed(server, transport); err != nil {
		fmt.Fprintf(os.Stderr, "%s over %s: %v\n", server, transport, err)
		os.Exit(1)
	}
	return true
}

// servedInput is the input schema of the echo each server serves.
var servedInput = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`)

// servedOutput is what the echo answers, as text and as structured
// content alike on every server.
func servedOutput(text string) []byte {
	out, _ := json.Marshal(map[string]string{"text": text})
	return out
}

// servedOurServer is this package's server of the echo: the registry's
// governed call of a Go tool, as `toolexplorer serve` makes it: input
// validation, the origin, the principal, the deadline, the tool's slot,
// the audit hook, observers.
func servedOurServer() *mcp.Server {
	reg := tooling.NewRegistry()
	reg.Register(tooling.Tool{Name: "b.echo", Description: "echoes", Input: servedInput,
		Meta: tooling.Meta{Concurrency: tooling.ReadOnly},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			var args struct{ Text string }
			if err := c.Decode(&args); err != nil {
				return nil, err
			}
			return json.RawMessage(servedOutput(args.Text)), nil
		}})
	return mcp.NewServer(reg, mcp.Options{})
}

// servedSDKServer is the SDK's server of the echo with a raw handler: no
// validation.
func servedSDKServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "go-sdk", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "b.echo", Description: "echoes", InputSchema: servedInput},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var args struct{ Text string }
			if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
				return nil, err
			}
			out := servedOutput(args.Text)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
		})
	return srv
}

// servedEchoIn and servedEchoOut are the echo's input and output as the
// typed peers declare them: the SDKs infer the schemas from them (for
// servedEchoIn, servedInput's).
type servedEchoIn struct {
	Text string `json:"text"`
}

type servedEchoOut struct {
	Text string `json:"text"`
}

// servedSDKTypedServer is the go-sdk's server of the echo as its README
// declares a tool: the generic mcp.AddTool with input and output structs,
// whose schemas the SDK infers, and against which it validates the input
// and the output of every call; it answers the output as structured
// content and, as text, its JSON.
func servedSDKTypedServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "go-sdk-typed", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "b.echo", Description: "echoes"},
		func(_ context.Context, _ *sdk.CallToolRequest, in servedEchoIn) (*sdk.CallToolResult, servedEchoOut, error) {
			return nil, servedEchoOut(in), nil
		})
	return srv
}

// servedMCPGoTypedServer is mcp-go's server of the echo as its
// documentation declares a tool: mcp.NewTool with mcp.WithString("text",
// mcp.Required()) and an output struct (mcp.WithOutputSchema), served by
// mcp.NewStructuredToolHandler (the arguments bound to a struct, the
// result answered as structured content and, as text, its JSON), on a
// server that validates the input and the output against those schemas
// (WithInputSchemaValidation, WithOutputSchemaValidation) and closes the
// input schema to other properties (WithStrictInputSchemaDefault), so that
// it is servedInput.
func servedMCPGoTypedServer() *mcpgoserver.MCPServer {
	srv := mcpgoserver.NewMCPServer("mcp-go-typed", "1", mcpgoserver.WithToolCapabilities(false),
		mcpgoserver.WithInputSchemaValidation(), mcpgoserver.WithOutputSchemaValidation(), mcpgoserver.WithStrictInputSchemaDefault())
	srv.AddTool(mcpgo.NewTool("b.echo", mcpgo.WithDescription("echoes"),
		mcpgo.WithString("text", mcpgo.Required()),
		mcpgo.WithOutputSchema[servedEchoOut]()),
		mcpgo.NewStructuredToolHandler(func(_ context.Context, _ mcpgo.CallToolRequest, in servedEchoIn) (servedEchoOut, error) {
			return servedEchoOut(in), nil
		}))
	return srv
}

func serveServed(server, transport string) error {
	ctx := context.Background()
	var h http.Handler
	var stdio func() error
	switch server {
	case "toolexplorer", "toolexplorer-sdkio":
		gctune.ForServing(os.Getenv) // as toolexplorer serve does
		srv := servedOurServer()
		h = srv.Handler(mcp.HTTPOptions{})
		// serve's transport; toolexplorer-sdkio serves over the SDK's own,
		// as the go-sdk server does, to tell this package's share from the
		// transport's.
		stdio = func() error { return srv.Run(ctx, mcp.IOTransport(os.Stdin, os.Stdout)) }
		if server == "toolexplorer-sdkio" {
			stdio = func() error { return srv.Run(ctx, &sdk.StdioTransport{}) }
		}
	case "go-sdk":
		srv := servedSDKServer()
		h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
		stdio = func() error { return srv.Run(ctx, &sdk.StdioTransport{}) }
	case "go-sdk-typed":
		srv := servedSDKTypedServer()
		h = sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
		stdio = func() error { return srv.Run(ctx, &sdk.StdioTransport{}) }
	case "mcp-go", "mcp-go-typed":
		var srv *mcpgoserver.MCPServer
		if server == "mcp-go-typed" {
			srv = servedMCPGoTypedServer()
		} else {
			// mcp-go's server, by default (no validation).
			srv = mcpgoserver.NewMCPServer("mcp-go", "1", mcpgoserver.WithToolCapabilities(false))
			srv.AddTool(mcpgo.NewToolWithRawSchema("b.echo", "echoes", servedInput),
				func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					out := servedOutput(req.GetString("text", ""))
					return &mcpgo.CallToolResult{Content: []mcpgo.Content{mcpgo.NewTextContent(string(out))}, StructuredContent: json.RawMessage(out)}, nil
				})
		}
		h = mcpgoserver.NewStreamableHTTPServer(srv, mcpgoserver.WithEndpointPath("/"))
		stdio = func() error { return mcpgoserver.NewStdioServer(srv).Listen(ctx, os.Stdin, os.Stdout) }
	default:
		return fmt.Errorf("no server %q", server)
	}
	if transport == "stdio" {
		return stdio()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	fmt.Printf("http://%s/\n", ln.Addr())
	io.Copy(io.Discard, os.Stdin)
	return hs.Close()
}

// servedServer is one server of BenchmarkServedPeers, in a process of its
// own.
type servedServer struct {
	name string
	cmd  *exec.Cmd
	cs   *sdk.ClientSession
	lat  []time.Duration
	cpu0 time.Duration // the process's processor time when the timed calls began
}

// servedOtherEnv, set for BenchmarkServedPeers, names another build of
// this test binary whose toolexplorer server joins the round, as
// LABEL=PATH (say, a build of an earlier commit): it reports
// x-go-sdk-LABEL, its p50 over the go-sdk's.
const servedOtherEnv = "TOOLEXPLORER_BENCH_OTHER"

// startServed starts the server name over transport in a process of this
// test binary (of exe, when not empty: a build of this test binary, whose
// toolexplorer server it starts) and connects a go-sdk client session to
// it.
func startServed(b *testing.B, name, transport, profile string, exe ...string) *servedServer {
	bin, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	server := name
	if len(exe) > 0 {
		bin, server = exe[0], "toolexplorer"
	}
	s := &servedServer{name: name, cmd: exec.Command(bin)}
	s.cmd.Env = append(os.Environ(), servedEnv+"="+server+" "+transport, "GOMAXPROCS="+strconv.Itoa(runtime.GOMAXPROCS(0)))
	if profile != "" {
		s.cmd.Env = append(s.cmd.Env, servedProfileEnv+"="+profile+"-"+name+"-"+transport)
	}
	s.cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	ctx := context.Background()
	if transport == "stdio" {
		s.cs, err = client.Connect(ctx, &sdk.CommandTransport{Command: s.cmd}, nil)
		if err != nil {
			b.Fatalf("%s over stdio: %v", name, err)
		}
		b.Cleanup(func() { s.cs.Close() }) // closes its stdin and waits for it
		return s
	}
	in, err := s.cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close() // it ends
		s.cmd.Wait()
	})
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("%s over http: %v", name, err)
	}
	s.cs, err = client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: strings.TrimSpace(url), MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		b.Fatalf("%s over http: %v", name, err)
	}
	b.Cleanup(func() { s.cs.Close() })
	return s
}

// call calls the echo once and checks its answer.
func (s *servedServer) call(ctx context.Context) error {
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "b.echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("echo failed: %+v", res)
	}
	if t, ok := res.Content[0].(*sdk.TextContent); !ok || t.Text != `{"text":"hello"}` {
		return fmt.Errorf("echo answered %+v", res.Content[0])
	}
	return nil
}

// validates reports whether server name refuses arguments its input
// schema does not allow.
func validates(name string) bool {
	switch name {
	case "go-sdk", "mcp-go":
		return false
	}
	return true
}

// check calls the echo once and checks all of its answer: the text, the
// structured content, and, for a server that validates its input, that
// arguments of the wrong type are refused (a tool error or an error
// response).
func (s *servedServer) check(ctx context.Context) error {
	res, err := s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "b.echo", Arguments: json.RawMessage(`{"text":"hello"}`)})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Errorf("echo failed: %+v", res)
	}
	if t, ok := res.Content[0].(*sdk.TextContent); !ok || t.Text != `{"text":"hello"}` {
		return fmt.Errorf("echo answered %+v", res.Content[0])
	}
	if m, ok := res.StructuredContent.(map[string]any); !ok || len(m) != 1 || m["text"] != "hello" {
		return fmt.Errorf("echo answered structured content %#v", res.StructuredContent)
	}
	if !validates(s.name) {
		return nil
	}
	res, err = s.cs.CallTool(ctx, &sdk.CallToolParams{Name: "b.echo", Arguments: json.RawMessage(`{"text":1}`)})
	if err == nil && !res.IsError {
		return fmt.Errorf("echo of a number answered %+v, not a refusal", res)
	}
	return nil
}

// BenchmarkServedPeers measures, side by side in one run, a tools/call of
// the same echo served by this package's server (the registry's governed
// call: input validated, principal, deadline, slot, audit hook) and by the
// peers a Go developer would write instead: the go-sdk's server and
// mcp-go's, each with a raw handler that validates nothing (go-sdk,
// mcp-go) and each as its documentation declares a tool, with schemas it
// validates every call against (go-sdk-typed: the generic mcp.AddTool;
// mcp-go-typed: mcp.NewTool and mcp.NewStructuredToolHandler). Each server
// runs in a process of its own (this test binary), over stdio and over
// streamable HTTP on loopback. One go-sdk client session per server; every
// round calls them in a random order, conc calls at a time. It reports
// each server's p50 (µs), toolexplorer's p50 over each peer's (x-PEER),
// over the faster raw peer's (x-fastest) and over the faster typed peer's
// (x-fastest-typed), and each server process's own processor time per
// call (cpu-µs), which the client's share does not blur. Over stdio one
// more server, toolexplorer-sdkio, is this package's on the SDK's own
// stdio transport, as the go-sdk server is: its p50 over the go-sdk's
// (x-go-sdk-sdkio) is what this package's part of a call costs, the
// transport aside. With TOOLEXPLORER_BENCH_PROFILE=PREFIX each server
// writes PREFIX-SERVER-TRANSPORT.cpu and .allocs profiles.
func BenchmarkServedPeers(b *testing.B) {
	profile := os.Getenv("TOOLEXPLORER_BENCH_PROFILE")
	ctx := context.Background()
	peers := []string{"go-sdk", "mcp-go", "go-sdk-typed", "mcp-go-typed"}
	for _, transport := range []string{"stdio", "http"} {
		b.Run("transport="+transport, func(b *testing.B) {
			servers := []*servedServer{startServed(b, "toolexplorer", transport, profile)}
			byName := map[string]*servedServer{}
			for _, name := range peers {
				s := startServed(b, name, transport, profile)
				servers = append(servers, s)
				byName[name] = s
			}
			if transport == "stdio" {
				servers = append(servers, startServed(b, "toolexplorer-sdkio", transport, profile))
			}
			if label, path, ok := strings.Cut(os.Getenv(servedOtherEnv), "="); ok {
				servers = append(servers, startServed(b, label, transport, profile, path))
			}
			for _, s := range servers {
				if err := s.check(ctx); err != nil {
					b.Fatalf("%s: %v", s.name, err)
				}
				for range 200 { // warm up, and check the echo
					if err := s.call(ctx); err != nil {
						b.Fatalf("%s: %v", s.name, err)
					}
				}
			}
			for _, conc := range []int{1, 8} {
				b.Run("conc="+strconv.Itoa(conc), func(b *testing.B) {
					for _, s := range servers {
						s.lat = s.lat[:0]
						s.cpu0 = childCPU(s.cmd.Process.Pid)
					}
					order := slices.Clone(servers)
					for b.Loop() {
						rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
						for _, s := range order {
							var wg sync.WaitGroup
							lat := make([]time.Duration, conc)
							errs := make([]error, conc)
							for i := range conc {
								wg.Go(func() {
									start := time.Now()
									errs[i] = s.call(ctx)
									lat[i] = time.Since(start)
								})
							}
							wg.Wait()
							for _, err := range errs {
								if err != nil {
									b.Fatalf("%s: %v", s.name, err)
								}
							}
							s.lat = append(s.lat, lat...)
						}
					}
					for _, s := range servers {
						b.ReportMetric(float64(p50(s.lat).Nanoseconds())/1000, "µs-p50-"+s.name)
						if cpu := childCPU(s.cmd.Process.Pid) - s.cpu0; len(s.lat) > 0 {
							b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(len(s.lat)), "cpu-µs-"+s.name)
						}
					}
					ours := float64(p50(servers[0].lat))
					over := func(names ...string) float64 {
						fastest := time.Duration(0)
						for _, name := range names {
							if m := p50(byName[name].lat); fastest == 0 || m < fastest {
								fastest = m
							}
						}
						return ours / float64(fastest)
					}
					for _, name := range peers {
						b.ReportMetric(over(name), "x-"+name)
					}
					b.ReportMetric(over("go-sdk", "mcp-go"), "x-fastest")
					b.ReportMetric(over("go-sdk-typed", "mcp-go-typed"), "x-fastest-typed")
					sdkP50 := float64(p50(byName["go-sdk"].lat))
					for _, s := range servers[1+len(peers):] {
						if s.name == "toolexplorer-sdkio" { // this package's share alone: both on the SDK's transport
							b.ReportMetric(float64(p50(s.lat))/sdkP50, "x-go-sdk-sdkio")
							continue
						}
						b.ReportMetric(float64(p50(s.lat))/sdkP50, "x-go-sdk-"+s.name)
					}
				})
			}
		})
	}
}

// p50 is the median of d.
func p50(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// childCPU is the processor time (user and system) process pid has used
// so far, from /proc/PID/stat; 0 when unknown.
func childCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	_, rest, ok := strings.Cut(string(b), ") ") // the command may hold spaces
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * (time.Second / 100) // USER_HZ is 100 on Linux
}

// BenchmarkServedLayer is one tools/call of BenchmarkServedPeers's echo in
// process, over the SDK's in-memory transport: this package's server (the
// governed call), the go-sdk's with a raw handler and the go-sdk's with
// its typed mcp.AddTool (go-sdk-typed), on the same SDK session code, so
// that what differs is each one's part of a call.
func BenchmarkServedLayer(b *testing.B) {
	for _, server := range []string{"toolexplorer", "go-sdk", "go-sdk-typed"} {
		b.Run("server="+server, func(b *testing.B) {
			connect := func(t sdk.Transport) (*sdk.ServerSession, error) {
				return servedSDKServer().Connect(context.Background(), t, nil)
			}
			switch server {
			case "toolexplorer":
				srv := servedOurServer()
				connect = func(t sdk.Transport) (*sdk.ServerSession, error) { return srv.Connect(context.Background(), t) }
			case "go-sdk-typed":
				connect = func(t sdk.Transport) (*sdk.ServerSession, error) {
					return servedSDKTypedServer().Connect(context.Background(), t, nil)
				}
			}
			benchCall(b, benchClient(b, connect), "b.echo", `{"text":"hello"}`)
		})
	}
}
