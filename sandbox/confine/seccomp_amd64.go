//go:build linux && amd64

package confine

import "golang.org/x/sys/unix"

func init() { nativeSeccomp = &seccompAMD64 }

// seccompAMD64 is the x86_64 table (numbers of arch/x86/entry/syscalls/syscall_64.tbl, through
// golang.org/x/sys/unix).
var seccompAMD64 = seccompArch{
	name:   "x86_64",
	audit:  unix.AUDIT_ARCH_X86_64,
	x32Bit: 0x40000000, // __X32_SYSCALL_BIT

	deny: []sysno{
		// Reaching into other processes.
		{"ptrace", unix.SYS_PTRACE},
		{"process_vm_readv", unix.SYS_PROCESS_VM_READV},
		{"process_vm_writev", unix.SYS_PROCESS_VM_WRITEV},
		{"process_madvise", unix.SYS_PROCESS_MADVISE},
		{"pidfd_getfd", unix.SYS_PIDFD_GETFD},
		{"kcmp", unix.SYS_KCMP},
		// Mounts and the root.
		{"mount", unix.SYS_MOUNT},
		{"umount2", unix.SYS_UMOUNT2},
		{"pivot_root", unix.SYS_PIVOT_ROOT},
		{"chroot", unix.SYS_CHROOT},
		{"move_mount", unix.SYS_MOVE_MOUNT},
		{"open_tree", unix.SYS_OPEN_TREE},
		{"open_tree_attr", unix.SYS_OPEN_TREE_ATTR},
		{"fsopen", unix.SYS_FSOPEN},
		{"fsconfig", unix.SYS_FSCONFIG},
		{"fsmount", unix.SYS_FSMOUNT},
		{"fspick", unix.SYS_FSPICK},
		{"mount_setattr", unix.SYS_MOUNT_SETATTR},
		// Namespaces (clone is decided by its flags, clone3 gets ENOSYS).
		{"unshare", unix.SYS_UNSHARE},
		{"setns", unix.SYS_SETNS},
		// Leaving the process group: the parent kills the child's whole group at the deadline,
		// and a process in a session or group of its own would outlive that kill.
		{"setsid", unix.SYS_SETSID},
		{"setpgid", unix.SYS_SETPGID},
		// Kernel attack surface and side channels.
		{"bpf", unix.SYS_BPF},
		{"perf_event_open", unix.SYS_PERF_EVENT_OPEN},
		{"userfaultfd", unix.SYS_USERFAULTFD},
		{"keyctl", unix.SYS_KEYCTL},
		{"add_key", unix.SYS_ADD_KEY},
		{"request_key", unix.SYS_REQUEST_KEY},
		{"io_uring_setup", unix.SYS_IO_URING_SETUP},
		{"io_uring_enter", unix.SYS_IO_URING_ENTER},
		{"io_uring_register", unix.SYS_IO_URING_REGISTER},
		{"personality", unix.SYS_PERSONALITY},
		// Kernel code and machine state.
		{"kexec_load", unix.SYS_KEXEC_LOAD},
		{"kexec_file_load", unix.SYS_KEXEC_FILE_LOAD},
		{"init_module", unix.SYS_INIT_MODULE},
		{"finit_module", unix.SYS_FINIT_MODULE},
		{"delete_module", unix.SYS_DELETE_MODULE},
		{"swapon", unix.SYS_SWAPON},
		{"swapoff", unix.SYS_SWAPOFF},
		{"reboot", unix.SYS_REBOOT},
		{"acct", unix.SYS_ACCT},
		{"quotactl", unix.SYS_QUOTACTL},
		{"quotactl_fd", unix.SYS_QUOTACTL_FD},
		{"syslog", unix.SYS_SYSLOG},
		{"iopl", unix.SYS_IOPL},
		{"ioperm", unix.SYS_IOPERM},
		{"settimeofday", unix.SYS_SETTIMEOFDAY},
		{"clock_settime", unix.SYS_CLOCK_SETTIME},
		{"vhangup", unix.SYS_VHANGUP},
		// Files by handle, device nodes.
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT},
		{"name_to_handle_at", unix.SYS_NAME_TO_HANDLE_AT},
		{"mknod", unix.SYS_MKNOD},
		{"mknodat", unix.SYS_MKNODAT},
		// System V IPC: shared between every process of the host that shares the IPC namespace.
		{"shmget", unix.SYS_SHMGET},
		{"shmat", unix.SYS_SHMAT},
		{"shmctl", unix.SYS_SHMCTL},
		{"shmdt", unix.SYS_SHMDT},
		{"msgget", unix.SYS_MSGGET},
		{"msgsnd", unix.SYS_MSGSND},
		{"msgrcv", unix.SYS_MSGRCV},
		{"msgctl", unix.SYS_MSGCTL},
		{"semget", unix.SYS_SEMGET},
		{"semop", unix.SYS_SEMOP},
		{"semtimedop", unix.SYS_SEMTIMEDOP},
		{"semctl", unix.SYS_SEMCTL},
		// File metadata, which Landlock does not govern: modes, owners, extended attributes
		// (POSIX ACLs among them), times by path.
		{"chmod", unix.SYS_CHMOD},
		{"fchmod", unix.SYS_FCHMOD},
		{"fchmodat", unix.SYS_FCHMODAT},
		{"fchmodat2", unix.SYS_FCHMODAT2},
		{"chown", unix.SYS_CHOWN},
		{"fchown", unix.SYS_FCHOWN},
		{"lchown", unix.SYS_LCHOWN},
		{"fchownat", unix.SYS_FCHOWNAT},
		{"setxattr", unix.SYS_SETXATTR},
		{"lsetxattr", unix.SYS_LSETXATTR},
		{"fsetxattr", unix.SYS_FSETXATTR},
		{"setxattrat", unix.SYS_SETXATTRAT},
		{"removexattr", unix.SYS_REMOVEXATTR},
		{"lremovexattr", unix.SYS_LREMOVEXATTR},
		{"fremovexattr", unix.SYS_FREMOVEXATTR},
		{"removexattrat", unix.SYS_REMOVEXATTRAT},
		{"utime", unix.SYS_UTIME},
		{"utimes", unix.SYS_UTIMES},
		{"futimesat", unix.SYS_FUTIMESAT},
		// Watching files outside the grants.
		{"inotify_add_watch", unix.SYS_INOTIFY_ADD_WATCH},
		{"fanotify_init", unix.SYS_FANOTIFY_INIT},
		{"fanotify_mark", unix.SYS_FANOTIFY_MARK},
	},

	exec: []sysno{
		{"execve", unix.SYS_EXECVE},
		{"execveat", unix.SYS_EXECVEAT},
		{"fork", unix.SYS_FORK},
		{"vfork", unix.SYS_VFORK},
	},

	listen: []sysno{
		{"listen", unix.SYS_LISTEN},
		{"accept", unix.SYS_ACCEPT},
		{"accept4", unix.SYS_ACCEPT4},
	},

	pid0: []sysno{
		{"prlimit64", unix.SYS_PRLIMIT64},
		{"sched_setaffinity", unix.SYS_SCHED_SETAFFINITY},
		{"sched_setscheduler", unix.SYS_SCHED_SETSCHEDULER},
		{"sched_setparam", unix.SYS_SCHED_SETPARAM},
		{"sched_setattr", unix.SYS_SCHED_SETATTR},
	},

	modeAt: []modeArg{
		{sysno{"open", unix.SYS_OPEN}, 2},
		{sysno{"creat", unix.SYS_CREAT}, 1},
		{sysno{"openat", unix.SYS_OPENAT}, 3},
		{sysno{"mkdir", unix.SYS_MKDIR}, 1},
		{sysno{"mkdirat", unix.SYS_MKDIRAT}, 2},
	},

	clone:       unix.SYS_CLONE,
	clone3:      unix.SYS_CLONE3,
	ioctl:       unix.SYS_IOCTL,
	socket:      unix.SYS_SOCKET,
	socketpair:  unix.SYS_SOCKETPAIR,
	memfdCreate: unix.SYS_MEMFD_CREATE,
	openat2:     unix.SYS_OPENAT2,
	sendto:      unix.SYS_SENDTO,
	sendmsg:     unix.SYS_SENDMSG,
	sendmmsg:    unix.SYS_SENDMMSG,
	setsockopt:  unix.SYS_SETSOCKOPT,
	utimensat:   unix.SYS_UTIMENSAT,
	setpriority: unix.SYS_SETPRIORITY,
	ioprioSet:   unix.SYS_IOPRIO_SET,
}

// createCalls are the x86_64 calls that make a name, which ModeSupervised's filter sends to the
// supervisor (open and openat only with O_CREAT; mknod and mknodat are refused outright).
var createCallsAMD64 = []struct {
	nr uint32
	createCall
}{
	{unix.SYS_OPEN, createCall{name: "open", paths: []pathArg{{-1, 0}}, target: -1, flags: 1, mode: 2, atFlags: -1, renFlags: -1}},
	{unix.SYS_CREAT, createCall{name: "creat", paths: []pathArg{{-1, 0}}, target: -1, flags: -1, mode: 1, atFlags: -1, renFlags: -1}},
	{unix.SYS_OPENAT, createCall{name: "openat", paths: []pathArg{{0, 1}}, target: -1, flags: 2, mode: 3, atFlags: -1, renFlags: -1}},
	{unix.SYS_MKDIR, createCall{name: "mkdir", paths: []pathArg{{-1, 0}}, target: -1, flags: -1, mode: 1, atFlags: -1, renFlags: -1}},
	{unix.SYS_MKDIRAT, createCall{name: "mkdirat", paths: []pathArg{{0, 1}}, target: -1, flags: -1, mode: 2, atFlags: -1, renFlags: -1}},
	{unix.SYS_SYMLINK, createCall{name: "symlink", paths: []pathArg{{-1, 1}}, target: 0, flags: -1, mode: -1, atFlags: -1, renFlags: -1}},
	{unix.SYS_SYMLINKAT, createCall{name: "symlinkat", paths: []pathArg{{1, 2}}, target: 0, flags: -1, mode: -1, atFlags: -1, renFlags: -1}},
	{unix.SYS_LINK, createCall{name: "link", paths: []pathArg{{-1, 0}, {-1, 1}}, target: -1, flags: -1, mode: -1, atFlags: -1, renFlags: -1}},
	{unix.SYS_LINKAT, createCall{name: "linkat", paths: []pathArg{{0, 1}, {2, 3}}, target: -1, flags: -1, mode: -1, atFlags: 4, renFlags: -1}},
	{unix.SYS_RENAME, createCall{name: "rename", paths: []pathArg{{-1, 0}, {-1, 1}}, target: -1, flags: -1, mode: -1, atFlags: -1, renFlags: -1}},
	{unix.SYS_RENAMEAT, createCall{name: "renameat", paths: []pathArg{{0, 1}, {2, 3}}, target: -1, flags: -1, mode: -1, atFlags: -1, renFlags: -1}},
	{unix.SYS_RENAMEAT2, createCall{name: "renameat2", paths: []pathArg{{0, 1}, {2, 3}}, target: -1, flags: -1, mode: -1, atFlags: -1, renFlags: 4}},
}

func init() {
	a := &seccompAMD64
	a.createCalls = createCallsAMD64
	a.noted = map[int32]sysno{}
	for _, s := range []sysno{{"chdir", unix.SYS_CHDIR}, {"fchdir", unix.SYS_FCHDIR}, {"umask", unix.SYS_UMASK}} {
		a.noted[int32(s.nr)] = s
	}
	for _, c := range createCallsAMD64 {
		if c.flags >= 0 {
			a.createFlags = append(a.createFlags, modeArg{sysno{c.name, c.nr}, c.flags})
		} else {
			a.create = append(a.create, sysno{c.name, c.nr})
		}
	}
}
