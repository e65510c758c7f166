package viewer

import (
	"context"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// jqState is the filter line: a jq filter applied to the output, the view
// updated as it is typed.
type jqState struct {
	typing bool   // the line has the focus
	src    string // the filter shown ("" for none)
	err    string // why the last edit shows no result; the last good one stays
	n      int    // values the shown filter made
	busy   bool   // a run is under way
	seq    int    // the latest run; results of older ones are dropped
	cancel context.CancelFunc

	orig       *outputTree // the output itself, while a filter's result is shown
	origFolded []bool
	input      any // the output decoded for the filter, once
	decoded    bool
}

// openJQ gives the filter line the focus, with the filter shown.
func (v *Model) openJQ() tea.Cmd {
	if v.tree == nil && v.jq.orig == nil {
		return statusCmd("no output to filter", true)
	}
	v.jq.typing = true
	v.jqInput.SetValue(v.jq.src)
	v.jqInput.CursorEnd()
	v.clamp()
	return v.jqInput.Focus()
}

// updateJQ is a key while the filter line has the focus: enter keeps the
// filter, esc drops it and shows the output again; any edit runs it.
func (v *Model) updateJQ(msg tea.Msg) tea.Cmd {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		switch k.String() {
		case "enter":
			v.jq.typing = false
			v.jqInput.Blur()
			if v.jq.src == "" || v.jq.src == "." && v.jq.err == "" {
				v.dropJQ()
			}
			v.clamp()
			return nil
		case "esc":
			v.dropJQ()
			return nil
		}
	}
	var cmd tea.Cmd
	v.jqInput, cmd = v.jqInput.Update(msg)
	if src := strings.TrimSpace(v.jqInput.Value()); src != v.jq.src {
		return tea.Batch(cmd, v.runJQ(src))
	}
	return cmd
}

// runJQ compiles src (cheap, here) and runs it off the UI goroutine,
// canceling the run before.
func (v *Model) runJQ(src string) tea.Cmd {
	v.stopJQ()
	v.jq.src = src
	v.jq.seq++
	if src == "" {
		v.jq.err = ""
		v.showJQ(nil, 0)
		return nil
	}
	code, err := CompileJQ(src)
	if err != nil {
		v.jq.err = err.Error()
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), jqTimeout)
	v.jq.cancel, v.jq.busy = cancel, true
	orig := v.tree
	if v.jq.orig != nil {
		orig = v.jq.orig
	}
	return jqCmd(ctx, v, v.jq.seq, code, orig.raw, v.jq.input, v.jq.decoded)
}

// stopJQ cancels a run under way.
func (v *Model) stopJQ() {
	if v.jq.cancel != nil {
		v.jq.cancel()
		v.jq.cancel = nil
	}
	v.jq.busy = false
}

// jqDone shows the result of the latest run, or says why it failed.
func (v *Model) jqDone(msg jqResultMsg) {
	if msg.input != nil || msg.err == nil {
		v.jq.input, v.jq.decoded = msg.input, true
	}
	if msg.seq != v.jq.seq || (!v.jq.typing && v.jq.src == "") {
		return // an older edit's, or dropped
	}
	v.stopJQ()
	if msg.err != nil {
		v.jq.err = msg.err.Error()
		if msg.err == context.DeadlineExceeded {
			v.jq.err = fmt.Sprintf("stopped after %s: the filter runs too long", jqTimeout)
		}
		v.clamp()
		return
	}
	v.jq.err = ""
	v.showJQ(msg.tree, msg.n)
}

// showJQ shows tree (the filter's result) instead of the output, or the
// output again for nil.
func (v *Model) showJQ(tree *outputTree, n int) {
	if v.jq.orig == nil && tree != nil {
		v.jq.orig, v.jq.origFolded = v.tree, v.folded
	}
	v.tab = nil
	switch {
	case tree != nil:
		v.tree, v.folded = tree, make([]bool, len(tree.lines))
	case v.jq.orig != nil:
		v.tree, v.folded = v.jq.orig, v.jq.origFolded
		v.jq.orig, v.jq.origFolded = nil, nil
	}
	v.jq.n = n
	v.query, v.matches = "", nil
	v.found = [2]foundMatches{}
	v.rebuild()
	v.cursor = v.firstJSONRow()
	v.clamp()
}

// dropJQ closes the filter line and shows the output itself.
func (v *Model) dropJQ() {
	v.stopJQ()
	v.jq.typing, v.jq.src, v.jq.err, v.jq.n = false, "", "", 0
	v.jq.seq++
	v.jqInput.Blur()
	v.jqInput.SetValue("")
	v.showJQ(nil, 0)
}

// jqLines is how many lines the filter line takes under the rows.
func (v *Model) jqLines() int {
	switch {
	case v.jq.typing && v.jq.err != "":
		return 2
	case v.jq.typing || v.jq.src != "":
		return 1
	}
	return 0
}

// jqView draws the filter line and, under it, why the filter shows no
// new result.
func (v *Model) jqView() string {
	st := v.st
	if !v.jq.typing {
		return st.Faint.Render(cut(fmt.Sprintf("| %s: %s · %s changes it", v.jq.src, plural(v.jq.n, "result"), keyName(v.Keys.JQ)), v.w))
	}
	line := v.jqInput.View()
	switch {
	case v.jq.busy:
		line += st.Faint.Render("  running…")
	case v.jq.src != "" && v.jq.err == "":
		line += st.Faint.Render("  " + plural(v.jq.n, "result"))
	}
	if v.jq.err != "" {
		line += "\n" + st.Err.Render(cut("  "+strings.ReplaceAll(v.jq.err, "\n", " "), v.w))
	}
	return line
}
