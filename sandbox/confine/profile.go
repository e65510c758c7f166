//go:build linux

package confine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Profile says what a confined child may reach. Everything not listed is denied: no file system
// access beyond the listed paths (and the private temp dir, which is always there), no process
// start, no network, no environment.
type Profile struct {
	// ReadPaths may be read (files, or directories with everything beneath them).
	ReadPaths []string
	// WritePaths may be read, written, truncated, created in, removed from, and renamed within
	// and between one another. When the parent runs as root the child runs as uid/gid 65534, so
	// these paths must also be writable by that user (the private temp dir is chowned to it).
	WritePaths []string
	// Exec lists executables (absolute paths) the child may start. None by default: then the
	// seccomp filter also refuses execve and fork. Each listed file may be read and executed. A
	// dynamically linked executable implies the right to execute its ELF interpreter and to
	// read the loader cache and the system library directories (/lib, /lib64, /usr/lib,
	// /usr/lib64, /usr/local/lib, /etc/ld.so.cache). A script ("#!") implies nothing: its
	// interpreter must be listed too, or the child refuses to start (a listed shell runs any
	// command). Exec names the programs an honest tool starts; it is not a bound on the code a
	// compromised child runs: the ELF interpreter, run as a program, loads any ELF file the
	// child can read (its temp dir included), and everything started stays under the child's
	// Landlock rules, seccomp filter and limits.
	//
	// Programs are resolved as the other paths are (only root's symlinks followed), and so is
	// each ELF interpreter, which the parent reads from the program: a program or interpreter
	// must be a regular file outside every write grant of the profile, or the call is refused
	// (a program the child may rewrite could name any file as its interpreter, or be any code).
	// The child grants each from a descriptor of the very file the parent checked.
	Exec []string
	// ConnectTCP lists the TCP ports the child may connect to (any address). None by default.
	ConnectTCP []uint16
	// BindTCP lists the TCP ports the child may bind (0 means an ephemeral port). None by default.
	BindTCP []uint16
	// Env names the variables copied from the parent's environment (when set there). None by
	// default; besides these the child only gets TMPDIR (its private temp dir) and
	// MALLOC_ARENA_MAX=2 (see Limits.MemoryBytes).
	Env []string
	// Limits are the resource limits; a zero field takes the documented default.
	Limits Limits
	// Reuse lets a pooled worker serve more than one call (it keeps its state between calls:
	// globals, files in its temp dir, the CPU time used so far). Single use by default. A reused
	// worker only serves calls of one handler name and one ReuseKey, and only as long as no
	// goroutine is made during a call or between calls (so that a timer an earlier call armed
	// retires it once it fires: see [Pool]) and each call sends nothing but its response; it
	// cannot be combined with Exec (processes would outlive their call). What runs in the worker
	// can still change the worker itself: a reused worker is only as trustworthy as every
	// earlier call it served, and is for handlers that arm nothing that outlives their call.
	Reuse bool
	// ReuseKey narrows the calls a reused worker serves: a host whose one handler serves many
	// tools puts the tool's name here, so that no tool runs in a worker another tool ran in.
	// Ignored without Reuse.
	ReuseKey string
}

// Limits are the resource limits of a confined child. A zero field means the default named next to
// it; there is no "unlimited".
type Limits struct {
	// CPUSeconds is RLIMIT_CPU: the child dies of SIGXCPU after this much CPU time (SIGKILL a
	// second later if it survives that), and the call fails with the cpu limit. Default 30. A
	// reused worker spends it over all its calls, and retires once it may have spent half of it:
	// a call that spends at most half the limit never meets it for what earlier calls spent.
	CPUSeconds uint64
	// MemoryBytes is address space (RLIMIT_AS) the child may map on top of what the Go runtime
	// had mapped when it started (about 1.2 GiB of mostly reserved, untouched address space),
	// so a limit of 256 MiB means 256 MiB more. Default 1 GiB. Thread stacks count (8 MiB each
	// in a binary built with cgo), and so would glibc's per-thread malloc arenas, which the
	// child's environment caps with MALLOC_ARENA_MAX=2. Not applied in binaries built with the
	// race detector, whose shadow memory does not fit any such limit.
	MemoryBytes uint64
	// OpenFiles is RLIMIT_NOFILE. Default 256.
	OpenFiles uint64
	// FileSizeBytes is RLIMIT_FSIZE: the largest file the child may write. Default 64 MiB.
	FileSizeBytes uint64
	// Processes is RLIMIT_NPROC, which the kernel counts per real user over all of that user's
	// processes and threads (the Go runtime's threads count, and all children share uid 65534).
	// Default 512 when the child runs as uid 65534. When the parent is not root the child keeps
	// the caller's uid, whose count includes every process of that user, the host's own threads
	// among them: there the child's limit always stays 64 below the host's own soft limit (at
	// most half of it), so that a fork bomb leaves the host threads to live on; under that, an
	// explicit value is applied as it is, by default a child with Exec gets the user's count at
	// its start plus 512, and one without Exec only the ceiling (its own threads are capped
	// below). Being per user, the
	// limit bounds all children of a root host together, not one: each child also caps its own
	// Go runtime at this many threads (128 when Processes is not set), past which it ends with
	// the processes limit, whatever the host's uid.
	Processes uint64
	// ResponseBytes bounds the handler's response, which the parent reads and holds in memory:
	// a larger one fails the call with the limit "response". The parent reads the size from the
	// frame's header and refuses it before it allocates anything for it, whatever the child
	// claims. Default and most MaxMessageBytes.
	ResponseBytes uint64
	// TmpBytes and TmpInodes bound what the private temp dir may hold: bytes of disk (blocks
	// allocated, so sparse files count what they use) and entries. When the parent is root the
	// dir is a tmpfs of that size and inode count, and a write past it fails with ENOSPC (the
	// limit "disk"); otherwise the parent measures the dir while the child runs and once more
	// before it returns an answer, and kills the child over budget (the limit "tmpdir"): a child
	// may then briefly hold more between two measures. Defaults 256 MiB and 16384. Write grants
	// (WritePaths) have no such budget: only FileSizeBytes bounds each file written there.
	TmpBytes  uint64
	TmpInodes uint64
}

// The defaults of Limits.
const (
	DefaultCPUSeconds    = 30
	DefaultMemoryBytes   = 1 << 30
	DefaultOpenFiles     = 256
	DefaultFileSizeBytes = 64 << 20
	DefaultProcesses     = 512
	DefaultTmpBytes      = 256 << 20
	DefaultTmpInodes     = 16384
)

// WithDefaults returns l with every zero field set to its default.
func (l Limits) WithDefaults() Limits {
	def := func(v, d uint64) uint64 {
		if v == 0 {
			return d
		}
		return v
	}
	return Limits{
		CPUSeconds:    def(l.CPUSeconds, DefaultCPUSeconds),
		MemoryBytes:   def(l.MemoryBytes, DefaultMemoryBytes),
		OpenFiles:     def(l.OpenFiles, DefaultOpenFiles),
		FileSizeBytes: def(l.FileSizeBytes, DefaultFileSizeBytes),
		Processes:     def(l.Processes, DefaultProcesses),
		ResponseBytes: min(def(l.ResponseBytes, MaxMessageBytes), MaxMessageBytes),
		TmpBytes:      def(l.TmpBytes, DefaultTmpBytes),
		TmpInodes:     def(l.TmpInodes, DefaultTmpInodes),
	}
}

// Bounds are the configuration side of confinement. They can only narrow a Profile (see
// [Profile.Narrow]); a nil slice does not restrict that dimension, an empty non-nil slice allows
// nothing, and a zero limit does not cap that limit.
type Bounds struct {
	// AllowedRoots bound every path of a profile: a path is kept only if it lies under one of
	// them (both compared after symlinks are resolved; see Narrow).
	AllowedRoots []string
	// AllowedPorts bound ConnectTCP and BindTCP.
	AllowedPorts []uint16
	// MaxLimits caps each limit (zero fields do not cap).
	MaxLimits Limits
	// AllowUnconfined lets a host run a call without confinement when confinement is unavailable
	// on this machine. This package never does so itself: Run always fails closed with
	// Unavailable; the host may then run the handler in-process and must say so in its result.
	AllowUnconfined bool
}

// Narrow returns the intersection of p and pol: narrowest wins. Paths are made clean, their
// existing prefix has its symlinks resolved (only root's links in directories only root changes:
// a path through any other link is dropped), and they are kept only when under an allowed root
// (whose own symlinks are all resolved: the configuration names it);
// ports outside the allowed ones are dropped; each limit is the lower of the profile's (or its
// default) and the policy's cap. The second result says what was dropped or lowered and why, one
// line each. Narrow never widens: an element is never added.
func (p Profile) Narrow(pol Bounds) (Profile, []string) {
	var dropped []string
	var roots []string
	// The roots are resolved only for a profile that names paths (the resolution reads the file
	// system, and a profile without paths is the common case of a tool called again and again).
	if pol.AllowedRoots != nil && len(p.ReadPaths)+len(p.WritePaths)+len(p.Exec) > 0 {
		roots = []string{}
		for _, r := range pol.AllowedRoots {
			rr, err := resolveRoot(r)
			if err != nil {
				dropped = append(dropped, fmt.Sprintf("allowed root %q: %v (ignored)", r, err))
				continue
			}
			roots = append(roots, rr)
		}
	}
	paths := func(kind string, in []string) []string {
		var out []string
		for _, s := range in {
			r, err := resolvePath(s)
			switch {
			case err != nil:
				dropped = append(dropped, fmt.Sprintf("%s %q: %v", kind, s, err))
			case roots != nil && !underAny(r, roots):
				dropped = append(dropped, fmt.Sprintf("%s %q: outside the allowed roots", kind, s))
			default:
				out = append(out, r)
			}
		}
		return sortedUnique(out)
	}
	ports := func(kind string, in []uint16) []uint16 {
		var out []uint16
		for _, port := range in {
			if pol.AllowedPorts != nil && !slices.Contains(pol.AllowedPorts, port) {
				dropped = append(dropped, fmt.Sprintf("%s port %d: not an allowed port", kind, port))
				continue
			}
			out = append(out, port)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	var env []string
	for _, name := range p.Env {
		if err := checkEnvName(name); err != nil {
			dropped = append(dropped, fmt.Sprintf("env %q: %v", name, err))
			continue
		}
		env = append(env, name)
	}
	l := p.Limits.WithDefaults()
	capLimit := func(name string, v *uint64, max uint64) {
		if max != 0 && *v > max {
			dropped = append(dropped, fmt.Sprintf("limit %s: %d lowered to %d by the policy", name, *v, max))
			*v = max
		}
	}
	capLimit("cpu", &l.CPUSeconds, pol.MaxLimits.CPUSeconds)
	capLimit("memory", &l.MemoryBytes, pol.MaxLimits.MemoryBytes)
	capLimit("files", &l.OpenFiles, pol.MaxLimits.OpenFiles)
	capLimit("filesize", &l.FileSizeBytes, pol.MaxLimits.FileSizeBytes)
	capLimit("processes", &l.Processes, pol.MaxLimits.Processes)
	capLimit("response", &l.ResponseBytes, pol.MaxLimits.ResponseBytes)
	capLimit("tmpbytes", &l.TmpBytes, pol.MaxLimits.TmpBytes)
	capLimit("tmpinodes", &l.TmpInodes, pol.MaxLimits.TmpInodes)
	if p.Limits.Processes == 0 && l.Processes == DefaultProcesses {
		// Keep "default" rather than an explicit value, so that the rule for a non-root parent
		// (no default process limit) still holds.
		l.Processes = 0
	}
	return Profile{
		ReadPaths:  paths("read", p.ReadPaths),
		WritePaths: paths("write", p.WritePaths),
		Exec:       paths("exec", p.Exec),
		ConnectTCP: ports("connect", p.ConnectTCP),
		BindTCP:    ports("bind", p.BindTCP),
		Env:        sortedUnique(env),
		Limits:     l,
		Reuse:      p.Reuse,
		ReuseKey:   p.ReuseKey,
	}, dropped
}

// Hash returns a stable digest of the profile (the first 16 hex digits of a SHA-256 over its
// sorted, de-duplicated fields, with default limits filled in): two profiles that grant the same
// thing hash the same, whatever their order. Paths are hashed as written; hash a narrowed profile
// to hash what is granted.
func (p Profile) Hash() string {
	var b strings.Builder
	list := func(tag string, ss []string) {
		for _, s := range sortedUnique(slices.Clone(ss)) {
			b.WriteString(tag)
			b.WriteByte(0)
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	portList := func(tag string, ps []uint16) {
		ps = slices.Clone(ps)
		slices.Sort(ps)
		for _, port := range slices.Compact(ps) {
			b.WriteString(tag)
			b.WriteByte(0)
			b.WriteString(strconv.Itoa(int(port)))
			b.WriteByte('\n')
		}
	}
	b.WriteString("confine-profile-v1\n")
	list("read", p.ReadPaths)
	list("write", p.WritePaths)
	list("exec", p.Exec)
	portList("connect", p.ConnectTCP)
	portList("bind", p.BindTCP)
	list("env", p.Env)
	l := p.Limits.WithDefaults()
	fmt.Fprintf(&b, "limits\x00%d %d %d %d %d %d %d %d\nreuse\x00%t\n",
		l.CPUSeconds, l.MemoryBytes, l.OpenFiles, l.FileSizeBytes, l.Processes, l.ResponseBytes, l.TmpBytes, l.TmpInodes, p.Reuse)
	if p.Reuse && p.ReuseKey != "" {
		fmt.Fprintf(&b, "reusekey\x00%q\n", p.ReuseKey)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:8])
}

// resolvePath makes an absolute path clean and resolves the symlinks of its longest existing
// prefix; the part that does not exist yet is appended as is (after Clean it holds no "..").
//
// Only a symlink that no confined child can have made or moved is followed: one owned by root,
// in a directory owned by root that nobody else may change (not group- or world-writable, or
// sticky). Any other symlink in the path is an error: a child allowed to write where it lies
// (a workspace shared by tools) could have pointed it anywhere, and so widened the grants of
// every later call that names the path.
func resolvePath(p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", errors.New("not an absolute path")
	}
	if strings.IndexByte(p, 0) >= 0 {
		return "", errors.New("holds a NUL byte")
	}
	parts := strings.Split(filepath.Clean(p), "/")[1:]
	cur := "/"
	for links := 0; len(parts) > 0; {
		name := parts[0]
		parts = parts[1:]
		if name == "" {
			continue
		}
		next := filepath.Join(cur, name)
		var st unix.Stat_t
		if err := unix.Lstat(next, &st); err != nil {
			if errors.Is(err, unix.ENOENT) {
				return filepath.Join(append([]string{next}, parts...)...), nil
			}
			return "", &fs.PathError{Op: "lstat", Path: next, Err: err}
		}
		if st.Mode&unix.S_IFMT != unix.S_IFLNK {
			cur = next
			continue
		}
		if links++; links > 40 {
			return "", &fs.PathError{Op: "resolve", Path: p, Err: unix.ELOOP}
		}
		if err := trustedLink(cur, next, &st); err != nil {
			return "", err
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target) // cur holds no symlink: ".." is lexical
		}
		parts = append(strings.Split(filepath.Clean(target), "/")[1:], parts...)
		cur = "/"
	}
	return cur, nil
}

// trustedLink checks that the symlink link (st) in dir is one resolvePath may follow.
func trustedLink(dir, link string, st *unix.Stat_t) error {
	var d unix.Stat_t
	if err := unix.Stat(dir, &d); err != nil {
		return &fs.PathError{Op: "stat", Path: dir, Err: err}
	}
	if st.Uid != 0 || d.Uid != 0 || d.Mode&0o022 != 0 && d.Mode&unix.S_ISVTX == 0 {
		return fmt.Errorf("%s is a symlink that is not root's in a directory only root changes (link uid %d, directory uid %d mode %#o): name the path it leads to", link, st.Uid, d.Uid, d.Mode&0o7777)
	}
	return nil
}

// resolveRoot resolves every symlink of an allowed root: the configuration names it, and it is
// trusted as it resolves now.
func resolveRoot(p string) (string, error) {
	if p == "" || !filepath.IsAbs(p) {
		return "", errors.New("not an absolute path")
	}
	cur, rest := filepath.Clean(p), ""
	for {
		r, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) || filepath.Dir(cur) == cur {
			return "", err
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = filepath.Dir(cur)
	}
}

// under reports whether path is root or lies beneath it (both clean and absolute).
func under(path, root string) bool {
	if root == "/" || path == root {
		return true
	}
	return strings.HasPrefix(path, root+"/")
}

func underAny(path string, roots []string) bool {
	for _, r := range roots {
		if under(path, r) {
			return true
		}
	}
	return false
}

func sortedUnique(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}

// checkEnvName accepts the names a child may be given: non-empty, no '=' or NUL, and not one of
// the variables the parent sets itself.
func checkEnvName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case strings.ContainsAny(name, "=\x00"):
		return errors.New("not a variable name")
	case name == envMarker || name == "TMPDIR":
		return errors.New("set by the parent itself")
	}
	return nil
}

// checkPrograms checks the programs of a profile (resolved paths) against its write grants
// (resolved, before any split) and returns the ELF interpreters they need, resolved as profile
// paths are. A program, and the interpreter of a program, must be a regular file that lies in no
// write grant: a program the child may rewrite is not an allow-list (it could become any code,
// or name any file as its interpreter). A script's "#!" interpreter must be listed itself.
func checkPrograms(execs, writes []string) (interps []string, err error) {
	for _, e := range execs {
		if err := checkProgram("exec "+e, e, writes); err != nil {
			return nil, err
		}
		if sh := shebang(e); sh != "" {
			r, err := resolvePath(sh)
			if err != nil {
				return nil, fmt.Errorf("exec %s: its interpreter %s: %v", e, sh, err)
			}
			if !slices.Contains(execs, r) {
				return nil, fmt.Errorf("exec %s: a script for %s, which the profile's Exec does not list (list it too, knowing that it then runs anything)", e, sh)
			}
			continue
		}
		in := elfInterp(e)
		if in == "" {
			continue
		}
		r, err := resolvePath(in)
		if err != nil {
			return nil, fmt.Errorf("exec %s: its ELF interpreter %s: %v", e, in, err)
		}
		if err := checkProgram(fmt.Sprintf("exec %s: its ELF interpreter %s", e, in), r, writes); err != nil {
			return nil, err
		}
		if !slices.Contains(interps, r) {
			interps = append(interps, r)
		}
	}
	return interps, nil
}

// checkProgram checks that path (resolved) is a regular file outside every write grant; what
// names it in the error.
func checkProgram(what, path string, writes []string) error {
	var st unix.Stat_t
	err := unix.Lstat(path, &st)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil // nothing to grant: the child makes no rule
	case err != nil:
		return fmt.Errorf("%s: %w", what, err)
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%s: not a regular file", what)
	}
	for _, w := range writes {
		if under(path, w) {
			return fmt.Errorf("%s: lies inside the write grant %s: a program the child may rewrite is not an allow-list (keep programs outside every write grant)", what, w)
		}
	}
	return nil
}
