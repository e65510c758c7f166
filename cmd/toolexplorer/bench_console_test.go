//go:build linux

package main

import (
	"context"
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
	"github.com/toolexplorer/toolexplorer/tui"
)

// BenchmarkConsoleConnect is the time from nothing to the console's first
// frame listing a stdio server's tools: the server started, initialized
// and its tools listed and added (mcp.Connect), the console built over the
// registry and drawn once at 120x40. Stopping the server is not counted.
// The servers: server-everything (node) and this program's own serve.
func BenchmarkConsoleConnect(b *testing.B) {
	b.Run("server=everything", func(b *testing.B) {
		words, err := shellWords(everythingSpec(b))
		if err != nil {
			b.Fatal(err)
		}
		benchConsoleConnect(b, config.Server{Command: words[0], Args: words[1:]}, "srv.echo")
	})
	b.Run("server=toolexplorer", func(b *testing.B) {
		words, err := shellWords(strings.TrimPrefix(ourServer(b, "ours"), "--server=ours="))
		if err != nil {
			b.Fatal(err)
		}
		benchConsoleConnect(b, config.Server{Command: words[0], Args: words[1:]}, "srv.demo_echo")
	})
}

func benchConsoleConnect(b *testing.B, s config.Server, tool string) {
	ctx := context.Background()
	spec, err := (&app{getenv: os.Getenv}).serverSpec("srv", s)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		reg := tooling.NewRegistry()
		r, err := mcp.Connect(ctx, reg, "srv", spec)
		if err != nil {
			b.Fatal(err)
		}
		m := tui.New(reg, tui.Options{NoColor: true})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		frame := m.View().Content
		b.StopTimer()
		if !strings.Contains(frame, tool) {
			b.Fatalf("the first frame does not list %s:\n%s", tool, frame)
		}
		r.Close()
		b.StartTimer()
	}
}
