package fingerprint

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"testing"

	"github.com/drover-project/drover/internal/structs"
)

type fakeDrivers map[string]*structs.DriverInfo

func (f fakeDrivers) FingerprintAll(context.Context) map[string]*structs.DriverInfo { return f }

func fingerprint(t *testing.T, cfg Config) *Result {
	t.Helper()
	if cfg.DataDir == "" {
		cfg.DataDir = t.TempDir()
	}
	r, err := Fingerprint(context.Background(), cfg)
	if errors.Is(err, ErrNoCPUFrequency) {
		cfg.CPUTotalCompute = 1000
		r, err = Fingerprint(context.Background(), cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestAttributesOnThisMachine(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("fingerprinting reads /proc")
	}
	r := fingerprint(t, Config{})
	a := r.Attributes
	for _, k := range []string{"cpu.numcores", "cpu.totalcompute", "cpu.arch", "memory.totalbytes", "kernel.name", "kernel.version",
		"unique.hostname", "unique.network.ip-address", "unique.storage.volume", "unique.storage.bytestotal", "unique.storage.bytesfree"} {
		if a[k] == "" {
			t.Errorf("attribute %s missing", k)
		}
	}
	if a["cpu.numcores"] != strconv.Itoa(runtime.NumCPU()) || a["kernel.name"] != "linux" || a["cpu.arch"] != runtime.GOARCH {
		t.Errorf("cpu/kernel attributes: %v", a)
	}
	res := r.Resources
	if res.CPU.CpuShares <= 0 || int(res.CPU.TotalCpuCores) != runtime.NumCPU() || res.MemoryMB < 64 || res.DiskMB <= 0 {
		t.Errorf("resources = %+v", res)
	}
	if res.MinDynamicPort != 20000 || res.MaxDynamicPort != 32000 {
		t.Errorf("port range = %d-%d", res.MinDynamicPort, res.MaxDynamicPort)
	}
	if len(res.Networks) != 1 || res.Networks[0].IP != a["unique.network.ip-address"] || res.Networks[0].Device == "" {
		t.Errorf("networks = %+v", res.Networks)
	}
	if len(r.Interfaces) == 0 {
		t.Error("no interfaces listed")
	}
	t.Logf("attributes: %v", a)
}

func TestOverrides(t *testing.T) {
	r := fingerprint(t, Config{CPUTotalCompute: 12345, MemoryTotalMB: 2048, DataDir: "/nonexistent/drover/data"})
	if r.Attributes["cpu.totalcompute"] != "12345" || r.Resources.CPU.CpuShares != 12345 {
		t.Errorf("cpu override: %v", r.Attributes["cpu.totalcompute"])
	}
	if r.Resources.MemoryMB != 2048 || r.Attributes["memory.totalbytes"] != strconv.Itoa(2048<<20) {
		t.Errorf("memory override: %d", r.Resources.MemoryMB)
	}
}

func TestUnknownInterfaceFails(t *testing.T) {
	_, err := Fingerprint(context.Background(), Config{NetworkInterface: "nope0", CPUTotalCompute: 1000})
	if err == nil {
		t.Fatal("unknown interface accepted")
	}
}

func TestDriverAttributes(t *testing.T) {
	r := fingerprint(t, Config{Drivers: fakeDrivers{
		"docker":   {Detected: true, Healthy: true, Attributes: map[string]string{"driver.docker.version": "20.10"}},
		"exec":     {Detected: true, Healthy: false, HealthDescription: "needs root"},
		"raw_exec": {Detected: false},
	}})
	a := r.Attributes
	if a["driver.docker"] != "1" || a["driver.docker.version"] != "20.10" {
		t.Errorf("docker attributes: %v", a)
	}
	if _, ok := a["driver.exec"]; ok {
		t.Error("unhealthy driver advertised")
	}
	if _, ok := a["driver.raw_exec"]; ok {
		t.Error("undetected driver advertised")
	}
	if len(r.Drivers) != 3 {
		t.Errorf("drivers = %v", r.Drivers)
	}
}

func TestDiff(t *testing.T) {
	a := fingerprint(t, Config{})
	b := fingerprint(t, Config{})
	b.Attributes["unique.storage.bytesfree"] = "1"
	b.Resources.DiskMB++
	if Diff(a, b) {
		t.Fatal("free-space drift counted as a change")
	}
	b.Attributes["kernel.version"] = "0.0"
	if !Diff(a, b) {
		t.Fatal("attribute change missed")
	}
	c := fingerprint(t, Config{Drivers: fakeDrivers{"docker": {Detected: true, Healthy: true}}})
	d := fingerprint(t, Config{Drivers: fakeDrivers{"docker": {Detected: true, Healthy: false, HealthDescription: "daemon down"}}})
	if !Diff(c, d) {
		t.Fatal("driver health change missed")
	}
	e := fingerprint(t, Config{MemoryTotalMB: 1})
	if !Diff(a, e) {
		t.Fatal("resource change missed")
	}
}
