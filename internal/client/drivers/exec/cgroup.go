package exec

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/drover-project/drover/internal/client/drivers"
)

// cgroupRoot is where the cgroup filesystems are mounted.
var cgroupRoot = "/sys/fs/cgroup"

// Cgroup versions as DetectCgroups reports them.
const (
	CgroupNone = ""
	CgroupV1   = "v1"
	CgroupV2   = "v2"
)

// DetectCgroups reports which cgroup hierarchy the machine offers: v2 when
// the unified hierarchy is mounted at the root, v1 when the memory and cpu
// controllers are, none otherwise (a hybrid system's /unified mount has no
// controllers, so it counts as v1).
func DetectCgroups() string {
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		return CgroupV2
	}
	_, memErr := os.Stat(filepath.Join(cgroupRoot, "memory", "memory.limit_in_bytes"))
	_, cpuErr := os.Stat(filepath.Join(cgroupRoot, "cpu", "cpu.shares"))
	if memErr == nil && cpuErr == nil {
		return CgroupV1
	}
	return CgroupNone
}

// cgroupState is persisted in the task handle so a restarted client can
// read and remove the task's cgroup.
type cgroupState struct {
	Version string
	// Paths are the task's cgroup dirs, by controller for v1 ("memory",
	// "cpu", "cpuacct") and under "unified" for v2.
	Paths map[string]string
}

// cgroup is one task's cgroup.
type cgroup struct{ cgroupState }

// newCgroup creates the task's cgroup under parent.
func newCgroup(version, parent, name string) (*cgroup, error) {
	cg := &cgroup{cgroupState{Version: version, Paths: map[string]string{}}}
	switch version {
	case CgroupV2:
		if err := enableV2Controllers(parent); err != nil {
			return nil, err
		}
		cg.Paths["unified"] = filepath.Join(cgroupRoot, parent, name)
	case CgroupV1:
		for _, c := range []string{"memory", "cpu", "cpuacct"} {
			if _, err := os.Stat(filepath.Join(cgroupRoot, c)); err == nil {
				cg.Paths[c] = filepath.Join(cgroupRoot, c, parent, name)
			}
		}
	default:
		return nil, errors.New(NoCgroupsDescription)
	}
	for _, p := range cg.Paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
	}
	return cg, nil
}

// enableV2Controllers delegates memory and cpu down to the parent's
// children; a v2 controller only applies where every ancestor enabled it.
func enableV2Controllers(parent string) error {
	dir := cgroupRoot
	for _, part := range append([]string{""}, strings.Split(parent, "/")...) {
		dir = filepath.Join(dir, part)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create cgroup: %w", err)
		}
		if err := writeFile(dir, "cgroup.subtree_control", "+memory +cpu"); err != nil {
			return err
		}
	}
	return nil
}

// procsFiles are the files a process writes "0" to in order to join.
func (c *cgroup) procsFiles() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range c.Paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			real = p
		}
		if !seen[real] {
			seen[real] = true
			out = append(out, filepath.Join(p, "cgroup.procs"))
		}
	}
	return out
}

// setLimits applies the task's memory and CPU allocation. Swap is capped
// at the memory limit too, or a task could outgrow its limit into swap.
func (c *cgroup) setLimits(r drivers.Resources) error {
	if c.Version == CgroupV2 {
		return c.setLimitsV2(r)
	}
	return c.setLimitsV1(r)
}

func (c *cgroup) setLimitsV1(r drivers.Resources) error {
	mem, cpu := c.Paths["memory"], c.Paths["cpu"]
	if limit := r.MemoryLimitBytes(); limit > 0 {
		if err := writeFile(mem, "memory.limit_in_bytes", strconv.FormatInt(limit, 10)); err != nil {
			return err
		}
		if exists(mem, "memory.memsw.limit_in_bytes") {
			if err := writeFile(mem, "memory.memsw.limit_in_bytes", strconv.FormatInt(limit, 10)); err != nil {
				return err
			}
		}
	}
	if soft := r.MemorySoftBytes(); soft > 0 {
		if err := writeFile(mem, "memory.soft_limit_in_bytes", strconv.FormatInt(soft, 10)); err != nil {
			return err
		}
	}
	if r.CPUShares > 0 {
		return writeFile(cpu, "cpu.shares", strconv.FormatInt(max(r.CPUShares, 2), 10))
	}
	return nil
}

func (c *cgroup) setLimitsV2(r drivers.Resources) error {
	dir := c.Paths["unified"]
	if limit := r.MemoryLimitBytes(); limit > 0 {
		if err := writeFile(dir, "memory.max", strconv.FormatInt(limit, 10)); err != nil {
			return err
		}
		if exists(dir, "memory.swap.max") {
			if err := writeFile(dir, "memory.swap.max", "0"); err != nil {
				return err
			}
		}
	}
	if soft := r.MemorySoftBytes(); soft > 0 {
		if err := writeFile(dir, "memory.low", strconv.FormatInt(soft, 10)); err != nil {
			return err
		}
	}
	if r.CPUShares > 0 {
		return writeFile(dir, "cpu.weight", strconv.FormatInt(sharesToWeight(r.CPUShares), 10))
	}
	return nil
}

// sharesToWeight maps v1 shares [2, 262144] onto v2 weights [1, 10000].
func sharesToWeight(shares int64) int64 {
	shares = min(max(shares, 2), 262144)
	return 1 + (shares-2)*9999/262142
}

// oomKilled reports whether the kernel OOM-killed anything in the cgroup.
func (c *cgroup) oomKilled() bool {
	var n uint64
	if c.Version == CgroupV2 {
		n = keyedValue(filepath.Join(c.Paths["unified"], "memory.events"), "oom_kill")
	} else {
		n = keyedValue(filepath.Join(c.Paths["memory"], "memory.oom_control"), "oom_kill")
	}
	return n > 0
}

// killAll SIGKILLs every process left in the cgroup.
func (c *cgroup) killAll() {
	for _, f := range c.procsFiles() {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(line); err == nil && pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// destroy kills what is left and removes the cgroup dirs; rmdir fails
// while dying processes are still members, hence the retries.
func (c *cgroup) destroy() error {
	var err error
	for attempt := 0; attempt < 50; attempt++ {
		c.killAll()
		err = nil
		for _, p := range c.Paths {
			if rmErr := syscall.Rmdir(p); rmErr != nil && !errors.Is(rmErr, syscall.ENOENT) {
				err = fmt.Errorf("remove cgroup %s: %w", p, rmErr)
			}
		}
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}

func writeFile(dir, name, value string) error {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0); err != nil {
		return fmt.Errorf("cgroup %s: %w", name, err)
	}
	return nil
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// keyedValue reads "key value" lines (memory.events, memory.stat, ...).
func keyedValue(path, key string) uint64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if ok && k == key {
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// singleValue reads a file holding one number.
func singleValue(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return n, err == nil
}
