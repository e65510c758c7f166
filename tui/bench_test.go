package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// benchRegistry registers n tools with varied names, descriptions and
// parameters.
func benchRegistry(b testing.TB, n int) *tooling.Registry {
	b.Helper()
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega read write fetch store list delete update create search index")
	concs := []tooling.Concurrency{tooling.ReadOnly, tooling.Exclusive, tooling.MainThread}
	reg := tooling.NewRegistry()
	run := func(context.Context, tooling.Call) (any, error) { return nil, nil }
	for i := range n {
		w1, w2, w3 := words[i%len(words)], words[(i/7)%len(words)], words[(i/49)%len(words)]
		input := fmt.Sprintf(`{"type":"object","properties":{"%s_id":{"type":"string"},"%s_count":{"type":"integer","minimum":0},"dry_run":{"type":"boolean","default":false}},"required":["%s_id"]}`, w1, w2, w1)
		t := tooling.Tool{
			Name:        fmt.Sprintf("group%03d.%s_%s_%05d", i%500, w1, w2, i),
			Title:       strings.ToUpper(w1[:1]) + w1[1:] + " " + w2,
			Description: fmt.Sprintf("Does %s things to the %s of %s, carefully, and reports what changed. Tool number %d.", w1, w2, w3, i),
			Input:       json.RawMessage(input),
			Meta:        tooling.Meta{Concurrency: concs[i%len(concs)]},
			Run:         run,
		}
		if i%5 == 0 {
			t.Meta.Effects = tooling.EffectWrite
			t.Meta.Concurrency = tooling.Exclusive
		}
		if err := reg.Add(t); err != nil {
			b.Fatal(err)
		}
	}
	return reg
}

// BenchmarkFirstFrame is the first frame with 1,000 tools: New, the window
// size, and View. Budget: 150 ms.
func BenchmarkFirstFrame(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		b.Run(fmt.Sprintf("tools=1000/%dx%d", size[0], size[1]), func(b *testing.B) {
			reg := benchRegistry(b, 1000)
			b.ReportAllocs()
			for b.Loop() {
				m := New(reg, Options{})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				_ = m.View()
			}
		})
	}
}

// BenchmarkFilterKeystroke is one keystroke in the filter over 10,000
// tools, Update and View, alternating a letter and a backspace after a
// two-letter query. Budget: 16 ms.
func BenchmarkFilterKeystroke(b *testing.B) {
	for _, q := range []string{"al", "wr", "zz"} {
		b.Run("tools=10000/query="+q, func(b *testing.B) {
			reg := benchRegistry(b, 10000)
			m := New(reg, Options{})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			m.Update(keyMsg("/"))
			for _, r := range q {
				m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			keys := []tea.KeyPressMsg{{Code: 'p', Text: "p"}, {Code: tea.KeyBackspace}}
			b.ReportAllocs()
			i := 0
			start := processCPU()
			for b.Loop() {
				m.Update(keys[i%2])
				_ = m.View()
				i++
			}
			reportCPU(b, start)
		})
	}
	b.Run("tools=10000/facet", func(b *testing.B) {
		reg := benchRegistry(b, 10000)
		m := New(reg, Options{})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		b.ReportAllocs()
		for b.Loop() {
			m.Update(keyMsg("2"))
			_ = m.View()
		}
	})
}

// TestFilterRanksByName checks the ranking the benchmark exercises: a
// name match beats a description match.
func TestFilterRanksByName(t *testing.T) {
	reg := benchRegistry(t, 300)
	h := newHarness(t, reg, 120, 40)
	h.press("/")
	h.typeText("tool 00007")
	got := shown(h)
	if len(got) == 0 || !strings.HasSuffix(got[0], "_00007") {
		t.Fatalf("first = %v", got[:min(len(got), 3)])
	}
	h.press("esc", "/")
	h.typeText("omega_")
	for _, n := range shown(h)[:3] {
		if !strings.Contains(n, ".omega_") {
			t.Fatalf("name prefix matches should come first: %v", shown(h)[:3])
		}
	}
}

// BenchmarkFilterSearch is the search of one query over 10,000 tools with
// nothing to reuse (no recent query, no narrowing): the worst keystroke,
// as when a query is pasted.
func BenchmarkFilterSearch(b *testing.B) {
	for _, q := range []string{"al", "wr", "zz", "omega_id"} {
		b.Run("tools=10000/query="+q, func(b *testing.B) {
			reg := benchRegistry(b, 10000)
			m := New(reg, Options{})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			l := m.list
			l.filter.SetValue(q)
			b.ReportAllocs()
			for b.Loop() {
				clear(l.recent)
				l.query = ""
				l.apply()
			}
		})
	}
}

// bigOutput is the output of a tool that fetched a large page: one JSON
// string of about n bytes (text with line breaks, escaped), the shape
// that made the result viewport wrap one huge line on every key.
func bigOutput(n int) json.RawMessage {
	var page strings.Builder
	for i := 0; page.Len() < n; i++ {
		fmt.Fprintf(&page, "paragraph %06d: lorem ipsum dolor sit amet, consectetur adipiscing elit.\n", i)
	}
	out, _ := json.Marshal(map[string]any{"status": 200, "body": page.String()})
	return out
}

// showResult puts res on the run screen of a tool, as a finished call
// does.
func showResult(m *Model, res *tooling.Result) {
	m.run.setTool(tooling.Tool{Name: res.Tool}, nil)
	m.push(m.run)
	m.run.finish(res)
}

// BenchmarkResultScroll is one scrolling key (Update and View) on the
// result of a call whose output is one 1 MiB JSON string. Budget: 16 ms.
func BenchmarkResultScroll(b *testing.B) {
	out := bigOutput(1 << 20)
	for _, k := range []string{"j", "k", "g", "G", "pgup", "pgdown"} {
		b.Run("output=1MiB/key="+k, func(b *testing.B) {
			reg := benchRegistry(b, 1)
			m := New(reg, Options{})
			m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
			showResult(m, &tooling.Result{Tool: "bench", Status: "ok", Output: out})
			m.Update(keyMsg("pgdown")) // away from the top, so that k, g and pgup move
			m.Update(keyMsg("pgdown"))
			back := map[string]string{"j": "k", "k": "j", "g": "G", "G": "g", "pgup": "pgdown", "pgdown": "pgup"}[k]
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i%2 == 0 {
					m.Update(keyMsg(k))
				} else {
					m.Update(keyMsg(back))
				}
				_ = m.View()
				i++
			}
		})
	}
}

// BenchmarkResultShow is what scrolling no longer pays on every key: the
// result of a call with a 1 MiB output arriving, pretty-printed, wrapped
// to the screen and drawn once (also the cost of a resize).
func BenchmarkResultShow(b *testing.B) {
	out := bigOutput(1 << 20)
	reg := benchRegistry(b, 1)
	m := New(reg, Options{})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	res := &tooling.Result{Tool: "bench", Status: "ok", Output: out}
	showResult(m, res)
	b.ReportAllocs()
	for b.Loop() {
		m.run.finish(res)
		_ = m.View()
	}
}
