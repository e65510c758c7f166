//go:build linux

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/callargs"
	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling"
	_ "github.com/toolexplorer/toolexplorer/tooling/confined"
)

// echo is the confined tool: a small schema, no file or network access.
var echo = tooling.Tool{
	Name:  "host.echo",
	Input: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":100}},"required":["text"]}`),
	Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
	Run: func(_ context.Context, c tooling.Call) (any, error) {
		return callargs.String(c.Args, "text"), nil
	},
}

// write is a confined tool that writes a file at the root of the
// workspace, which the benchmark makes a git repository: its children keep
// .git read-only (in a mount namespace where the machine has them).
var write = tooling.Tool{
	Name: "host.write",
	Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{Write: []string{"$WORKSPACE"}}},
	Run: func(_ context.Context, c tooling.Call) (any, error) {
		return nil, os.WriteFile(filepath.Join(c.Workspace, "out.txt"), []byte("x"), 0o644)
	},
}

// writeNamespace is write with its children kept in the namespace mode
// where the supervised mode applies (the variable names the mode it asks
// for; see package confine): the cost of the supervisor, side by side.
var writeNamespace = tooling.Tool{
	Name: "host.write_namespace",
	Meta: tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{Write: []string{"$WORKSPACE"}, Env: []string{namespaceMode}}},
	Run:  write.Run,
}

// namespaceMode is confine's variable that keeps a profile naming it in the
// namespace mode.
const namespaceMode = "TOOLEXPLORER_CONFINE_NAMESPACE_MODE"

// reused is echo with Reuse: its calls go to a worker that serves one
// after another.
var reused = tooling.Tool{
	Name:  "host.reused",
	Input: echo.Input,
	Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{Reuse: true}},
	Run:   echo.Run,
}

// bareEcho is the confine-level handler the reuse case compares with: the
// same round trip without the registry.
const bareEcho = "realhost.echo"

func init() {
	confine.Handle(bareEcho, func(_ context.Context, req []byte) ([]byte, error) { return req, nil })
}

func main() {
	reg := tooling.NewRegistry()
	reg.Register(echo, write, writeNamespace, reused)
	tooling.Main(reg, func() int { return run(reg) })
}

func run(reg *tooling.Registry) int {
	calls := flag.Int("calls", 0, "how many calls of each case")
	ws := flag.String("workspace", "", "the workspace (a git repository) of the writing tool; none: no such case")
	reuse := flag.Bool("reuse", false, "time reused calls through the registry against the confine-level round trip")
	only := flag.String("only", "", "time only the cases named (comma-separated)")
	writeFile := flag.String("write", "", "write FILE as the writing tool does, unconfined, and exit (what bwrap runs in the bwrap-tool case)")
	flag.Parse()
	if *writeFile != "" {
		if err := os.WriteFile(*writeFile, []byte("x"), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	if *calls <= 0 {
		fmt.Fprintln(os.Stderr, "usage: realhost -calls N [-workspace DIR] [-reuse]")
		return 2
	}
	if *reuse {
		return runReuse(reg, *calls)
	}
	// A child per call.
	if _, err := reg.Configure(tooling.Settings{Confinement: tooling.ConfinementBounds{PoolSize: -1, Workspace: *ws}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	args := json.RawMessage(`{"text":"ping"}`)
	cases := map[string]func() error{
		"call": func() error {
			res, _ := reg.Execute(ctx, echo.Name, args)
			if !res.OK() {
				return fmt.Errorf("%s: %s", res.Code, res.Message)
			}
			return nil
		},
		"true": func() error { return exec.Command("/bin/true").Run() },
		// The floor of a cold call: the host binary started and ended
		// (runtime, package initialisation, usage line) with no confinement.
		"start": func() error {
			err := exec.Command(self).Run()
			if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
				return nil
			}
			return fmt.Errorf("the host started with no flags: %v", err)
		},
	}
	if *ws != "" {
		os.Setenv(namespaceMode, "1") // passed on only to the tool that names it
		for name, tool := range map[string]string{"call-write": write.Name, "call-write-namespace": writeNamespace.Name} {
			cases[name] = func() error {
				res, _ := reg.Execute(ctx, tool, nil, tooling.WithConsent())
				if !res.OK() {
					return fmt.Errorf("%s: %s", res.Code, res.Message)
				}
				return nil
			}
		}
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		cases["bwrap"] = func() error {
			return exec.Command(bwrap, "--unshare-all", "--ro-bind", "/", "/", "/bin/true").Run()
		}
		if *ws != "" {
			// The peer a user would pick instead of a confined writing
			// call: bwrap confining the same tool, that is the host binary
			// started again to write the file, with the workspace writable,
			// its .git read-only over it, a private /tmp, /proc and /dev,
			// started as the same user as a confined child.
			// (The binary and the workspace may lie under /tmp: they are
			// bound after it.)
			args := []string{"--unshare-all", "--die-with-parent", "--ro-bind", "/", "/",
				"--tmpfs", "/tmp", "--proc", "/proc", "--dev", "/dev", "--ro-bind", self, self,
				"--bind", *ws, *ws, "--ro-bind", filepath.Join(*ws, ".git"), filepath.Join(*ws, ".git")}
			args = append(args, self, "-write", filepath.Join(*ws, "out.txt"))
			cases["bwrap-tool"] = func() error {
				cmd := exec.Command(bwrap, args...)
				if os.Geteuid() == 0 {
					cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
				}
				out, err := cmd.CombinedOutput()
				if err != nil {
					return fmt.Errorf("%v: %s", err, out)
				}
				return nil
			}
		}
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		if *only == "" || slices.Contains(strings.Split(*only, ","), name) {
			names = append(names, name)
		}
	}
	// One warm-up call of each: the first confined call sets up the
	// workspace.
	for _, name := range names {
		if err := cases[name](); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 1
		}
	}
	// Besides its duration, each case's processor time: what the processes
	// it started used (user and system), read once they have been reaped,
	// which a loaded machine changes far less than durations.
	out := map[string][]int64{}
	for range *calls {
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, name := range names {
			cpu := childrenCPU()
			start := time.Now()
			if err := cases[name](); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return 1
			}
			out[name] = append(out[name], time.Since(start).Nanoseconds())
			time.Sleep(2 * time.Millisecond) // its teardown (reaping, temp dir) ends untimed
			// Every case starts one process; a confined child is reaped in the
			// background, so its time is counted once it shows.
			used := childrenCPU() - cpu
			for i := 0; used == 0 && i < 500; i++ {
				time.Sleep(time.Millisecond)
				used = childrenCPU() - cpu
			}
			out["cpu-"+name] = append(out["cpu-"+name], used)
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// runReuse times calls of a Reuse tool through Registry.Execute and the
// round trip of confine.Pool.Run to a reused worker, interleaved call by
// call, and prints the durations of each as JSON.
func runReuse(reg *tooling.Registry, calls int) int {
	if _, err := reg.Configure(tooling.Settings{Confinement: tooling.ConfinementBounds{PoolSize: 2}}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pool := confine.NewPool(2)
	defer pool.Close()
	ctx := context.Background()
	args := json.RawMessage(`{"text":"ping"}`)
	req := []byte(`{"text":"ping"}`)
	cases := map[string]func() error{
		"registry": func() error {
			res, _ := reg.Execute(ctx, reused.Name, args)
			if !res.OK() {
				return fmt.Errorf("%s: %s", res.Code, res.Message)
			}
			return nil
		},
		"confine": func() error {
			_, err := pool.Run(ctx, bareEcho, confine.Profile{Reuse: true}, req)
			return err
		},
	}
	names := []string{"registry", "confine"}
	for range 200 { // warm-up: workers started, spinning
		for _, name := range names {
			if err := cases[name](); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return 1
			}
		}
	}
	out := map[string][]int64{}
	for range calls {
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, name := range names {
			start := time.Now()
			if err := cases[name](); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return 1
			}
			out[name] = append(out[name], time.Since(start).Nanoseconds())
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}

// childrenCPU is the processor time of this process's reaped children, in
// nanoseconds.
func childrenCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
