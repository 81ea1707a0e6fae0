package hoststats

import (
	"math"
	"os"
	"path/filepath"
	"testing"
)

func writeProc(t *testing.T, dir, stat string) {
	t.Helper()
	files := map[string]string{
		"meminfo": "MemTotal:       1000 kB\nMemFree:         200 kB\nMemAvailable:    600 kB\n",
		"uptime":  "12345.67 999.0\n",
		"stat":    stat,
		"mounts":  "proc /proc proc rw 0 0\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestCollect_CPUIsUseSinceThePreviousSample(t *testing.T) {
	dir := t.TempDir()
	//            user nice system idle iowait irq softirq steal
	writeProc(t, dir, "cpu  0 0 0 0 0 0 0 0\ncpu0 100 0 100 800 0 0 0 0\ncpu1 0 0 0 1000 0 0 0 0\n")
	c := New(dir, "", 2000)
	if _, err := c.Collect(); err != nil {
		t.Fatal(err)
	}
	// cpu0: +100 user, +50 system, +50 idle of 200 jiffies; cpu1 idle.
	writeProc(t, dir, "cpu  0 0 0 0 0 0 0 0\ncpu0 200 0 150 850 0 0 0 0\ncpu1 0 0 0 1200 0 0 0 0\n")
	s, err := c.Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.CPU) != 2 || s.CPU[0].Name != "cpu0" || s.CPU[0].User != 50 || s.CPU[0].System != 25 || s.CPU[0].Idle != 25 || s.CPU[1].Idle != 100 {
		t.Fatalf("cpu: %+v", s.CPU)
	}
	// Busy 75% of one of two cores of a 2000 MHz node: 750 MHz.
	if math.Abs(s.CPUTicksConsumed-750) > 1e-9 {
		t.Fatalf("CPUTicksConsumed = %v", s.CPUTicksConsumed)
	}
	if s.Memory.Total != 1000*1024 || s.Memory.Available != 600*1024 || s.Memory.Used != 400*1024 || s.Memory.Free != 200*1024 {
		t.Fatalf("memory: %+v", s.Memory)
	}
	if s.Uptime != 12345 {
		t.Fatalf("uptime: %d", s.Uptime)
	}
}

func TestCollect_RealHost(t *testing.T) {
	c := New("/proc", filepath.Join(t.TempDir(), "not-yet-created"), 1000)
	s, err := c.Collect()
	if err != nil {
		t.Fatal(err)
	}
	if s.Memory.Total == 0 || len(s.CPU) == 0 || s.AllocDir == nil || s.AllocDir.Size == 0 {
		t.Fatalf("real host sample incomplete: %+v", s)
	}
}

func TestCollect_MissingProcIsAnError(t *testing.T) {
	if _, err := New(t.TempDir(), "", 0).Collect(); err == nil {
		t.Fatal("no error without /proc files")
	}
}
