//go:build linux

package confine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// envSplitMode, when a profile's Env names it and it is set in the parent's environment, makes
// the parent use ModeSplit for that profile's children. It can only choose the mode that holds
// less: tests use it to exercise the fallback on a machine with user namespaces.
const envSplitMode = "TOOLEXPLORER_CONFINE_SPLIT_MODE"

// envNamespaceMode does the same for ModeNamespace where ModeSupervised applies.
const envNamespaceMode = "TOOLEXPLORER_CONFINE_NAMESPACE_MODE"

var (
	modeOnce   sync.Once
	modeOf     Mode
	modeReason string
)

// ProtectionMode reports how this process's children keep protected names read-only, and for
// ModeSplit why user namespaces cannot be used (for ModeNamespace, why the supervisor cannot).
// The first call finds out by starting a child in a user and mount namespace, and then one with
// its supervisor (it needs [Main] to have been called; before that it reports ModeSplit without
// trying, and tries again at the next call).
func ProtectionMode() (Mode, string) {
	if !mainCalled {
		return ModeSplit, "confine.Main is not called first in main"
	}
	modeOnce.Do(probeNamespaces)
	return modeOf, modeReason
}

// profileMode is the mode for a profile's children. A profile without write paths has nothing
// to protect: its children start without namespaces, which costs less.
func profileMode(p Profile) Mode {
	if len(p.WritePaths) == 0 {
		return ModeSplit
	}
	m, _ := ProtectionMode()
	forced := func(env string) bool { return slices.Contains(p.Env, env) && os.Getenv(env) == "1" }
	if m != ModeSplit && forced(envSplitMode) {
		return ModeSplit
	}
	if m == ModeSupervised && forced(envNamespaceMode) {
		return ModeNamespace
	}
	return m
}

// mode is the protection mode of the setup.
func (s *setupMsg) mode() Mode {
	switch {
	case s.supervise:
		return ModeSupervised
	case s.nsMode:
		return ModeNamespace
	}
	return ModeSplit
}

// probeNamespaces starts a child that sets up its namespaces and confines itself, and waits for
// it to say it is ready; then, where the kernel has what the supervisor needs, one that starts
// its supervisor too.
func probeNamespaces() {
	modeOf, modeReason = ModeSplit, ""
	if err := probe(ModeNamespace); err != nil {
		modeReason = "user namespaces are unavailable here: " + err.Error()
		return
	}
	modeOf = ModeNamespace
	err := supervisorSupport()
	if err == nil {
		err = probe(ModeSupervised)
	}
	if err != nil {
		modeReason = "protected names a call creates are moved aside after it, not refused as they are made: " + err.Error()
		return
	}
	modeOf = ModeSupervised
}

// probe starts a child in mode m and waits until it is confined and ready.
func probe(m Mode) error {
	s, err := buildSetup(Profile{}, m)
	if err == nil {
		var pr *proc
		if pr, err = startSetup(s); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
			stop := pr.watch(ctx)
			err = pr.awaitReady()
			stop()
			cancel()
			pr.release()
		}
	}
	var e *Error
	if errors.As(err, &e) {
		err = errors.New(e.What)
	}
	return err
}

// namespaceAttr makes the child of attr start in a user namespace that maps its uid and gid (the
// ones it runs as) to themselves, with a mount namespace of its own, and keep CAP_SYS_ADMIN in
// that namespace through exec, for its mounts.
func namespaceAttr(attr *syscall.SysProcAttr, s *setupMsg) {
	uid, gid := os.Geteuid(), os.Getegid()
	if s.dropUID {
		uid, gid = s.uid, s.gid
		// Root may let the child drop its groups in the namespace.
		attr.GidMappingsEnableSetgroups = true
	}
	attr.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
}

// protectMounts, in the child, makes its mounts private and mounts each protected entry of the
// setup read-only over itself, from a descriptor of the object the parent found (device and
// inode), then drops every capability on every thread.
func protectMounts(s *setupMsg) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	if err := privateTmpfs(s); err != nil {
		return err
	}
	base := len(s.read) + len(s.write) + len(s.exec) + len(s.interp)
	for i, p := range s.protect {
		if err := readOnlyMount(p, s.ids[base+i]); err != nil {
			return err
		}
	}
	return dropCapabilities()
}

// readOnlyMount mounts the object at path (which must be id) read-only over itself. One that
// is gone since the parent looked needs nothing.
func readOnlyMount(path string, id dirID) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("protected %s: open: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("protected %s: %w", path, err)
	}
	if id != (dirID{dev: uint64(st.Dev), ino: st.Ino}) {
		return fmt.Errorf("protected %s is not the object the parent found (device and inode changed)", path)
	}
	tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH|unix.AT_RECURSIVE)
	if err != nil {
		return fmt.Errorf("protected %s: open_tree: %w", path, err)
	}
	defer unix.Close(tree)
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("protected %s: mount_setattr: %w", path, err)
	}
	if err := unix.MoveMount(tree, "", fd, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH); err != nil {
		return fmt.Errorf("protected %s: move_mount: %w", path, err)
	}
	return nil
}

// dropCapabilities clears every capability set (the ambient one with the permitted) on every
// thread, and checks it on this one.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, errno := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); errno != 0 {
		return fmt.Errorf("capset on all threads: %w", errno)
	}
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0] != (unix.CapUserData{}) || data[1] != (unix.CapUserData{}) {
		return fmt.Errorf("capabilities left after dropping them: %+v", data)
	}
	return nil
}

// privateTmpfs mounts a tmpfs of the temp dir budget on the child's private temp dir (opened as
// s.tmpFD), in its own namespace, and moves into it: s.tmpFD is then the tmpfs.
func privateTmpfs(s *setupMsg) error {
	opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0700", s.limits.TmpBytes, s.limits.TmpInodes)
	if err := unix.Mount("toolexplorer-tmp", fmt.Sprintf("/proc/self/fd/%d", s.tmpFD), "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("mounting the private temp dir: %w", err)
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, s.tmpDir, &unix.OpenHow{Flags: unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return fmt.Errorf("opening the private temp dir: %w", err)
	}
	var fs unix.Statfs_t
	if err := unix.Fstatfs(fd, &fs); err != nil || fs.Type != unix.TMPFS_MAGIC {
		unix.Close(fd)
		return fmt.Errorf("the private temp dir is not the tmpfs just mounted (%v)", err)
	}
	if err := unix.Fchdir(fd); err != nil {
		unix.Close(fd)
		return err
	}
	unix.Close(s.tmpFD)
	s.tmpFD = fd
	return nil
}
