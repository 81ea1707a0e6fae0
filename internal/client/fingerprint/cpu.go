package fingerprint

import (
	"bufio"
	"context"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// ErrNoCPUFrequency asks for the override on machines (some VMs, ARM)
// that publish no clock speed.
var ErrNoCPUFrequency = errors.New("cannot determine the CPU frequency; set cpu_total_compute in the client config")

func fingerprintCPU(_ context.Context, cfg Config, r *Result) error {
	cores := runtime.NumCPU() // honours the affinity mask the client runs under
	model, mhz := readCPUInfo()
	if mhz == 0 {
		mhz = maxFreqMHz()
	}
	total := int(mhz * float64(cores))
	if cfg.CPUTotalCompute > 0 {
		total = cfg.CPUTotalCompute
	}
	if total <= 0 {
		return ErrNoCPUFrequency
	}
	a := r.Attributes
	a["cpu.numcores"] = strconv.Itoa(cores)
	a["cpu.totalcompute"] = strconv.Itoa(total)
	a["cpu.arch"] = runtime.GOARCH
	if mhz > 0 {
		a["cpu.frequency"] = strconv.Itoa(int(mhz))
	}
	if model != "" {
		a["cpu.modelname"] = model
	}
	r.Resources.CPU.CpuShares = int64(total)
	r.Resources.CPU.TotalCpuCores = uint16(cores)
	for i := 0; i < cores; i++ {
		r.Resources.CPU.ReservableCpuCores = append(r.Resources.CPU.ReservableCpuCores, uint16(i))
	}
	return nil
}

// readCPUInfo takes the first processor's model and MHz.
func readCPUInfo() (model string, mhz float64) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "", 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() && (model == "" || mhz == 0) {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name":
			if model == "" {
				model = strings.TrimSpace(v)
			}
		case "cpu MHz":
			if mhz == 0 {
				mhz, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		}
	}
	return model, mhz
}

// maxFreqMHz is the cpufreq fallback (kHz in sysfs).
func maxFreqMHz() float64 {
	b, err := os.ReadFile("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
	if err != nil {
		return 0
	}
	khz, _ := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	return khz / 1000
}
