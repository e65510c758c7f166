package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/toolexplorer/toolexplorer/bindings"
	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/tooling/lint"
	"github.com/toolexplorer/toolexplorer/tui"
)

// loadToolFiles loads the tools files of --tools-dir and the config's
// tool_files and adds their tools to the registry. A file that does not
// load is a usage error, each problem on its own line with file:line,
// unless keep is set (lint), which reports them itself.
func (a *app) loadToolFiles(cfg config.Config, keep bool) int {
	paths := append(append([]string(nil), a.flagToolDirs...), cfg.ToolFiles...)
	if len(paths) == 0 {
		return exitOK
	}
	opts := bindings.Options{Shadow: a.flagShadow || cfg.Shadow}
	if cfg.EnvFile != "" {
		env, err := bindings.EnvFile(cfg.EnvFile)
		if err != nil {
			a.errorf("%s", strings.TrimPrefix(err.Error(), "bindings: "))
			return exitUsage
		}
		opts.Env = env
	}
	set, err := bindings.Load(paths, opts)
	if err == nil {
		if err = set.Register(a.reg); err != nil {
			_ = set.Close()
		}
	}
	if err != nil {
		var le *bindings.LoadError
		if errors.As(err, &le) && keep {
			a.fileProblems = le.Problems
			return exitOK
		}
		a.toolFileErrors(err)
		return exitUsage
	}
	a.files = set
	return exitOK
}

// toolFileErrors prints a load or reload error, one problem a line.
func (a *app) toolFileErrors(err error) {
	var le *bindings.LoadError
	if errors.As(err, &le) {
		for _, p := range le.Problems {
			a.errorf("tools file: %s", p)
		}
		return
	}
	for _, line := range strings.Split(err.Error(), "\n") {
		a.errorf("tools file: %s", line)
	}
}

// reloadToolFiles reads the tools files again and swaps their tools in the
// registry; on error the tools in place stay.
func (a *app) reloadToolFiles() (bindings.Change, error) {
	a.filesMu.Lock()
	defer a.filesMu.Unlock()
	if a.files == nil {
		return bindings.Change{}, errors.New("no tools files are loaded (--tools-dir, config tool_files)")
	}
	next, ch, err := a.files.Reload(a.reg)
	if err != nil {
		return ch, err
	}
	a.files = next
	return ch, nil
}

// changeText says what a reload changed, on one line.
func changeText(ch bindings.Change) string {
	if ch.Empty() {
		return "tools files reloaded: nothing changed"
	}
	var parts []string
	for _, p := range []struct {
		what  string
		names []string
	}{{"added", ch.Added}, {"removed", ch.Removed}, {"changed", ch.Changed}} {
		if len(p.names) > 0 {
			parts = append(parts, p.what+" "+strings.Join(p.names, ", "))
		}
	}
	return "tools files reloaded: " + strings.Join(parts, "; ")
}

// reloadOnHangup reloads the tools files on each SIGHUP until stop is
// called, reporting to report. It does nothing without tools files.
func (a *app) reloadOnHangup(report func(string, error)) (stop func()) {
	if a.files == nil {
		return func() {}
	}
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-c:
				if a.hungUp != nil && a.hungUp() {
					return
				}
				ch, err := a.reloadToolFiles()
				if err != nil {
					report("", errors.New(reloadError(err)))
					continue
				}
				report(changeText(ch), nil)
			}
		}
	}()
	return func() {
		signal.Stop(c)
		close(done)
	}
}

// reloadError is a reload's error on one line.
func reloadError(err error) string {
	return strings.ReplaceAll(strings.TrimPrefix(err.Error(), "bindings: "), "\n", "; ")
}

// consoleToolFiles are the app's tools files as the console reloads them
// (L) and switches their shadow mode (W); reloaded gets what a SIGHUP's
// reload said.
type consoleToolFiles struct {
	a        *app
	reloaded chan tui.ToolFilesReload
}

func (c consoleToolFiles) Reloaded() <-chan tui.ToolFilesReload { return c.reloaded }

// hangup reports a SIGHUP's reload to the console, dropping it when the
// console has not taken the one before.
func (c consoleToolFiles) hangup(text string, err error) {
	select {
	case c.reloaded <- tui.ToolFilesReload{Text: text, Err: err}:
	default:
	}
}

func (c consoleToolFiles) Reload() (string, error) {
	ch, err := c.a.reloadToolFiles()
	if err != nil {
		return "", errors.New(reloadError(err))
	}
	return changeText(ch), nil
}

func (c consoleToolFiles) Shadow() bool {
	c.a.filesMu.Lock()
	defer c.a.filesMu.Unlock()
	return c.a.files != nil && c.a.files.Shadow()
}

func (c consoleToolFiles) SetShadow(on bool) {
	c.a.filesMu.Lock()
	defer c.a.filesMu.Unlock()
	if c.a.files != nil {
		c.a.files.SetShadow(on)
	}
}

// closeToolFiles removes the tools files' tools from the registry and
// stops their sources.
func (a *app) closeToolFiles() {
	a.filesMu.Lock()
	defer a.filesMu.Unlock()
	if a.files != nil {
		var names []string
		for _, t := range a.files.Tools() {
			names = append(names, t.Name)
		}
		if err := a.reg.Replace(names, nil); err != nil {
			a.errorf("tools files: removing their tools: %v", err)
		}
		if err := a.files.Close(); err != nil {
			a.errorf("tools files: closing their sources: %v", err)
		}
		a.files = nil
	}
}

// bindingOf describes the binding of a tools file's tool; nil for others.
func (a *app) bindingOf(name string) *bindings.Info {
	a.filesMu.Lock()
	defer a.filesMu.Unlock()
	if a.files == nil {
		return nil
	}
	if info, ok := a.files.Info(name); ok {
		return &info
	}
	return nil
}

// bindingText is a tools file's tool's binding on one line: "sql:shop".
func bindingText(b *bindings.Info) string {
	s := b.Kind + ":" + b.Source
	if b.Shadow {
		s += " shadow"
	}
	return s
}

// fileFindings lints the tools files: plaintext secrets, text spliced into
// SQL; it keeps the credentials each file uses for the report.
func (a *app) fileFindings() []bindings.Problem {
	paths := append(append([]string(nil), a.flagToolDirs...), a.cfg.ToolFiles...)
	if len(paths) == 0 {
		return nil
	}
	rep := bindings.Lint(paths)
	a.fileEnv = rep.Env
	return rep.Problems
}

// fileProblems turns the problems of tools files into lint's.
func lintToolFiles(problems []bindings.Problem) []lint.Problem {
	out := make([]lint.Problem, len(problems))
	for i, p := range problems {
		out[i] = lint.Problem{Check: "tools_file", Path: fmt.Sprintf("%s:%d", p.File, p.Line), Message: strings.TrimPrefix(p.String(), fmt.Sprintf("%s:%d: ", p.File, p.Line))}
		if p.Line == 0 {
			out[i].Path = p.File
			out[i].Message = strings.TrimPrefix(p.String(), p.File+": ")
		}
	}
	return out
}

// toolDirs are the --tools-dir paths given, absolute, without the demo
// shop's (--demo says it); nil for none.
func (a *app) toolDirs() []string {
	var out []string
	for _, d := range a.flagToolDirs {
		if a.demo && d == demoShopFiles {
			continue
		}
		out = append(out, absPath(d))
	}
	return out
}
