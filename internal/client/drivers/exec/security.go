package exec

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/drover-project/drover/internal/client/drivers"
)

// DefaultUser runs a task that names no user: never root.
const DefaultUser = "nobody"

// DefaultAllowCaps is the bounding set of an exec task: Nomad's documented
// exec default (docker's set without NET_RAW) minus MKNOD and SYS_CHROOT,
// which a task has no business with and which device-node and
// double-chroot escapes need. Operators widen it with allow_caps. A task
// running as a non-root user (the default) holds none of them.
var DefaultAllowCaps = []string{
	"audit_write", "chown", "dac_override", "fowner", "fsetid", "kill",
	"net_bind_service", "setfcap", "setgid", "setpcap", "setuid",
}

// DefaultDeniedUsers may never be a task's user unless the operator lists
// them in user.allowlist.
var DefaultDeniedUsers = []string{"root", "0"}

// UserPolicy is the plugin config's user { allowlist denylist } block: which
// task `user` values this client accepts. An empty allowlist accepts any
// user not denied.
type UserPolicy struct {
	Allowlist []string `cfg:"allowlist"`
	Denylist  []string `cfg:"denylist"`
}

// taskUser picks the user a task runs as and checks it against policy.
// The uid is checked as well as the name, so "0" or a second name for uid
// 0 cannot slip past a denied "root".
func (p UserPolicy) taskUser(requested string) (string, error) {
	if requested == "" {
		return DefaultUser, nil
	}
	cred, err := drivers.LookupCredential(requested)
	if err != nil {
		return "", err
	}
	uid := strconv.FormatUint(uint64(cred.Uid), 10)
	allowed := func(list []string) bool { return slices.Contains(list, requested) || slices.Contains(list, uid) }
	if len(p.Allowlist) > 0 && !allowed(p.Allowlist) {
		return "", fmt.Errorf("user %q is not in this client's exec user.allowlist", requested)
	}
	deny := p.Denylist
	if deny == nil {
		deny = DefaultDeniedUsers
	}
	if allowed(deny) && !allowed(p.Allowlist) {
		return "", fmt.Errorf("user %q is denied by this client's exec user.denylist", requested)
	}
	return requested, nil
}

// capNumbers maps capability names (as in allow_caps, cap_add: "chown" or
// "CAP_CHOWN") to their numbers.
var capNumbers = map[string]int{
	"chown": unix.CAP_CHOWN, "dac_override": unix.CAP_DAC_OVERRIDE, "dac_read_search": unix.CAP_DAC_READ_SEARCH,
	"fowner": unix.CAP_FOWNER, "fsetid": unix.CAP_FSETID, "kill": unix.CAP_KILL, "setgid": unix.CAP_SETGID,
	"setuid": unix.CAP_SETUID, "setpcap": unix.CAP_SETPCAP, "linux_immutable": unix.CAP_LINUX_IMMUTABLE,
	"net_bind_service": unix.CAP_NET_BIND_SERVICE, "net_broadcast": unix.CAP_NET_BROADCAST,
	"net_admin": unix.CAP_NET_ADMIN, "net_raw": unix.CAP_NET_RAW, "ipc_lock": unix.CAP_IPC_LOCK,
	"ipc_owner": unix.CAP_IPC_OWNER, "sys_module": unix.CAP_SYS_MODULE, "sys_rawio": unix.CAP_SYS_RAWIO,
	"sys_chroot": unix.CAP_SYS_CHROOT, "sys_ptrace": unix.CAP_SYS_PTRACE, "sys_pacct": unix.CAP_SYS_PACCT,
	"sys_admin": unix.CAP_SYS_ADMIN, "sys_boot": unix.CAP_SYS_BOOT, "sys_nice": unix.CAP_SYS_NICE,
	"sys_resource": unix.CAP_SYS_RESOURCE, "sys_time": unix.CAP_SYS_TIME, "sys_tty_config": unix.CAP_SYS_TTY_CONFIG,
	"mknod": unix.CAP_MKNOD, "lease": unix.CAP_LEASE, "audit_write": unix.CAP_AUDIT_WRITE,
	"audit_control": unix.CAP_AUDIT_CONTROL, "setfcap": unix.CAP_SETFCAP, "mac_override": unix.CAP_MAC_OVERRIDE,
	"mac_admin": unix.CAP_MAC_ADMIN, "syslog": unix.CAP_SYSLOG, "wake_alarm": unix.CAP_WAKE_ALARM,
	"block_suspend": unix.CAP_BLOCK_SUSPEND, "audit_read": unix.CAP_AUDIT_READ, "perfmon": unix.CAP_PERFMON,
	"bpf": unix.CAP_BPF, "checkpoint_restore": unix.CAP_CHECKPOINT_RESTORE,
}

func normCap(name string) string {
	return strings.TrimPrefix(strings.ToLower(strings.TrimSpace(name)), "cap_")
}

// taskCaps is the task's bounding set: the allowed set (or, with cap_add,
// the allowed set plus the additions, which must themselves be allowed)
// minus cap_drop. "all" in allow_caps allows every capability.
func taskCaps(allow, add, drop []string) ([]string, error) {
	allowed := map[string]bool{}
	for _, c := range allow {
		if normCap(c) == "all" {
			for name := range capNumbers {
				allowed[name] = true
			}
			continue
		}
		if _, ok := capNumbers[normCap(c)]; !ok {
			return nil, fmt.Errorf("allow_caps: unknown capability %q", c)
		}
		allowed[normCap(c)] = true
	}
	set := map[string]bool{}
	for _, c := range DefaultAllowCaps {
		if allowed[c] {
			set[c] = true
		}
	}
	for _, c := range add {
		n := normCap(c)
		if !allowed[n] {
			return nil, fmt.Errorf("cap_add: capability %q is not in this client's allow_caps", c)
		}
		set[n] = true
	}
	for _, c := range drop {
		if normCap(c) == "all" {
			clear(set)
			continue
		}
		if _, ok := capNumbers[normCap(c)]; !ok {
			return nil, fmt.Errorf("cap_drop: unknown capability %q", c)
		}
		delete(set, normCap(c))
	}
	out := make([]string, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	slices.Sort(out)
	return out, nil
}

// restrictThread drops every capability not in keep from the calling
// thread's bounding set and sets no_new_privs, so a process forked from
// this thread can never gain more: not as root, not through a setuid or
// file-capability binary. The caller keeps its own effective capabilities
// (it still has to chroot and change user for the task) and must hold the
// thread locked until the task is started.
func restrictThread(keep []string) error {
	kept := map[int]bool{}
	for _, c := range keep {
		kept[capNumbers[c]] = true
	}
	for c := 0; c <= lastCap(); c++ {
		if kept[c] {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("set no_new_privs: %w", err)
	}
	return nil
}

// lastCap is the kernel's highest capability number.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return unix.CAP_LAST_CAP
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return unix.CAP_LAST_CAP
	}
	return n
}

func nonEmpty(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

// sharedDirs are the alloc dir and its data and tmp dirs, which every task
// of the alloc writes whatever user it runs as.
func sharedDirs(allocDir string) []string {
	if allocDir == "" {
		return nil
	}
	return []string{allocDir, filepath.Join(allocDir, "data"), filepath.Join(allocDir, "tmp")}
}

// prepareTaskDirs gives the task's own dirs to its user and opens the
// alloc's shared dirs to every task (sticky, like /tmp), so a task that
// no longer runs as root can still write where tasks write.
func prepareTaskDirs(spec *executorSpec, uid, gid int) error {
	for _, d := range spec.OwnDirs {
		if err := os.Chown(d, uid, gid); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("chown %s: %w", d, err)
		}
	}
	for _, d := range spec.SharedDirs {
		if err := os.Chmod(d, 0o1777); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("chmod %s: %w", d, err)
		}
	}
	return nil
}
