package exec

import (
	"bufio"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/opencontainers/cgroups"
	"github.com/opencontainers/cgroups/fs"
	"github.com/opencontainers/cgroups/fs2"

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

// cgroup is one task's cgroup, managed through opencontainers/cgroups
// (runc's cgroup managers: fs for v1, fs2 for v2).
type cgroup struct{ cgroupState }

// v1Controllers are the v1 hierarchies a task gets a cgroup in.
var v1Controllers = []string{"memory", "cpu", "cpuacct", "cpuset", "pids"}

// newCgroup creates the task's cgroup under parent.
func newCgroup(version, parent, name string) (*cgroup, error) {
	cg := &cgroup{cgroupState{Version: version, Paths: map[string]string{}}}
	switch version {
	case CgroupV2:
		cg.Paths["unified"] = filepath.Join(cgroupRoot, parent, name)
	case CgroupV1:
		for _, c := range v1Controllers {
			if _, err := os.Stat(filepath.Join(cgroupRoot, c)); err == nil {
				cg.Paths[c] = filepath.Join(cgroupRoot, c, parent, name)
			}
		}
	default:
		return nil, errors.New(NoCgroupsDescription)
	}
	m, err := cg.manager(&cgroups.Resources{})
	if err != nil {
		return nil, err
	}
	// Apply(-1) creates the dirs (on v2 enabling the controllers in every
	// ancestor; on v1 copying cpuset.cpus and mems down) and adds nothing.
	if err := m.Apply(-1); err != nil {
		return nil, fmt.Errorf("create cgroup: %w", err)
	}
	return cg, nil
}

// manager is the library's manager for the task's dirs.
func (c *cgroup) manager(r *cgroups.Resources) (cgroups.Manager, error) {
	cfg := &cgroups.Cgroup{Resources: r}
	if c.Version == CgroupV2 {
		return fs2.NewManager(cfg, c.Paths["unified"])
	}
	return fs.NewManager(cfg, maps.Clone(c.Paths))
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

// limits are the cgroup settings of a task: Nomad's, with memory the
// hard limit unless memory_max raises it (then memory is the soft limit:
// memory.low on v2, memory.soft_limit_in_bytes on v1), swap held to the
// limit, cpu shares (v2: weight), the CFS quota under cpu_hard_limit,
// the reserved cores as the cpuset, and pids_limit.
func limits(version string, r drivers.Resources, cfg *TaskConfig) *cgroups.Resources {
	out := &cgroups.Resources{}
	if limit := r.MemoryLimitBytes(); limit > 0 {
		out.Memory = limit
		out.MemorySwap = limit // memory+swap on v1; no swap on v2
	}
	out.MemoryReservation = r.MemorySoftBytes()
	if r.CPUShares > 0 {
		shares := uint64(min(max(r.CPUShares, 2), 262144))
		if version == CgroupV2 {
			out.CpuWeight = cgroups.ConvertCPUSharesToCgroupV2Value(shares)
		} else {
			out.CpuShares = shares
		}
	}
	if cfg != nil && cfg.CPUHardLimit && r.CPUShares > 0 {
		period := cfg.CPUCFSPeriod
		if period <= 0 {
			period = 100000
		}
		out.CpuPeriod = uint64(period)
		out.CpuQuota = max(r.CPUShares*period/mhzPerCore(), 1000)
	}
	if len(r.CoreIDs) > 0 {
		ids := make([]string, len(r.CoreIDs))
		for i, id := range r.CoreIDs {
			ids[i] = strconv.Itoa(int(id))
		}
		out.CpusetCpus = strings.Join(ids, ",")
	}
	if cfg != nil && cfg.PidsLimit > 0 {
		out.PidsLimit = &cfg.PidsLimit
	}
	return out
}

// setLimits applies the task's allocation.
func (c *cgroup) setLimits(r drivers.Resources, cfg *TaskConfig) error {
	res := limits(c.Version, r, cfg)
	if c.Version == CgroupV1 && !exists(c.Paths["memory"], "memory.memsw.limit_in_bytes") {
		res.MemorySwap = 0 // no swap accounting: nothing to hold
	}
	m, err := c.manager(res)
	if err != nil {
		return err
	}
	if err := m.Set(res); err != nil {
		return fmt.Errorf("set cgroup limits: %w", err)
	}
	return nil
}

// mhzPerCore is one core's clock, which turns resources.cpu (MHz) into
// a share of cores for cpu_hard_limit: the first "cpu MHz" of
// /proc/cpuinfo, 1000 when it publishes none.
func mhzPerCore() int64 {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 1000
	}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "cpu MHz" {
			if mhz, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil && mhz >= 1 {
				return int64(mhz)
			}
		}
	}
	return 1000
}

// oomKilled reports whether the kernel OOM-killed anything in the cgroup.
func (c *cgroup) oomKilled() bool {
	m, err := c.manager(&cgroups.Resources{})
	if err != nil {
		return false
	}
	n, err := m.OOMKillCount()
	return err == nil && n > 0
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

// destroy kills what is left and removes the cgroup dirs; removal fails
// while dying processes are still members, hence the retries.
func (c *cgroup) destroy() error {
	m, err := c.manager(&cgroups.Resources{})
	if err != nil {
		return err
	}
	for attempt := 0; attempt < 50; attempt++ {
		c.killAll()
		if err = m.Destroy(); err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup: %w", err)
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
