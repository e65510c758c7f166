//go:build linux

package confine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// MinLandlockABI is the lowest Landlock ABI the child accepts: 4 brings TCP bind/connect rules,
// 5 ioctl on devices, 6 the IPC scopes (abstract unix sockets, signals). Without them a child
// could connect anywhere or reach host processes, so below it the child refuses to run.
//
// The ABI is checked here, from the kernel, and the ruleset asks for exactly the ABI 6 rights:
// go-landlock's BestEffort would silently drop what the kernel lacks, down to no confinement at
// all, so it is never used.
const MinLandlockABI = 6

// envFakeABI, when set in the child's environment (pass its name in Profile.Env), lowers the ABI
// the child believes the kernel has. It can only lower it, so it can only make the child refuse:
// tests use it to prove that an old kernel fails closed.
const envFakeABI = "TOOLEXPLORER_CONFINE_FAKE_ABI"

// The ABI 6 access sets, spelled out.
const (
	handledFS uint64 = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSReadDir | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeChar |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeBlock | ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate |
		ll.AccessFSIoctlDev
	handledNet uint64 = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	scoped     uint64 = ll.ScopeAbstractUnixSocket | ll.ScopeSignal

	// Rights that apply to a file (the kernel refuses directory rights on a file).
	fileRights uint64 = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev

	readRights uint64 = ll.AccessFSReadFile | ll.AccessFSReadDir
	// Write grants make directories, files and symlinks, never a socket or a FIFO: the seccomp
	// filter refuses unix sockets and mknod whatever the profile, and without these rights
	// Landlock refuses their names too (a socket bound as .envrc, a FIFO named .git), whatever
	// descriptor or call could reach them. The supervised mode could not make those names from
	// its own copy of the path as it does for open: bind's address may name any family (an
	// address checked, then let through, is read again by the kernel, and may then be a unix
	// path), and the child's own sockets are out of the supervisor's reach (pidfd_getfd needs a
	// dumpable child).
	writeRights uint64 = readRights | ll.AccessFSWriteFile | ll.AccessFSTruncate |
		ll.AccessFSRemoveDir | ll.AccessFSRemoveFile | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
		ll.AccessFSMakeSym | ll.AccessFSRefer
	// The private temp dir, outside every write grant, may hold sockets and FIFOs (none can be
	// moved or linked into a write grant: that needs the right to make one there).
	tmpRights  uint64 = writeRights | ll.AccessFSMakeSock | ll.AccessFSMakeFifo
	execRights uint64 = ll.AccessFSExecute | readRights
)

// rulesetFor returns the handled rights for an ABI of at least MinLandlockABI: the ABI 6 sets,
// plus what later ABIs add and no rule here ever grants: connecting to pathname unix sockets
// (ABI 9) and UDP (ABI 10). The seccomp filter refuses those sockets too.
func rulesetFor(abi int) ll.RulesetAttr {
	attr := ll.RulesetAttr{HandledAccessFS: handledFS, HandledAccessNet: handledNet, Scoped: scoped}
	if abi >= 9 {
		attr.HandledAccessFS |= ll.AccessFSResolveUnix
	}
	if abi >= 10 {
		attr.HandledAccessNet |= ll.AccessNetBindUDP | ll.AccessNetConnectSendUDP
	}
	return attr
}

// landlockABI returns the kernel's Landlock ABI (0 when Landlock is missing or disabled). An ABI of
// 6 or more whose signal-scoping erratum is not fixed counts as 5, as go-landlock does.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0, fmt.Errorf("landlock_create_ruleset(VERSION): %w", errno)
	}
	abi := int(v)
	if abi >= 6 {
		errata, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_ERRATA)
		if errno != 0 || errata&0x2 == 0 {
			abi = 5
		}
	}
	return abi, nil
}

// childABI is landlockABI as the child sees it, lowered by envFakeABI when that is set.
func childABI() (int, error) {
	abi, err := landlockABI()
	if s, ok := os.LookupEnv(envFakeABI); ok {
		os.Unsetenv(envFakeABI)
		if n, perr := strconv.Atoi(s); perr == nil && n < abi {
			return n, nil
		}
	}
	return abi, err
}

// Available reports whether this machine can confine a child: Landlock with at least
// MinLandlockABI, seccomp, and a seccomp filter built into the binary. It is what a child checks
// first; a nil result does not promise that a particular profile will apply.
func Available() error {
	abi, err := landlockABI()
	if err != nil {
		return fmt.Errorf("landlock unavailable: %w", err)
	}
	if abi < MinLandlockABI {
		return fmt.Errorf("landlock ABI %d is below the minimum %d", abi, MinLandlockABI)
	}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("seccomp unavailable: %w", err)
	}
	if installSeccomp == nil {
		return errors.New("seccomp filter not built into this binary")
	}
	return nil
}

// pathRule is one path and the rights it gets.
type pathRule struct {
	path   string
	rights uint64
	// system marks a path the profile did not name (the temp dir, /dev/null, the loader): its
	// symlinks may be followed, and it may be missing.
	system bool
	// fd is an open descriptor of the object, used when path is "" (the temp dir).
	fd int
	// id is the object the parent found at path ({0, 0}: none), checked when check is set.
	id    dirID
	check bool
	// program marks a program or an interpreter: it must be a regular file.
	program bool
}

// landlockRules lists the path rules of a setup, in order. Every path the profile names, and
// every interpreter its programs need, is granted from a descriptor of the object the parent
// checked (device and inode).
func landlockRules(s *setupMsg) ([]pathRule, error) {
	var rules []pathRule
	for _, p := range s.read {
		rules = append(rules, pathRule{path: p, rights: readRights})
	}
	for _, p := range s.write {
		rules = append(rules, pathRule{path: p, rights: writeRights})
	}
	for _, p := range s.exec {
		rules = append(rules, pathRule{path: p, rights: execRights, program: true})
	}
	for _, p := range s.interp {
		rules = append(rules, pathRule{path: p, rights: ll.AccessFSExecute | ll.AccessFSReadFile, program: true})
	}
	for i := range rules {
		if i < len(s.ids) {
			rules[i].id, rules[i].check = s.ids[i], true
		}
	}
	if s.tmpFD >= 0 {
		rules = append(rules, pathRule{fd: s.tmpFD, rights: tmpRights, system: true})
	}
	// os/exec opens /dev/null for a command's missing stdin, stdout or stderr.
	rules = append(rules, pathRule{path: "/dev/null", rights: ll.AccessFSReadFile | ll.AccessFSWriteFile, system: true})
	if len(s.interp) > 0 {
		// A dynamically linked program reads the loader cache and the system libraries.
		for _, d := range []string{"/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib"} {
			rules = append(rules, pathRule{path: d, rights: readRights, system: true})
		}
		rules = append(rules, pathRule{path: "/etc/ld.so.cache", rights: ll.AccessFSReadFile, system: true})
	}
	return rules, nil
}

// elfInterp returns the program interpreter (PT_INTERP) of a 64-bit little-endian ELF
// executable, or "" for a static one or anything else.
func elfInterp(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var hdr [64]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil || string(hdr[:4]) != "\x7fELF" || hdr[4] != 2 || hdr[5] != 1 {
		return ""
	}
	le := binary.LittleEndian
	phoff, phentsize, phnum := le.Uint64(hdr[32:]), int64(le.Uint16(hdr[54:])), int64(le.Uint16(hdr[56:]))
	if phentsize < 56 || phnum > 256 || phoff > 1<<30 {
		return ""
	}
	ph := make([]byte, 56)
	for i := int64(0); i < phnum; i++ {
		if _, err := f.ReadAt(ph, int64(phoff)+i*phentsize); err != nil {
			return ""
		}
		if le.Uint32(ph[0:]) != 3 { // PT_INTERP
			continue
		}
		off, size := le.Uint64(ph[8:]), le.Uint64(ph[32:])
		if size == 0 || size > 4096 || off > 1<<30 {
			return ""
		}
		b := make([]byte, size)
		if _, err := f.ReadAt(b, int64(off)); err != nil {
			return ""
		}
		return strings.TrimRight(string(b), "\x00")
	}
	return ""
}

// shebang returns the interpreter a "#!" script names, or "".
func shebang(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" || !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(strings.TrimPrefix(line, "#!"))
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return ""
	}
	return fields[0]
}

// applyLandlock builds one ruleset (file system paths, TCP ports, IPC scopes) and enforces it on
// every thread of the process. Profile paths were resolved by the parent and are opened without
// following any symlink, so a path swapped for a symlink since then fails the call instead of
// granting the link's target. A profile path that does not exist gets no rule (nothing to grant).
//
// Landlock needs no_new_privs on every thread; nnp says that the seccomp filter set it already.
// beforeRestrict, when not nil, gets the ruleset before it is enforced (the supervisor's start).
func applyLandlock(s *setupMsg, abi int, nnp bool, beforeRestrict func(rulesetFD int) error) (notes []string, err error) {
	if abi < MinLandlockABI {
		return nil, fmt.Errorf("landlock ABI %d is below the minimum %d", abi, MinLandlockABI)
	}
	attr := rulesetFor(abi)
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(fd)

	// With cgo, the all-threads calls go through libpsx, which lists /proc/PID/task after each
	// one (go-landlock issue 39): it must stay listable. Listing its own threads gives a child
	// nothing; without cgo the rule is not needed.
	rules, err := landlockRules(s)
	if err != nil {
		return nil, err
	}
	if cgoEnabled {
		rules = append(rules, pathRule{path: fmt.Sprintf("/proc/%d/task", os.Getpid()), rights: ll.AccessFSReadDir, system: true})
	}
	for _, r := range rules {
		note, err := addPathRule(fd, r)
		if err != nil {
			return nil, err
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	ports := map[uint16]uint64{}
	for _, p := range s.connect {
		ports[p] |= ll.AccessNetConnectTCP
	}
	for _, p := range s.bind {
		ports[p] |= ll.AccessNetBindTCP
	}
	for port, access := range ports {
		if err := ll.LandlockAddNetPortRule(fd, &ll.NetPortAttr{AllowedAccess: access, Port: uint64(port)}, 0); err != nil {
			return nil, fmt.Errorf("landlock_add_rule(port %d): %w", port, err)
		}
	}
	if !nnp {
		if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			return nil, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS) on all threads: %w", err)
		}
	}
	if beforeRestrict != nil {
		if err := beforeRestrict(fd); err != nil {
			return notes, err
		}
	}
	if err := ll.AllThreadsLandlockRestrictSelf(fd, 0); err != nil {
		return nil, fmt.Errorf("landlock_restrict_self on all threads: %w", err)
	}
	return notes, nil
}

// addPathRule adds one path-beneath rule, with the rights cut down to file rights when the path is
// not a directory.
func addPathRule(rulesetFD int, r pathRule) (note string, err error) {
	how := &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	path := r.path
	if r.system {
		how.Resolve = unix.RESOLVE_NO_MAGICLINKS
	}
	var fd int
	if path == "" {
		// An open descriptor: dup it, as it is closed below like the others.
		path = fmt.Sprintf("descriptor %d", r.fd)
		fd, err = unix.FcntlInt(uintptr(r.fd), unix.F_DUPFD_CLOEXEC, 0)
	} else {
		fd, err = unix.Openat2(unix.AT_FDCWD, path, how)
	}
	if err != nil {
		if errors.Is(err, unix.ENOENT) {
			if r.system {
				return "", nil
			}
			return fmt.Sprintf("%s does not exist: no rule", path), nil
		}
		if errors.Is(err, unix.ELOOP) {
			return "", fmt.Errorf("path %s has a symlink in it since the profile was resolved", path)
		}
		return "", fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", fmt.Errorf("stat %s: %w", path, err)
	}
	if r.check && r.id != (dirID{dev: uint64(st.Dev), ino: st.Ino}) {
		// Made, or swapped for another object, since the parent resolved and checked it.
		return "", fmt.Errorf("path %s is not the object the parent checked (device and inode changed)", path)
	}
	if r.program && st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "", fmt.Errorf("program %s is not a regular file", path)
	}
	rights := r.rights
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		rights &= fileRights
	}
	if rights == 0 {
		return "", nil
	}
	if err := ll.LandlockAddPathBeneathRule(rulesetFD, &ll.PathBeneathAttr{AllowedAccess: rights, ParentFd: fd}, 0); err != nil {
		return "", fmt.Errorf("landlock_add_rule(%s): %w", path, err)
	}
	return "", nil
}
