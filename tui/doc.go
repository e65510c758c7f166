// Package tui is the terminal console of toolexplorer: a Bubble Tea program
// that lists every registered tool, explains it, runs it through the
// registry's governed path (origin ui) and shows governance live.
//
// One root Model routes messages to one child per screen (list, detail,
// run, history, governance board) and owns the overlays (full help, the
// consent dialog). The run screen edits arguments with the form generated
// from the tool's schema (package tui/form), or as raw JSON; a result
// and a call from the history show their output in the output viewer
// (package tui/viewer). The screens share a common value: the registry, the
// size, the styles and this session's call history. Long work (a call, an
// availability check) runs in a tea.Cmd and comes back as a message, so
// Update never blocks and no model needs a mutex.
//
// tui imports tooling, config, the charm modules and the standard library;
// it never imports sandbox: governance is seen through tooling.
package tui
