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
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// echo is the confined tool: a small schema, no file or network access.
var echo = tooling.Tool{
	Name:  "host.echo",
	Input: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","maxLength":100}},"required":["text"]}`),
	Meta:  tooling.Meta{Concurrency: tooling.ReadOnly, Confine: &tooling.Confinement{}},
	Run: func(_ context.Context, c tooling.Call) (any, error) {
		return c.String("text"), nil
	},
}

func main() {
	reg := tooling.NewRegistry()
	reg.Register(echo)
	tooling.Main(reg, func() int { return run(reg) })
}

func run(reg *tooling.Registry) int {
	calls := flag.Int("calls", 0, "how many calls of each case")
	flag.Parse()
	if *calls <= 0 {
		fmt.Fprintln(os.Stderr, "usage: realhost -calls N")
		return 2
	}
	// A child per call.
	if _, err := reg.Configure(tooling.Settings{Confinement: tooling.ConfinementBounds{PoolSize: -1}}); err != nil {
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
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		cases["bwrap"] = func() error {
			return exec.Command(bwrap, "--unshare-all", "--ro-bind", "/", "/", "/bin/true").Run()
		}
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	// One warm-up call of each: the first confined call sets up the
	// workspace.
	for _, name := range names {
		if err := cases[name](); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			return 1
		}
	}
	out := map[string][]int64{}
	for range *calls {
		rand.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, name := range names {
			start := time.Now()
			if err := cases[name](); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
				return 1
			}
			out[name] = append(out[name], time.Since(start).Nanoseconds())
			time.Sleep(2 * time.Millisecond) // its teardown (reaping, temp dir) ends untimed
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		return 1
	}
	return 0
}
