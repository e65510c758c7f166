//go:build linux

package tooling_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tooling/codes"
)

// The confined tools of the tests live in hosted, a registry of its own
// (not Default) that TestMain hands to tooling.Main: the re-executed test
// binary builds it again and serves its calls from it.
func init() {
	confinedTestTools(hosted)
	hosted.Register(tooling.DeferredTestTools...)
}

func confinedTestTools(reg *tooling.Registry) {
	reg.Register(tooling.Tool{Name: "conftest.read", Description: "reads a file",
		Input: raw(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectRead | tooling.EffectFilesystem, Confine: &tooling.Confinement{Read: []string{"$WORKSPACE"}}},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			p := callargs.String(c.Args, "path")
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Workspace, p)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			return map[string]any{"text": string(b), "pid": os.Getpid()}, nil
		}})
	for name, bind := range map[string][]uint16{"conftest.listen": {0}, "conftest.listen_unbound": nil} {
		reg.Register(tooling.Tool{Name: name, Description: "listens on an ephemeral loopback port",
			Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Effects: tooling.EffectNetwork, Confine: &tooling.Confinement{BindTCP: bind}},
			Run: func(_ context.Context, c tooling.Call) (any, error) {
				var lc net.ListenConfig
				lc.SetMultipathTCP(false)
				l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
				if err != nil {
					return nil, err
				}
				l.Close()
				return "listened", nil
			}})
	}
	reg.Register(tooling.Tool{Name: "conftest.fail", Description: "fails or panics",
		Input: raw(`{"type":"object","properties":{"panic":{"type":"boolean"}}}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			if callargs.Bool(c.Args, "panic") {
				panic("confined panic")
			}
			return nil, errors.New("confined failure")
		}})
	reg.Register(tooling.Tool{Name: "conftest.longerror", Description: "fails with an error of n bytes",
		Input: raw(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			return nil, errors.New(strings.Repeat("e", int(callargs.Int(c.Args, "n"))))
		}})
	reg.Register(tooling.Tool{Name: "conftest.spin", Description: "spends ms milliseconds of CPU",
		Input: raw(`{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			end := threadCPU() + time.Duration(callargs.Int(c.Args, "ms"))*time.Millisecond
			n := 0
			for threadCPU() < end {
				n++
			}
			return n > 0, nil
		}})
	reg.Register(tooling.Tool{Name: "conftest.sized", Description: "returns a JSON string of n bytes",
		Input: raw(`{"type":"object","properties":{"n":{"type":"integer","minimum":2},"followup":{"type":"boolean"}},"required":["n"]}`),
		Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
		Run: func(_ context.Context, c tooling.Call) (any, error) {
			out := strings.Repeat("a", int(callargs.Int(c.Args, "n"))-2)
			if callargs.Bool(c.Args, "followup") {
				return tooling.Followup{Output: out, Plan: map[string]any{"next": "conftest.read"}}, nil
			}
			return out, nil
		}})
}

// elsewhere is a registry other than hosted, filled before TestMain hands
// hosted to tooling.Main.
var elsewhere = func() *tooling.Registry {
	r := tooling.NewRegistry()
	confinedTestTools(r)
	return r
}()

// A confined tool added to a registry other than the one handed to
// tooling.Main before Main ran is refused when called, before any child
// starts: no child could find it.
func TestConfinedToolOfAnotherRegistry(t *testing.T) {
	res, err := elsewhere.Execute(context.Background(), "conftest.fail", nil)
	if !errors.Is(err, codes.SandboxUnavailable) || res.Status != "denied" ||
		res.Message != "conftest.fail is confined, and a confined child serves only the registry handed to tooling.Main, which is another one" {
		t.Fatalf("%v (status %s)", err, res.Status)
	}
}

// Once tooling.Main runs, a confined tool is refused when it is added to
// another registry: Add and Replace return the error, Register panics.
func TestConfinedToolRefusedByAnotherRegistryOnceMainRuns(t *testing.T) {
	tool := tooling.Tool{Name: "conftest.late", Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}}, Run: run}
	const want = `tooling: Register("conftest.late"): it is confined, and a confined child serves only the registry handed to tooling.Main, which is another one: register it there`
	r := tooling.NewRegistry()
	var re *tooling.RegisterError
	if err := r.Add(tool); !errors.As(err, &re) || err.Error() != want {
		t.Fatalf("Add: %v", err)
	}
	if err := r.Replace(nil, []tooling.Tool{tool}); err == nil || err.Error() != want {
		t.Fatalf("Replace: %v", err)
	}
	func() {
		defer func() {
			if p, _ := recover().(error); p == nil || p.Error() != want {
				t.Fatalf("Register: %v", p)
			}
		}()
		r.Register(tool)
	}()
	if len(r.List(context.Background(), tooling.Filter{})) != 0 {
		t.Fatalf("the registry took %d tools", len(r.List(context.Background(), tooling.Filter{})))
	}
	// Tools that are not confined are taken, and the hosted registry takes confined ones.
	if err := r.Add(tooling.Tool{Name: "conftest.plain_late", Run: run}); err != nil {
		t.Fatal(err)
	}
	if err := hosted.Add(tool); err != nil {
		t.Fatalf("hosted: %v", err)
	}
	_ = hosted.Replace([]string{tool.Name}, nil)
}

func requireConfinement(t *testing.T) {
	t.Helper()
	if err := confine.Available(); err != nil {
		if os.Getenv("TOOLEXPLORER_REQUIRE_LANDLOCK") == "1" {
			t.Fatalf("confinement unavailable: %v", err)
		}
		t.Skipf("confinement unavailable here: %v", err)
	}
}

func TestConfinedTools(t *testing.T) {
	requireConfinement(t)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "note.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The child runs as an unprivileged user: it must be able to reach the
	// workspace (t.TempDir makes its parent private).
	for _, d := range []string{ws, filepath.Dir(ws)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg := tooling.Settings{}
	cfg.Confinement.Workspace = ws
	cfg.Confinement.PoolSize = -1
	if _, err := hosted.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	defer hosted.Configure(tooling.Settings{})
	ctx := context.Background()

	res, err := hosted.Execute(ctx, "conftest.read", raw(`{"path":"note.txt"}`))
	if err != nil || !strings.Contains(string(res.Output), `"text":"inside"`) || strings.Contains(string(res.Output), `"pid":`+itoa(os.Getpid())) {
		var ce *confine.Error
		if errors.As(err, &ce) {
			t.Logf("child stderr: %s", ce.Stderr)
		}
		t.Fatalf("read inside the Workspace: %v %s", err, res.Output)
	}
	res, err = hosted.Execute(ctx, "conftest.read", raw(`{"path":"/etc/hostname"}`))
	if !errors.Is(err, codes.SandboxDenied) || res.Status != "error" || !strings.Contains(res.Message, "/etc/hostname") ||
		!strings.Contains(res.Message, "(as the child reports)") {
		t.Fatalf("read outside: %v (%s)", err, res.Message)
	}
	res, err = hosted.Execute(ctx, "conftest.fail", nil)
	if !errors.Is(err, codes.ToolError) || res.Message != "confined failure" {
		t.Fatalf("tool error: %v", err)
	}
	res, err = hosted.Execute(ctx, "conftest.fail", raw(`{"panic":true}`))
	if !errors.Is(err, codes.Panic) || !strings.Contains(res.Stack, "goroutine") {
		t.Fatalf("panic: %v", err)
	}
	if res, err := hosted.Execute(ctx, "conftest.listen", nil); err != nil || string(res.Output) != `"listened"` {
		t.Fatalf("listen with BindTCP 0: %v %s", err, res.Output)
	}
	if _, err := hosted.Execute(ctx, "conftest.listen_unbound", nil); !errors.Is(err, codes.SandboxDenied) {
		t.Fatalf("listen without BindTCP: %v, want sandbox_denied", err)
	}
	found := false
	for _, d := range res.Governance {
		found = found || d.Step == "confine" && strings.HasPrefix(d.Detail, "profile ")
	}
	if !found {
		t.Fatalf("no confine decision: %+v", res.Governance)
	}
}

// threadCPU is the CPU time the calling thread has used.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_THREAD, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A confined call's Result says how much CPU its child spent in the tool.
func TestConfinedCallReportsItsCPU(t *testing.T) {
	requireConfinement(t)
	cfg := tooling.Settings{}
	cfg.Confinement.PoolSize = -1
	if _, err := hosted.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	defer hosted.Configure(tooling.Settings{})
	res, err := hosted.Execute(context.Background(), "conftest.spin", raw(`{"ms":30}`))
	if err != nil {
		t.Fatal(err)
	}
	var cpu time.Duration
	for _, d := range res.Governance {
		if d.Step == "cpu" {
			first, _, _ := strings.Cut(d.Detail, " ")
			cpu, err = time.ParseDuration(first)
			if err != nil || !strings.HasSuffix(d.Detail, " of CPU in the confined child") {
				t.Fatalf("cpu decision %q: %v", d.Detail, err)
			}
		}
	}
	if cpu < 30*time.Millisecond || cpu > 30*time.Second {
		t.Fatalf("cpu %v, want at least the 30ms the tool spent: %+v", cpu, res.Governance)
	}
}

func itoa(n int) string {
	b := []byte{}
	for n > 0 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(b)
}

// TestConfinedOutputSizeCap checks that the output a confined child sends
// back is held to max_output_bytes like the output of an in-process tool.
func TestConfinedOutputSizeCap(t *testing.T) {
	requireConfinement(t)
	cfg := tooling.Settings{}
	cfg.MaxOutputBytes = 64
	cfg.Confinement.PoolSize = -1
	if _, err := hosted.Configure(cfg); err != nil {
		t.Fatal(err)
	}
	defer hosted.Configure(tooling.Settings{})
	const over = "output is 65 bytes, over the limit of 64 bytes (config max_output_bytes)"
	tests := []struct {
		name string
		args string
		want string // the output, "" when refused
		msg  string // the message when refused
	}{
		{"under", `{"n":63}`, `"` + strings.Repeat("a", 61) + `"`, ""},
		{"at", `{"n":64}`, `"` + strings.Repeat("a", 62) + `"`, ""},
		{"over", `{"n":65}`, "", over},
		{"far over", `{"n":2000000}`, "", "output is 1.9 MiB, over the limit of 64 bytes (config max_output_bytes)"},
		{"follow-up at", `{"n":64,"followup":true}`, `"` + strings.Repeat("a", 62) + `"`, ""},
		{"follow-up over", `{"n":65,"followup":true}`, "", over},
	}
	// Whatever the child answers, the parent reads no more than the output
	// cap and a fixed room: an error text far over both ends the call at the
	// response limit.
	res, err := hosted.Execute(context.Background(), "conftest.longerror", raw(`{"n":3000000}`))
	if !errors.Is(err, codes.SandboxDenied) || !strings.Contains(res.Message, "response limit") {
		t.Errorf("a 3 MB error text: %v (%s), want the response limit", err, res.Message)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := hosted.Execute(context.Background(), "conftest.sized", raw(tt.args))
			confined := false
			for _, d := range res.Governance {
				confined = confined || d.Step == "confine" && strings.HasPrefix(d.Detail, "profile ")
			}
			if !confined {
				t.Fatalf("not confined: %+v", res.Governance)
			}
			if tt.want != "" {
				if err != nil || string(res.Output) != tt.want {
					t.Fatalf("err %v output %d bytes", err, len(res.Output))
				}
				return
			}
			if !errors.Is(err, codes.OutputInvalid) || res.Code != codes.OutputInvalid || res.Status != "error" {
				t.Fatalf("err %v code %q status %q", err, res.Code, res.Status)
			}
			if res.Message != tt.msg || res.Output != nil {
				t.Fatalf("message %q output %d bytes; want %q and no output", res.Message, len(res.Output), tt.msg)
			}
		})
	}
}
