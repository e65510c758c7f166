package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/toolexplorer/toolexplorer/sandbox/confine"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// serverHandler is the name of the confined child's handler that runs a
// stdio server.
const serverHandler = "mcp.server"

func init() { confine.Handle(serverHandler, runServer) }

// serverRequest is what the confined child runs: the server's program,
// arguments and environment, talking MCP over the FIFOs in Dir.
type serverRequest struct {
	Path string
	Args []string
	Env  []string
	Dir  string
}

// runServer runs in the confined child: it starts the server with its
// stdin, stdout and stderr on the FIFOs the parent made, and waits for it.
// The server inherits the child's Landlock rules, seccomp filter and
// limits.
func runServer(ctx context.Context, req []byte) ([]byte, error) {
	var r serverRequest
	if err := json.Unmarshal(req, &r); err != nil {
		return nil, err
	}
	in, err := os.OpenFile(filepath.Join(r.Dir, "in"), os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	out, err := os.OpenFile(filepath.Join(r.Dir, "out"), os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer out.Close()
	errf, err := os.OpenFile(filepath.Join(r.Dir, "err"), os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	defer errf.Close()
	cmd := exec.CommandContext(ctx, r.Path, r.Args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = in, out, errf, r.Env
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(errf, "toolexplorer: cannot start the server confined: %v\n", err)
		return nil, err
	}
	err = cmd.Wait()
	return []byte(`{}`), err
}

// confinedProcess is a stdio server started by a confined child.
type confinedProcess struct {
	dir    string
	cancel context.CancelFunc
	done   chan error // the child's end
	stderr *tail
	in     *os.File // the server's stdin, written here
	out    *os.File // the server's stdout, read here
}

// startConfined starts the server s under its confinement: a confined
// child of this binary (landlock, seccomp, limits; an unprivileged user
// when this process is root) starts it with what s.Confine grants, and
// the server speaks MCP over FIFOs in a private directory.
//
// Write paths that hold configFile or the running program are refused.
func startConfined(ctx context.Context, s Spec, configFile string) (*confinedProcess, error) {
	path, err := exec.LookPath(s.Command)
	if err != nil {
		return nil, err
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, err
	}
	if err := checkWriteGrants(s.Confine.Write, configFile); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "toolexplorer-mcp-")
	if err != nil {
		return nil, err
	}
	p := &confinedProcess{dir: dir, done: make(chan error, 1), stderr: &tail{max: stderrTail}}
	fail := func(err error) (*confinedProcess, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	for _, name := range []string{"in", "out", "err"} {
		if err := unix.Mkfifo(filepath.Join(dir, name), 0o600); err != nil {
			return fail(err)
		}
	}
	if os.Geteuid() == 0 { // the child runs as nobody
		for _, name := range []string{"", "in", "out", "err"} {
			if err := os.Chown(filepath.Join(dir, name), 65534, 65534); err != nil {
				return fail(err)
			}
		}
	}
	c := s.Confine
	prof := confine.Profile{
		ReadPaths:  c.Read,
		WritePaths: append([]string{dir}, c.Write...),
		Exec:       append([]string{path}, c.Exec...),
		ConnectTCP: c.ConnectTCP,
		BindTCP:    c.BindTCP,
		Limits:     serverLimits(c.Limits),
	}
	env := make([]string, 0, len(s.Env))
	keys := make([]string, 0, len(s.Env))
	for k := range s.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+s.Env[k])
	}
	req, err := json.Marshal(serverRequest{Path: path, Args: s.Args, Env: env, Dir: dir})
	if err != nil {
		return fail(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		_, err := confine.Run(runCtx, serverHandler, prof, req)
		p.done <- err
	}()
	type opened struct {
		f   *os.File
		err error
	}
	open := func(name string, flag int) chan opened {
		ch := make(chan opened, 1)
		go func() {
			f, err := os.OpenFile(filepath.Join(dir, name), flag, 0)
			ch <- opened{f, err}
		}()
		return ch
	}
	chans := []chan opened{open("in", os.O_WRONLY), open("out", os.O_RDONLY), open("err", os.O_RDONLY)}
	var files [3]*os.File
	var failure error
	got := 0 // the opens received
	for i, ch := range chans {
		select {
		case o := <-ch:
			got = i + 1
			files[i], failure = o.f, o.err
		case err := <-p.done:
			p.done <- err
			// The server may have opened its pipes and then exited (a
			// program that is no server): an open that is ready is read
			// with the output, so that what it wrote is reported.
			select {
			case o := <-ch:
				got = i + 1
				files[i], failure = o.f, o.err
			default:
				if err == nil {
					err = errors.New("it exited with status 0 before it opened its pipes")
				}
				failure = fmt.Errorf("the confined server did not start: %w", err)
			}
		case <-ctx.Done():
			failure = ctx.Err()
		}
		if failure != nil {
			break
		}
	}
	if failure != nil {
		cancel()
		// Opens still waiting end once the other side is open.
		for _, name := range []string{"in", "out", "err"} {
			if f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR, 0); err == nil {
				defer f.Close()
			}
		}
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
		for _, ch := range chans[got:] { // a received one would never send again
			if o := <-ch; o.f != nil {
				o.f.Close()
			}
		}
		<-p.done
		return fail(failure)
	}
	p.in, p.out = files[0], files[1]
	go func() {
		_, _ = io.Copy(p.stderr, files[2])
		files[2].Close()
	}()
	return p, nil
}

// checkWriteGrants refuses write paths that hold the config file or the
// running program, as the registry refuses them for confined tools: the
// server could rewrite what the next start reads or runs. Both sides are
// compared as they resolve, so a link to the config's directory is no way
// around it.
func checkWriteGrants(write []string, configFile string) error {
	var guarded []string
	if configFile != "" {
		guarded = append(guarded, configFile)
	}
	if exe, err := os.Executable(); err == nil {
		guarded = append(guarded, exe)
	}
	for _, g := range guarded {
		g = resolved(g)
		for _, w := range write {
			rw := resolved(w)
			if g == rw || strings.HasPrefix(g, strings.TrimSuffix(rw, "/")+"/") {
				return fmt.Errorf("the write path %s holds %s, which a confined server must not change; keep the config file and the program outside the server's write paths", w, g)
			}
		}
	}
	return nil
}

// resolved is path made absolute with its symlinks resolved, as far as
// they resolve.
func resolved(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path
}

// stop ends the server: its stdin is closed, the child's process group is
// killed, and the FIFOs are removed.
func (p *confinedProcess) stop() error {
	p.in.Close()
	p.cancel()
	err := <-p.done
	p.done <- err
	p.out.Close()
	os.RemoveAll(p.dir)
	var ce *confine.Error
	if errors.As(err, &ce) && ce.Kind == confine.Canceled {
		return nil
	}
	return err
}

// exited waits for the confined server to end, or for ctx to be done,
// and returns why it ended: what ran it in the child said, like "exit
// status 1". An end already known is returned even when ctx is done.
func (p *confinedProcess) exited(ctx context.Context) (string, bool) {
	var err error
	select {
	case err = <-p.done:
	default:
		select {
		case err = <-p.done:
		case <-ctx.Done():
			return "", false
		}
	}
	p.done <- err
	var ce *confine.Error
	switch {
	case err == nil:
		return "with status 0", true
	case errors.As(err, &ce) && ce.Kind == confine.Failed && ce.What != "":
		return "(" + ce.What + ")", true
	}
	return "(" + err.Error() + ")", true
}

// serverLimits is l as the limits of the confined child; a zero (or
// negative) field takes the confinement's default.
func serverLimits(l tooling.Limits) confine.Limits {
	u := func(v int64) uint64 { return uint64(max(v, 0)) }
	return confine.Limits{CPUSeconds: u(int64(l.CPUSeconds)), MemoryBytes: u(l.MemoryBytes), OpenFiles: u(int64(l.OpenFiles)),
		FileSizeBytes: u(l.FileSizeBytes), Processes: u(int64(l.Processes)), TmpBytes: u(l.TmpBytes), TmpInodes: u(int64(l.TmpInodes))}
}
