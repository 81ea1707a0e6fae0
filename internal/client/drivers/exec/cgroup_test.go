package exec

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/drover-project/drover/internal/client/drivers"
)

// TestCgroupLimitsVisibleInTask: every limit is read back by the task
// itself from its /sys/fs/cgroup (its own cgroup, mounted read-only), and
// the cpuset is enforced on the task's scheduler affinity.
func TestCgroupLimitsVisibleInTask(t *testing.T) {
	d := newDriver(t)
	core := uint16(1)
	if countCPUs() < 2 {
		core = 0
	}
	var files map[string]string
	if DetectCgroups() == CgroupV2 {
		files = map[string]string{
			"memory.max": "memory.max", "memory.low": "memory.low", "cpu.weight": "cpu.weight",
			"cpu.max": "cpu.max", "cpuset": "cpuset.cpus.effective", "pids.max": "pids.max",
		}
	} else {
		files = map[string]string{
			"memory.max": "memory/memory.limit_in_bytes", "memory.low": "memory/memory.soft_limit_in_bytes",
			"cpu.weight": "cpu/cpu.shares", "cpu.max": "cpu/cpu.cfs_quota_us", "cpuset": "cpuset/cpuset.effective_cpus",
			"pids.max": "pids/pids.max",
		}
	}
	var script strings.Builder
	for key, f := range files {
		script.WriteString("echo " + key + "=$(cat /sys/fs/cgroup/" + f + ")\n")
	}
	script.WriteString("grep Cpus_allowed_list /proc/self/status | tr -d '\\t ' | tr : =\n")
	script.WriteString("( echo 1 > /sys/fs/cgroup/" + files["pids.max"] + " ) 2>/dev/null && echo WROTE-CGROUP\nexit 0\n")
	task := newTask(t, "web", map[string]any{"command": "/bin/sh", "args": []any{"-c", script.String()},
		"cpu_hard_limit": true, "cpu_cfs_period": 50000, "pids_limit": 64})
	task.Resources = drivers.Resources{CPUShares: 500, MemoryMB: 64, MemoryMaxMB: 128, Cores: 1, CoreIDs: []uint16{core}}
	if res := run(t, d, task); res.ExitCode != 0 {
		b, _ := os.ReadFile(task.StderrPath)
		t.Fatalf("exit = %+v, stderr %s", res, b)
	}
	got := map[string]string{}
	for _, l := range strings.Split(stdout(t, task), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	quota := strconv.FormatInt(max(500*50000/mhzPerCore(), 1000), 10)
	want := map[string]string{
		"memory.max": strconv.Itoa(128 << 20), "memory.low": strconv.Itoa(64 << 20),
		"cpuset": strconv.Itoa(int(core)), "Cpus_allowed_list": strconv.Itoa(int(core)), "pids.max": "64",
	}
	if DetectCgroups() == CgroupV2 {
		want["cpu.max"] = quota + " 50000"
		want["cpu.weight"] = strconv.FormatUint(limits(CgroupV2, task.Resources, nil).CpuWeight, 10)
	} else {
		want["cpu.max"] = quota
		want["cpu.weight"] = "500"
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q inside the task, want %q", k, got[k], v)
		}
	}
	if strings.Contains(stdout(t, task), "WROTE-CGROUP") {
		t.Error("the task could write its own cgroup's limits")
	}
}

// TestPidsLimitEnforced: a task cannot fork past pids_limit; the kernel
// counts the refused forks in pids.events. (The executor's threads count
// against the limit too: they are in the task's cgroup.) The loop runs in a
// subshell, which dies at the first refused fork; only builtins follow.
func TestPidsLimitEnforced(t *testing.T) {
	d := newDriver(t)
	dir := "/sys/fs/cgroup/pids/"
	if DetectCgroups() == CgroupV2 {
		dir = "/sys/fs/cgroup/"
	}
	task := newTask(t, "web", map[string]any{"command": "/bin/sh", "pids_limit": 20, "args": []any{"-c",
		`( n=0; while [ $n -lt 40 ]; do sleep 30 & n=$((n+1)); done ) 2>/dev/null
read cur < ` + dir + `pids.current; echo current=$cur
read ev < ` + dir + `pids.events; echo events=$ev
exit 0`}})
	run(t, d, task)
	got := map[string]string{}
	for _, l := range strings.Split(stdout(t, task), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			got[k] = v
		}
	}
	cur, err := strconv.Atoi(got["current"])
	if err != nil || cur > 20 || cur < 2 {
		t.Fatalf("pids.current %q under pids_limit 20 (output %q)", got["current"], stdout(t, task))
	}
	if n, _ := strconv.Atoi(strings.TrimPrefix(got["events"], "max ")); n == 0 {
		t.Fatalf("no fork was refused: pids.events %q", got["events"])
	}
}

func TestLimitsTable(t *testing.T) {
	r := drivers.Resources{CPUShares: 1000, MemoryMB: 100}
	cases := []struct {
		name  string
		ver   string
		r     drivers.Resources
		cfg   *TaskConfig
		check func(t *testing.T, got limitsView)
	}{
		{"memory alone is the hard limit", CgroupV1, r, nil, func(t *testing.T, g limitsView) {
			eq(t, g.mem, 100<<20)
			eq(t, g.soft, 0)
		}},
		{"memory_max is the hard limit, memory the soft one", CgroupV2, drivers.Resources{MemoryMB: 100, MemoryMaxMB: 300}, nil, func(t *testing.T, g limitsView) {
			eq(t, g.mem, 300<<20)
			eq(t, g.soft, 100<<20)
		}},
		{"v1 shares", CgroupV1, r, nil, func(t *testing.T, g limitsView) { eq(t, g.shares, 1000) }},
		{"v2 weight from shares", CgroupV2, r, nil, func(t *testing.T, g limitsView) {
			if g.weight < 1 || g.weight > 10000 || g.shares != 0 {
				t.Fatalf("weight %d shares %d", g.weight, g.shares)
			}
		}},
		{"no quota without cpu_hard_limit", CgroupV1, r, &TaskConfig{}, func(t *testing.T, g limitsView) { eq(t, g.quota, 0) }},
		{"cpu_hard_limit", CgroupV1, r, &TaskConfig{CPUHardLimit: true}, func(t *testing.T, g limitsView) {
			eq(t, g.period, 100000)
			eq(t, g.quota, max(1000*100000/mhzPerCore(), 1000))
		}},
		{"cores", CgroupV2, drivers.Resources{CoreIDs: []uint16{0, 3}}, nil, func(t *testing.T, g limitsView) {
			if g.cpus != "0,3" {
				t.Fatalf("cpuset %q", g.cpus)
			}
		}},
		{"pids_limit", CgroupV2, r, &TaskConfig{PidsLimit: 10}, func(t *testing.T, g limitsView) { eq(t, g.pids, 10) }},
		{"no pids_limit", CgroupV2, r, &TaskConfig{}, func(t *testing.T, g limitsView) { eq(t, g.pids, -1) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := limits(tc.ver, tc.r, tc.cfg)
			v := limitsView{mem: l.Memory, soft: l.MemoryReservation, shares: int64(l.CpuShares), weight: int64(l.CpuWeight),
				quota: l.CpuQuota, period: int64(l.CpuPeriod), cpus: l.CpusetCpus, pids: -1}
			if l.PidsLimit != nil {
				v.pids = *l.PidsLimit
			}
			tc.check(t, v)
		})
	}
}

func TestConfigRangesRefused(t *testing.T) {
	for field, cfg := range map[string]map[string]any{
		"pids_limit":     {"command": "x", "pids_limit": -1},
		"cpu_cfs_period": {"command": "x", "cpu_cfs_period": 10},
	} {
		_, err := DecodeTaskConfig(cfg)
		var ce *drivers.ConfigError
		if !errors.As(err, &ce) || ce.Field != field {
			t.Errorf("%s: %v", field, err)
		}
	}
}

type limitsView struct {
	mem, soft, shares, weight, quota, period, pids int64
	cpus                                           string
}

func eq(t *testing.T, got, want int64) {
	t.Helper()
	if got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}

func countCPUs() int {
	b, _ := os.ReadFile("/sys/devices/system/cpu/online")
	s := strings.TrimSpace(string(b))
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		a, _ := strconv.Atoi(lo)
		z, _ := strconv.Atoi(hi)
		return z - a + 1
	}
	return 1
}
