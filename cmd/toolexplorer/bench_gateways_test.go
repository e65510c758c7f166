package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A gateway of BenchmarkGatewayPeers: a process that fronts
// server-everything (stdio) over streamable HTTP.
type benchGateway struct {
	name string
	cmd  *exec.Cmd
	url  string
	tool string
	cs   *sdk.ClientSession
	// lat are the latencies of the timed calls.
	lat []time.Duration
}

// BenchmarkGatewayPeers measures, side by side in one run, a tools/call of
// server-everything's echo through three gateways that front it over
// stdio and serve it over streamable HTTP on loopback: this program's
// `serve --http --server`, mcp-proxy and supergateway (stateful), pinned in
// scripts/peers/gateways (scripts/install-peers.sh gateways). The same go-sdk
// client calls each; every round calls the three in a random order, conc
// calls at a time. It reports each gateway's p50 (ms), its ratio to this
// program's p50 in the same run, and its resident memory after the run
// (the gateway process alone, not the server it started).
func BenchmarkGatewayPeers(b *testing.B) {
	bin := buildBinary(b)
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed:", err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command(filepath.Join(root, "scripts", "install-peers.sh"), "gateways").CombinedOutput(); err != nil {
		b.Skipf("the gateways could not be installed: %v\n%s", err, out)
	}
	gwBin := func(name string) string {
		return filepath.Join(root, ".cache", "npm-gateways", "node_modules", ".bin", name)
	}
	index := filepath.Join(root, ".cache", "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	spec := everythingSpec(b)

	port := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	}
	p1, p2, p3 := port(), port(), port()
	gws := []*benchGateway{
		{name: "toolexplorer", url: "http://127.0.0.1:" + p1 + "/", tool: "everything.echo",
			cmd: exec.Command(bin, "serve", "--http", "127.0.0.1:"+p1, "--server", "everything="+spec)},
		{name: "mcp-proxy", url: "http://127.0.0.1:" + p2 + "/mcp", tool: "echo",
			cmd: exec.Command(gwBin("mcp-proxy"), "--host", "127.0.0.1", "--port", p2, "--server", "stream", "--", node, index, "stdio")},
		{name: "supergateway", url: "http://127.0.0.1:" + p3 + "/mcp", tool: "echo",
			cmd: exec.Command(gwBin("supergateway"), "--stdio", node+" "+index+" stdio", "--outputTransport", "streamableHttp", "--stateful",
				"--port", p3, "--logLevel", "none")},
	}
	ctx := context.Background()
	for _, g := range gws {
		g.cmd.Env = append(os.Environ(), "HOME="+b.TempDir(), "TOOLEXPLORER_CONFIG=")
		g.cmd.Dir = b.TempDir()
		if err := g.cmd.Start(); err != nil {
			b.Fatalf("%s: %v", g.name, err)
		}
		b.Cleanup(func() {
			g.cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { g.cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				g.cmd.Process.Kill()
				<-done
			}
		})
	}
	for _, g := range gws {
		deadline := time.Now().Add(2 * time.Minute)
		for {
			c, err := net.Dial("tcp", strings.Split(g.url, "/")[2])
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("%s does not listen at %s: %v", g.name, g.url, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		var cs *sdk.ClientSession
		for {
			cs, err = sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
				&sdk.StreamableClientTransport{Endpoint: g.url, DisableStandaloneSSE: true}, nil)
			if err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if err != nil {
			b.Fatalf("%s: connect %s: %v", g.name, g.url, err)
		}
		g.cs = cs
		b.Cleanup(func() { cs.Close() })
		// Warm up, and check that the call works.
		for range 50 {
			if err := benchEcho(ctx, g); err != nil {
				b.Fatalf("%s: %v", g.name, err)
			}
		}
	}
	for _, conc := range []int{1, 8} {
		b.Run("conc="+strconv.Itoa(conc), func(b *testing.B) {
			for _, g := range gws {
				g.lat = g.lat[:0]
			}
			order := slices.Clone(gws)
			for b.Loop() {
				rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				for _, g := range order {
					var wg sync.WaitGroup
					lat := make([]time.Duration, conc)
					errs := make([]error, conc)
					for i := range conc {
						wg.Go(func() {
							start := time.Now()
							errs[i] = benchEcho(ctx, g)
							lat[i] = time.Since(start)
						})
					}
					wg.Wait()
					for _, err := range errs {
						if err != nil {
							b.Fatalf("%s: %v", g.name, err)
						}
					}
					g.lat = append(g.lat, lat...)
				}
			}
			base := p50(gws[0].lat)
			for _, g := range gws {
				m := p50(g.lat)
				b.ReportMetric(float64(m.Microseconds())/1000, "ms-p50-"+g.name)
				if g != gws[0] {
					b.ReportMetric(float64(m)/float64(base), "x-"+g.name)
				}
				if rss := residentKB(g.cmd.Process.Pid); rss > 0 {
					b.ReportMetric(float64(rss)/1024, "MiB-rss-"+g.name)
				}
			}
		})
	}
}

// benchEcho calls the gateway's echo once and checks its answer.
func benchEcho(ctx context.Context, g *benchGateway) error {
	res, err := g.cs.CallTool(ctx, &sdk.CallToolParams{Name: g.tool, Arguments: map[string]any{"message": "hello"}})
	if err != nil {
		return err
	}
	if res.IsError || len(res.Content) == 0 {
		return fmt.Errorf("echo failed: %+v", res)
	}
	if t, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(t.Text, "hello") {
		return fmt.Errorf("echo answered %+v", res.Content[0])
	}
	return nil
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

// residentKB is the resident memory of process pid in KiB (VmRSS), 0 when
// unknown.
func residentKB(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
