// Package hoststats measures the client's host for /v1/client/stats: CPU
// use per core since the previous sample, memory, uptime and the disks of
// real filesystems. It reads Linux's /proc and statfs; the proc root is a
// parameter so tests can feed it files.
package hoststats

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Stats is one sample of the host.
type Stats struct {
	Memory           Memory
	CPU              []CPU
	Disks            []Disk
	AllocDir         *Disk
	Uptime           uint64  // seconds
	CPUTicksConsumed float64 // MHz-equivalent busy across cores since the last sample
}

// Memory is in bytes.
type Memory struct{ Total, Available, Used, Free uint64 }

// CPU is one core's busy shares since the previous sample, in percent.
type CPU struct {
	Name               string
	User, System, Idle float64
}

// Disk is one mounted filesystem.
type Disk struct {
	Device, Mountpoint             string
	Size, Used, Available          uint64
	UsedPercent, InodesUsedPercent float64
}

// Collector keeps the previous CPU counters so each sample reports use
// since the last one (the first sample reports use since boot).
type Collector struct {
	proc     string
	allocDir string
	mhz      float64 // total compute of the node, for CPUTicksConsumed

	mu   sync.Mutex
	prev map[string]cpuTimes
}

// New returns a collector reading procRoot ("/proc" in production);
// allocDir's disk is reported separately; totalMHz is the node's compute.
func New(procRoot, allocDir string, totalMHz float64) *Collector {
	return &Collector{proc: procRoot, allocDir: allocDir, mhz: totalMHz, prev: map[string]cpuTimes{}}
}

// Collect takes one sample.
func (c *Collector) Collect() (*Stats, error) {
	s := &Stats{}
	var err error
	if s.Memory, err = c.memory(); err != nil {
		return nil, err
	}
	if s.CPU, err = c.cpu(); err != nil {
		return nil, err
	}
	s.Uptime = c.uptime()
	s.Disks = c.disks()
	if c.allocDir != "" {
		if d, ok := statNearest(c.allocDir); ok {
			s.AllocDir = &d
		}
	}
	var busy float64
	for _, core := range s.CPU {
		busy += core.User + core.System
	}
	if n := len(s.CPU); n > 0 {
		s.CPUTicksConsumed = busy / 100 / float64(n) * c.mhz
	}
	return s, nil
}

func (c *Collector) memory() (Memory, error) {
	f, err := os.Open(filepath.Join(c.proc, "meminfo"))
	if err != nil {
		return Memory{}, fmt.Errorf("host stats: %w", err)
	}
	defer f.Close()
	kb := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 {
			v, _ := strconv.ParseUint(fields[1], 10, 64)
			kb[strings.TrimSuffix(fields[0], ":")] = v * 1024
		}
	}
	m := Memory{Total: kb["MemTotal"], Free: kb["MemFree"], Available: kb["MemAvailable"]}
	if m.Total >= m.Available {
		m.Used = m.Total - m.Available
	}
	return m, nil
}

// cpuTimes are one core's cumulative jiffies.
type cpuTimes struct{ user, system, idle, total float64 }

func (c *Collector) cpu() ([]CPU, error) {
	f, err := os.Open(filepath.Join(c.proc, "stat"))
	if err != nil {
		return nil, fmt.Errorf("host stats: %w", err)
	}
	defer f.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []CPU
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || !strings.HasPrefix(fields[0], "cpu") || fields[0] == "cpu" {
			continue
		}
		now := parseCPU(fields[1:])
		prev := c.prev[fields[0]]
		c.prev[fields[0]] = now
		d := now.total - prev.total
		if d <= 0 {
			out = append(out, CPU{Name: fields[0], Idle: 100})
			continue
		}
		out = append(out, CPU{Name: fields[0],
			User: 100 * (now.user - prev.user) / d, System: 100 * (now.system - prev.system) / d,
			Idle: 100 * (now.idle - prev.idle) / d})
	}
	return out, sc.Err()
}

// parseCPU reads user nice system idle iowait irq softirq steal.
func parseCPU(f []string) cpuTimes {
	v := make([]float64, len(f))
	var total float64
	for i, s := range f {
		v[i], _ = strconv.ParseFloat(s, 64)
		if i < 8 {
			total += v[i]
		}
	}
	return cpuTimes{user: v[0] + v[1], system: v[2] + v[5] + v[6], idle: v[3] + v[4], total: total}
}

func (c *Collector) uptime() uint64 {
	b, err := os.ReadFile(filepath.Join(c.proc, "uptime"))
	if err != nil {
		return 0
	}
	secs, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return uint64(secs)
}

// realFS are the filesystem types whose mounts are disks worth reporting.
var realFS = map[string]bool{"ext2": true, "ext3": true, "ext4": true, "xfs": true, "btrfs": true, "zfs": true, "vfat": true, "f2fs": true, "overlay": true}

func (c *Collector) disks() []Disk {
	f, err := os.Open(filepath.Join(c.proc, "mounts"))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Disk
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || !realFS[fields[2]] || seen[fields[1]] {
			continue
		}
		seen[fields[1]] = true
		if d, ok := statDisk(fields[0], fields[1]); ok {
			out = append(out, d)
		}
	}
	return out
}

// statNearest stats path's filesystem, through its nearest existing
// ancestor: the alloc dir is created with the first alloc, but the disk
// it will live on is already there.
func statNearest(path string) (Disk, bool) {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		if d, ok := statDisk("", p); ok {
			d.Mountpoint = path
			return d, true
		}
		if p == filepath.Dir(p) {
			return Disk{}, false
		}
	}
}

func statDisk(device, path string) (Disk, bool) {
	var st syscall.Statfs_t
	if syscall.Statfs(path, &st) != nil {
		return Disk{}, false
	}
	bs := uint64(st.Bsize)
	d := Disk{Device: device, Mountpoint: path, Size: st.Blocks * bs, Available: st.Bavail * bs}
	d.Used = d.Size - st.Bfree*bs
	if d.Used+d.Available > 0 {
		d.UsedPercent = 100 * float64(d.Used) / float64(d.Used+d.Available)
	}
	if st.Files > 0 {
		d.InodesUsedPercent = 100 * float64(st.Files-st.Ffree) / float64(st.Files)
	}
	return d, true
}
