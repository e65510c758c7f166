package confine

import "fmt"

// Mode says how a child keeps [ProtectedNames] read-only inside its write grants.
type Mode int

const (
	// ModeNamespace: the child starts in a user namespace of its own (its uid and gid mapped to
	// themselves, nothing else) with a private mount namespace, in which every protected entry
	// under a write grant, at any depth, is mounted read-only over itself before Landlock and
	// seccomp are applied (the filter then refuses every mount call). The write grants stay
	// writable as a whole: files can be created, changed and removed beside .git. The child
	// drops the namespace's capabilities on every thread before it runs anything else.
	ModeNamespace Mode = iota + 1
	// ModeSplit: without user namespaces (a sysctl, or a container, forbids them), a write
	// grant that holds a protected name is split (see [ProtectedNames]): the directories that
	// hold one become read-only, and a grant with more entries than the walk's budget is
	// refused.
	ModeSplit
	// ModeSupervised: ModeNamespace, and a protected name that does not exist cannot be made.
	// The calls that make a name (open, openat and creat with O_CREAT, mkdir, symlink, link and
	// rename in all their forms) are carried out by a supervisor process with the child's uid,
	// namespaces, limits and Landlock ruleset, from its own copy of the path, which refuses a
	// protected last component with EACCES (see supervise.go). It needs seccomp user
	// notification with SECCOMP_IOCTL_NOTIF_ADDFD and SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
	// (Linux 5.19), and no Yama ptrace_scope above 0; without them the namespace mode applies.
	ModeSupervised
)

func (m Mode) String() string {
	switch m {
	case ModeNamespace:
		return "namespace"
	case ModeSplit:
		return "split"
	case ModeSupervised:
		return "supervised"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Promise says in a sentence what the mode guarantees of protected names.
func (m Mode) Promise() string {
	switch m {
	case ModeSupervised:
		return "every protected entry under a write grant is a read-only mount in the child's own mount namespace, at any depth, and the grant stays writable around it; a protected name the call would create (open with O_CREAT, mkdir, symlink, link, rename) is refused with EACCES as it is made, by a supervisor that makes the child's names from its own copy of the path, at any depth and in directories the call made"
	case ModeNamespace:
		return "every protected entry under a write grant is a read-only mount in the child's own mount namespace, at any depth, and the grant stays writable around it; one a call creates is moved aside after it and the call is refused"
	}
	return "a directory that holds a protected entry, at any depth, is read-only (its other entries writable one by one), a grant of more than 20000 entries is refused, and one a call creates is moved aside after it and the call is refused"
}
